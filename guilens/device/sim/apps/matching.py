"""Query words as the sim's search boxes read them: lower case, simple plurals folded, filler dropped.

The Shop and the Search app match the same way: every word of the query must occur among an
item's words, so text appended to a query narrows the results and junk narrows them to nothing,
as in a real shop or search engine. Written by hand: a few lines over the sim's own tokens (a
stemming library would fold more, and differently on each version; this rule is fixed).
"""

from __future__ import annotations

import re
from functools import lru_cache

STOP = frozenset({"for", "with", "the", "a", "an", "and", "of", "in", "on", "to", "my", "me", "find", "search"})
"""Filler words a query may carry that no item needs to match."""
_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")


def stem(w: str) -> str:
    """A word with its simple plural folded: `shoes` → `shoe`, `watches` → `watch`, `glasses` → `glass`,
    `batteries` → `battery`, `men's` → `men`."""
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("sses", "xes", "ches", "shes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def words(text: str) -> list[str]:
    """The folded words of `text`, in order."""
    return [stem(w) for w in _WORD.findall(text.lower().replace("'s", "").replace("-", " "))]


def query_terms(query: str, stop: frozenset[str] = STOP) -> list[str]:
    """The words a query must all match: its folded words without filler words."""
    return [w for w in words(query) if w not in stop]


@lru_cache(maxsize=8192)
def word_set(text: str) -> frozenset[str]:
    """`words(text)` as a set, cached: items are matched against the same texts over and over."""
    return frozenset(words(text))
