"""Shop: search, filters (brand, size, colour, price), sort and results; pages and cart in `shop_pages`.

The current search (query, filters, sort) is part of the app's state, so a task
like "filter for ASICS in size 10" is checked on `apps.shop.search`.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache, partial
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

import guilens.device.sim.icons as icons
import guilens.device.sim.ui as ui
from guilens.device.sim.apps.shop_data import default_products
from guilens.device.sim.apps.shop_pages import ShopPages, paint_thumb, thumb
from guilens.device.sim.core import App, Ctx
from guilens.device.sim.kit import Label, View


class Review(BaseModel):
    model_config = ConfigDict(extra="forbid")

    author: str
    rating: int = Field(ge=1, le=5)
    text: str


class Product(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    brand: str
    price: float = Field(ge=0)
    category: str = ""
    rating: float = Field(default=0.0, ge=0, le=5)
    review_count: int = Field(default=0, ge=0)
    sizes: list[str] = []
    colors: list[str] = []
    specs: dict[str, str] = {}
    reviews: list[Review] = []
    description: str = ""
    keywords: list[str] = []
    in_stock: bool = True


class CartItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    product_id: str
    quantity: int = Field(default=1, ge=1)
    size: str = ""
    color: str = ""


class Order(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int
    items: list[CartItem]
    total: float
    placed: datetime


SortKey = Literal["relevance", "price_asc", "price_desc", "rating", "reviews"]
SORTS: dict[SortKey, str] = {
    "relevance": "Relevance", "price_asc": "Price: low to high", "price_desc": "Price: high to low",
    "rating": "Customer rating", "reviews": "Most reviews",
}


class ShopSearch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = ""
    brands: list[str] = []
    sizes: list[str] = []
    colors: list[str] = []
    price_min: float | None = None
    price_max: float | None = None
    sort: SortKey = "relevance"


class ShopState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    products: list[Product] = Field(default_factory=lambda: [Product(**p) for p in default_products()])
    cart: list[CartItem] = []
    orders: list[Order] = []
    search: ShopSearch = Field(default_factory=ShopSearch)
    """The search on screen: what the last query and filter choices were."""
    history: list[str] = []
    """Past queries, newest first."""

    @model_validator(mode="after")
    def _known_products(self) -> ShopState:
        ids = {p.id for p in self.products}
        if len(ids) != len(self.products):
            raise ValueError("product ids must be unique")
        for item in self.cart:
            if item.product_id not in ids:
                raise ValueError(f"cart item {item.product_id!r} is not a product id")
        return self

    def product(self, pid: str) -> Product | None:
        return next((p for p in self.products if p.id == pid), None)


_STOP = {"for", "with", "the", "a", "an", "and", "of", "in", "on", "to", "my", "me", "find", "search"}
_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")


def _stem(w: str) -> str:
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    return w


def _words(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text.lower().replace("'s", "").replace("-", " "))}


def _haystack(p: Product) -> frozenset[str]:
    return _haystack_of(" ".join([p.name, p.brand, p.category, p.description, *p.keywords, *p.colors]))


@lru_cache(maxsize=4096)
def _haystack_of(text: str) -> frozenset[str]:
    return frozenset(_words(text))


def search_products(st: ShopState, s: ShopSearch) -> list[Product]:
    """Matches for the query (all words, else best partial), narrowed by filters, then sorted."""
    terms = [w for w in (_stem(x) for x in _WORD.findall(s.query.lower().replace("'s", "").replace("-", " ")))
             if w not in _STOP]
    scored: list[tuple[int, int, Product]] = []
    for i, p in enumerate(st.products):
        hay = _haystack(p)
        hits = sum(1 for t in terms if t in hay)
        scored.append((hits, i, p))
    if terms:
        full = [x for x in scored if x[0] == len(terms)]
        pool = full or [x for x in scored if x[0] * 2 >= len(terms) and x[0] > 0]
        pool.sort(key=lambda x: (-x[0], x[1]))
    else:
        pool = scored
    out = [p for _, _, p in pool]
    if s.brands:
        out = [p for p in out if p.brand in s.brands]
    if s.sizes:
        out = [p for p in out if set(p.sizes) & set(s.sizes)]
    if s.colors:
        out = [p for p in out if {c.casefold() for c in p.colors} & {c.casefold() for c in s.colors}]
    if s.price_min is not None:
        out = [p for p in out if p.price >= s.price_min]
    if s.price_max is not None:
        out = [p for p in out if p.price <= s.price_max]
    key = {"price_asc": lambda p: p.price, "price_desc": lambda p: -p.price, "rating": lambda p: -p.rating,
           "reviews": lambda p: -p.review_count}.get(s.sort)
    return sorted(out, key=key) if key else out


def _unfiltered(st: ShopState) -> list[Product]:
    return search_products(st, ShopSearch(query=st.search.query))


def slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", s.lower()).strip("_")


class Shop(ShopPages, App):
    short = "shop"
    label = "Shop"
    accent = (239, 108, 0)
    icon = "bag"
    State = ShopState

    def _bar_actions(self, ctx: Ctx) -> list[ui.BarAction]:
        n = sum(i.quantity for i in ctx.state.cart)
        return [ui.BarAction(icons.cart, f"Cart, {n} items" if n else "Cart", "cart",
                             ctx.pusher("cart", "opened the cart"))]

    def _search_box(self, ctx: Ctx, y: int) -> list[View]:
        u = ctx.u
        f = ui.field(ctx, (u(40), y, ctx.w - u(40), y + u(140)), "search_box", "Search products",
                     submit=lambda: self._run_search(ctx))
        out: list[View] = [f]
        cb = ui.clear_button(ctx, f, "Search products")
        if cb:
            out.append(cb)
        return out

    def _run_search(self, ctx: Ctx, query: str | None = None) -> str:
        st: ShopState = ctx.state
        q = (query if query is not None else ctx.field("search_box")).strip()
        if not q:
            return "type something to search"
        st.search = ShopSearch(query=q)
        if q in st.history:
            st.history.remove(q)
        st.history.insert(0, q)
        n = len(search_products(st, st.search))
        if ctx.route.screen == "results":
            ctx.route.fields["search_box"] = q
            ctx.route.scroll.clear()
        else:
            ctx.push("results", fields={"search_box": q})
        return f"searched for {q!r}: {n} result{'' if n == 1 else 's'}"

    def screen_main(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        st: ShopState = ctx.state
        views: list[View] = [ui.app_bar(ctx, "Shop", back=False, actions=self._bar_actions(ctx))]
        top = ctx.top + ctx.bar
        views += self._search_box(ctx, top + u(16))
        col = ui.Column(u(40), top + u(190), ctx.w - u(40))
        items: list[View] = [ui.section(ctx, col, "Categories")]
        cats = list(dict.fromkeys(p.category for p in st.products if p.category))
        items += ui.chips(ctx, col, [(c, f"category_{slug(c)}", False, partial(self._run_search, ctx, c))
                                     for c in cats])
        if st.history:
            items.append(ui.section(ctx, col, "Recent searches"))
            for q in st.history[:4]:
                items.append(ui.row(ctx, col.next(u(140), u(12)), q, rid="recent_search", title_id="recent_query",
                                    on_tap=partial(self._run_search, ctx, q), card=False,
                                    lead=lambda c, lr: icons.history(c, lr, t.sub)))
        items.append(ui.section(ctx, col, "Top picks"))
        cw = (col.x2 - col.x1 - u(30)) // 2
        for i, p in enumerate(st.products[:6]):
            x = col.x1 + (i % 2) * (cw + u(30))
            y = col.y + (i // 2) * u(560)
            card = View((x, y, x + cw, y + u(530)), fill=t.card, radius=u(36), rid="pick",
                        on_tap=partial(self.open_product, ctx, p.id), cls="android.widget.LinearLayout")
            card.add(View((x + u(24), y + u(24), x + cw - u(24), y + u(300)), cls="android.widget.ImageView",
                          paint=partial(paint_thumb, p=p)))
            card.add(Label((x + u(30), y + u(320), x + cw - u(30), y + u(430)), p.name, u(36), t.text,
                           rid="pick_name", max_lines=2, valign="top"))
            card.add(Label((x + u(30), y + u(440), x + cw - u(30), y + u(510)), ui.money(p.price), u(44),
                           t.accent, rid="pick_price", bold=True))
            items.append(card)
        col.y += ((min(6, len(st.products)) + 1) // 2) * u(560)
        views.append(ui.scroll(ctx, (0, top + u(176), ctx.w, ctx.bottom), "home", items))
        return views

    def screen_results(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        st: ShopState = ctx.state
        s = st.search
        views: list[View] = [ui.app_bar(ctx, "Results", actions=self._bar_actions(ctx))]
        top = ctx.top + ctx.bar
        views += self._search_box(ctx, top + u(16))
        nf = len(s.brands) + len(s.sizes) + len(s.colors) + (s.price_min is not None) + (s.price_max is not None)
        y = top + u(180)
        bw = (ctx.w - u(110)) // 2
        views.append(ui.button(ctx, (u(40), y, u(40) + bw, y + u(110)), f"Filters ({nf})" if nf else "Filters",
                               "filters", ctx.pusher("filters", "opened the filters"),
                               style="tonal" if nf else "outline", icon=icons.filters))
        views.append(ui.button(ctx, (ctx.w - u(40) - bw, y, ctx.w - u(40), y + u(110)), "Sort", "sort",
                               ctx.opener("sort", "opened the sort options"),
                               style="tonal" if s.sort != "relevance" else "outline", icon=icons.sort))
        found = search_products(st, s)
        summary = f"{len(found)} result{'' if len(found) == 1 else 's'} for “{s.query}”" + (f" · {SORTS[s.sort]}" if s.sort != "relevance" else "")
        views.append(Label((u(48), y + u(130), ctx.w - u(48), y + u(200)), summary, u(36), t.sub,
                           rid="result_count"))
        col = ui.Column(u(40), y + u(220), ctx.w - u(40))
        items: list[View] = []
        for p in found:
            items.append(self.product_card(ctx, col.next(u(330), u(24)), p))
        if not found:
            items.append(ui.empty(ctx, col.next(u(300)), "No products match. Try other words or fewer filters."))
        views.append(ui.scroll(ctx, (0, y + u(210), ctx.w, ctx.bottom), "results", items))
        return views

    def product_card(self, ctx: Ctx, r: tuple[int, int, int, int], p: Product) -> View:
        u = ctx.u
        t = ctx.theme
        x1, y1, x2, y2 = r
        card = View(r, fill=t.card, radius=u(36), rid="product", on_tap=lambda: self.open_product(ctx, p.id),
                    cls="android.widget.LinearLayout")
        card.add(View((x1 + u(24), y1 + u(24), x1 + u(284), y2 - u(24)), cls="android.widget.ImageView",
                      paint=lambda c, v: thumb(c, v.bounds, p)))
        tx = x1 + u(316)
        card.add(Label((tx, y1 + u(28), x2 - u(30), y1 + u(148)), p.name, u(40), t.text, rid="product_name",
                       max_lines=2, valign="top", bold=True))
        card.add(Label((tx, y1 + u(150), x2 - u(30), y1 + u(200)), p.brand, u(34), t.sub, rid="product_brand"))
        card.add(Label((tx, y1 + u(200), x2 - u(30), y1 + u(250)), f"{p.rating:.1f} ★ ({p.review_count:,})", u(34),
                       t.sub, rid="product_rating"))
        card.add(Label((tx, y1 + u(250), x2 - u(30), y2 - u(16)), ui.money(p.price), u(50), t.text,
                       rid="product_price", bold=True))
        return card

    def dialog_sort(self, ctx: Ctx, spec: dict) -> View | None:
        st: ShopState = ctx.state

        def pick(key: SortKey) -> str:
            st.search.sort = key
            ctx.close_dialog()
            ctx.route.scroll.clear()
            return f"sorted by {SORTS[key].lower()}"

        items = [(v, f"sort_{k}", lambda k=k: pick(k)) for k, v in SORTS.items()]
        return ui.menu(ctx, "Sort by", items, selected=f"sort_{st.search.sort}")

    def screen_filters(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        st: ShopState = ctx.state
        s = st.search
        if "price_min" not in ctx.route.fields:
            ctx.route.fields["price_min"] = _num(s.price_min)
            ctx.route.fields["price_max"] = _num(s.price_max)
        base = _unfiltered(st)

        def toggle(kind: str, value: str) -> str:
            chosen: list[str] = getattr(s, kind)
            if value in chosen:
                chosen.remove(value)
                return f"removed the {kind[:-1]} filter {value}"
            chosen.append(value)
            return f"filtered by {kind[:-1]} {value}"

        views: list[View] = [ui.app_bar(ctx, "Filters", actions=[
            ui.BarAction(icons.close, "Clear all filters", "clear_filters", lambda: self._clear(ctx), text="Clear")])]
        col = ui.Column(u(48), ctx.top + ctx.bar + u(10), ctx.w - u(48))
        items: list[View] = []
        groups = [
            ("Brand", "brands", "brand", sorted({p.brand for p in base} | set(s.brands))),
            ("Size", "sizes", "size", _sizes({z for p in base for z in p.sizes} | set(s.sizes))),
            ("Colour", "colors", "color", sorted({c for p in base for c in p.colors} | set(s.colors))),
        ]
        for title, kind, prefix, values in groups:
            if not values:
                continue
            items.append(ui.section(ctx, col, title))
            chosen = getattr(s, kind)
            items += ui.chips(ctx, col, [(v, f"{prefix}_{slug(v)}", v in chosen,
                                          partial(toggle, kind, v)) for v in values])
        items.append(ui.section(ctx, col, "Price"))
        half = (col.x2 - col.x1 - u(40)) // 2
        y = col.y
        for i, (key, hint) in enumerate((("price_min", "Min price"), ("price_max", "Max price"))):
            x = col.x1 + i * (half + u(40))
            f = ui.field(ctx, (x, y, x + half, y + u(140)), key, hint, accept=_price_chars,
                         submit=lambda: self._apply(ctx))
            items.append(f)
            cb = ui.clear_button(ctx, f, hint)
            if cb:
                items.append(cb)
        col.y = y + u(180)
        items.append(View((0, col.y + u(200), 1, col.y + u(202))))
        views.append(ui.scroll(ctx, (0, ctx.top + ctx.bar, ctx.w, ctx.bottom - u(200)), "filter_list", items))
        n = len(search_products(st, self._with_prices(ctx)))
        views.append(ui.button(ctx, (u(48), ctx.bottom - u(180), ctx.w - u(48), ctx.bottom - u(50)),
                               f"Apply ({n} result{'' if n == 1 else 's'})", "apply", lambda: self._apply(ctx)))
        return views

    def _with_prices(self, ctx: Ctx) -> ShopSearch:
        s = ctx.state.search.model_copy(deep=True)
        s.price_min = _parse_price(ctx.field("price_min"))
        s.price_max = _parse_price(ctx.field("price_max"))
        return s

    def _apply(self, ctx: Ctx) -> str:
        st: ShopState = ctx.state
        st.search = self._with_prices(ctx)
        ctx.pop()
        ctx.route.scroll.clear()
        n = len(search_products(st, st.search))
        return f"applied filters: {n} result{'' if n == 1 else 's'}"

    def _clear(self, ctx: Ctx) -> str:
        st: ShopState = ctx.state
        st.search = ShopSearch(query=st.search.query, sort=st.search.sort)
        ctx.route.fields["price_min"] = ""
        ctx.route.fields["price_max"] = ""
        return "cleared all filters"


def _num(v: float | None) -> str:
    if v is None:
        return ""
    return str(int(v)) if v == int(v) else str(v)


def _price_chars(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit() or ch == ".")


def _parse_price(s: str) -> float | None:
    try:
        return float(s) if s.strip() else None
    except ValueError:
        return None


def _sizes(values: set[str]) -> list[str]:
    order = ["XS", "S", "M", "L", "XL", "XXL"]
    return sorted(values, key=lambda v: (0, float(v), "") if v.replace(".", "").isdigit()
                  else (1, order.index(v) if v in order else 99, v))
