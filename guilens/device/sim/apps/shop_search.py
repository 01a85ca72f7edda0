"""How the shop matches a query: every word must match, as a real shop's search does.

A query's words (case aside, simple plurals folded: `boots`/`boot`, `watches`/`watch`,
`batteries`/`battery`, `men's`/`men`; a few filler words such as "for" and "the" dropped) must
all occur among a product's words (name, brand, category, description, keywords, colours). So
text appended to a query narrows the results, and junk narrows them to nothing: a search for
"patio side tableDrip Coffee Maker 12-Cup" (a field that was not cleared) finds no product,
where a forgiving best-partial match would still have shown the coffee maker.

Matches keep shelf order ("relevance"), so the products the built-in tasks look for, which come
first on the shelf, come first among their matches. The words are read by `matching`, which the
Search app shares.
"""

from __future__ import annotations

from collections.abc import Iterable

from guilens.device.sim.apps.matching import query_terms, word_set
from guilens.device.sim.apps.shop_state import Product, ShopSearch


def haystack(p: Product) -> frozenset[str]:
    return word_set(" ".join([p.name, p.brand, p.category, p.description, *p.keywords, *p.colors]))


def matches(products: Iterable[Product], query: str) -> list[Product]:
    """The products whose words include every word of `query`, in shelf order (all of them for an empty query)."""
    terms = query_terms(query)
    if not terms:
        return list(products)
    return [p for p in products if all(t in haystack(p) for t in terms)]


def refine(found: list[Product], s: ShopSearch) -> list[Product]:
    """`found` narrowed by the search's filters (brand, size, colour, price), then sorted."""
    out = found
    if s.brands:
        out = [p for p in out if p.brand in s.brands]
    if s.sizes:
        out = [p for p in out if set(p.sizes) & set(s.sizes)]
    if s.colors:
        want = {c.casefold() for c in s.colors}
        out = [p for p in out if {c.casefold() for c in p.colors} & want]
    if s.price_min is not None:
        out = [p for p in out if p.price >= s.price_min]
    if s.price_max is not None:
        out = [p for p in out if p.price <= s.price_max]
    key = {"price_asc": lambda p: p.price, "price_desc": lambda p: -p.price, "rating": lambda p: -p.rating,
           "reviews": lambda p: -p.review_count}.get(s.sort)
    return sorted(out, key=key) if key else list(out)
