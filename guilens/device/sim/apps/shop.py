"""Shop: search, filters (brand, size, colour, price), sort and paged results; pages and cart in `shop_pages`.

The current search (query, filters, sort) is part of the app's state, so a task
like "filter for ASICS in size 10" is checked on `apps.shop.search`. The state
model is in `shop_state` (the catalogue stays out of it), matching in
`shop_search` (every word of a query must match). Results come a page at a
time: "Load more" at the end of the list, or scrolling on past the end, adds
the next page, and the list's footer says which page is shown.
"""

from __future__ import annotations

import re
from functools import partial

import guilens.device.sim.icons as icons
import guilens.device.sim.ui as ui
from guilens.device.sim.apps.shop_pages import ShopPages, paint_thumb, thumb
from guilens.device.sim.apps.shop_search import matches, refine
from guilens.device.sim.apps.shop_state import (
    SORTS,
    CartItem,
    CatalogueProduct,
    Order,
    Product,
    Review,
    ShopSearch,
    ShopState,
    SortKey,
    default_catalogue,
)
from guilens.device.sim.core import App, Ctx, Route
from guilens.device.sim.kit import Label, View

__all__ = ["SORTS", "CartItem", "CatalogueProduct", "Order", "Product", "Review", "Shop", "ShopSearch", "ShopState",
           "SortKey", "default_catalogue", "search_products", "slug"]

PAGE_SIZE = 10
"""Products per page of results: a page at a time, as shopping apps load them."""


def search_products(st: ShopState, s: ShopSearch) -> list[Product]:
    """The products on sale matching every word of the query, narrowed by the filters, then sorted."""
    return refine(matches(st.shelf(), s.query), s)


def _unfiltered(st: ShopState) -> list[Product]:
    return matches(st.shelf(), st.search.query)


def _pages(total: int) -> int:
    """Pages of `PAGE_SIZE` results for `total` found (one, when none are)."""
    return max(1, -(-total // PAGE_SIZE))


def _first_page(route: Route) -> None:
    """A new query, sort or filter shows its results from the top of their first page."""
    route.scroll.clear()
    route.params.pop("page", None)


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
            _first_page(ctx.route)
        else:
            # The query moves to the results page's box; the home page's box is empty again when one
            # comes back to it (as in shopping apps), so a new search there starts from nothing.
            ctx.route.fields["search_box"] = ""
            ctx.route.focus = None
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
        shelf = st.shelf()
        cats = list(dict.fromkeys(p.category for p in shelf if p.category))
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
        for i, p in enumerate(shelf[:6]):
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
        col.y += ((min(6, len(shelf)) + 1) // 2) * u(560)
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
        pages = _pages(len(found))
        page = min(pages, max(1, int(ctx.route.params.get("page", 1))))
        shown = found[:page * PAGE_SIZE]
        items: list[View] = [self.product_card(ctx, col.next(u(330), u(24)), p) for p in shown]
        if not found:
            items.append(ui.empty(ctx, col.next(u(300)), f"No results for “{s.query}”. Check the spelling, "
                                  "use fewer words or remove filters."))
        else:
            items.append(Label(col.next(u(70), u(10)), f"Page {page} of {pages} · {len(shown)} of {len(found)} shown",
                               u(34), t.sub, align="center", rid="results_page"))
            if page < pages:
                items.append(ui.button(ctx, col.next(u(120), u(20)), "Load more", "load_more",
                                       partial(self._more, ctx, len(found)), style="outline"))
        col.skip(u(40))
        items.append(View((0, col.y - 2, 1, col.y)))
        views.append(ui.scroll(ctx, (0, y + u(210), ctx.w, ctx.bottom), "results", items,
                               on_end=partial(self._more, ctx, len(found))))  # infinite scroll
        return views

    def _more(self, ctx: Ctx, total: int) -> str:
        """Show the next page of results below the ones on screen."""
        pages = _pages(total)
        page = int(ctx.route.params.get("page", 1))
        if page >= pages:
            return f"no more results: all {total} are shown"
        ctx.route.params["page"] = page + 1
        shown = min(total, (page + 1) * PAGE_SIZE)
        return f"loaded more results: page {page + 1} of {pages}, {shown} of {total} shown"

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
            _first_page(ctx.route)
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
        n = len(refine(base, self._with_prices(ctx)))  # `base` holds the query's matches already
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
        _first_page(ctx.route)
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
