"""Shop pages after the search: the product page (price, rating, specs, reviews), the cart, checkout."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import guilens.device.sim.icons as icons
import guilens.device.sim.ui as ui
from guilens.device.sim.apps.shop_state import CartItem, Order, Product, ShopState
from guilens.device.sim.core import Ctx
from guilens.device.sim.kit import Canvas, Label, View, mix

_CAT_ICON = {"Shoes": icons.walk, "Electronics": icons.grid, "Home": icons.pin, "Clothing": icons.person,
             "Bags": icons.bag, "Kitchen": icons.clock, "Books": icons.note, "Toys": icons.star, "Sports": icons.bus,
             "Beauty": icons.sun, "Grocery": icons.cart}
_SWATCH = {"black": (40, 40, 44), "white": (236, 236, 236), "blue": (40, 100, 200), "red": (200, 50, 50),
           "green": (60, 140, 80), "grey": (140, 140, 150), "brown": (120, 80, 50), "pink": (230, 130, 170),
           "silver": (190, 190, 200), "navy": (30, 40, 90), "tan": (200, 160, 110), "beige": (220, 200, 170)}


def swatch(name: str) -> tuple[int, int, int]:
    key = name.lower().split()[-1] if name else ""
    if key in _SWATCH:
        return _SWATCH[key]
    h = sum(map(ord, name))
    return (80 + h * 37 % 150, 80 + h * 53 % 150, 80 + h * 71 % 150)


def thumb(c: Canvas, r: tuple[int, int, int, int], p: Product) -> None:
    """A product picture: a tinted tile in the product's first colour with its category's icon."""
    base = swatch(p.colors[0]) if p.colors else (150, 150, 160)
    c.rect(r, mix(base, (255, 255, 255), 0.8), radius=(r[2] - r[0]) // 8, bg=c.bg)
    x1, y1, x2, y2 = r
    s = min(x2 - x1, y2 - y1) * 6 // 10
    cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
    _CAT_ICON.get(p.category, icons.bag)(c, (cx - s // 2, cy - s // 2, cx + s // 2, cy + s // 2), base)


def paint_thumb(c: Canvas, v: View, p: Product) -> None:
    """`thumb` filling a view, for its `paint`."""
    thumb(c, v.bounds, p)


def stars(c: Canvas, x: int, y: int, size: int, rating: float, col: tuple[int, int, int],
          off: tuple[int, int, int]) -> None:
    for i in range(5):
        filled = rating >= i + 0.75
        half = i + 0.25 <= rating < i + 0.75
        r = (x + i * size, y, x + (i + 1) * size, y + size)
        icons.star(c, r, col if filled else (mix(col, off, 0.5) if half else off))


def _paint_stars(c: Canvas, v: View, size: int, rating: float, bg: tuple[int, int, int]) -> None:
    stars(c, v.bounds[0], v.bounds[1], size, rating, (255, 179, 0), bg)


class ShopPages:
    """Mixed into `Shop`."""

    if TYPE_CHECKING:
        def _bar_actions(self, ctx: Ctx) -> list[ui.BarAction]:
            """`Shop`'s app-bar actions (search, cart), declared here for the type checker only."""
            ...

    def open_product(self, ctx: Ctx, pid: str) -> str:
        p = ctx.state.product(pid)
        ctx.push("product", {"id": pid, "size": "", "color": p.colors[0] if p and p.colors else ""})
        return f"opened {p.name if p else pid}"

    def screen_product(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        st: ShopState = ctx.state
        params = ctx.route.params
        p = st.product(params["id"])
        views: list[View] = [ui.app_bar(ctx, p.brand if p else "Product", actions=self._bar_actions(ctx))]
        if p is None:
            return [*views, ui.empty(ctx, (0, ctx.h // 3, ctx.w, ctx.h // 2), "This product is gone")]
        col = ui.Column(u(48), ctx.top + ctx.bar + u(20), ctx.w - u(48))
        items: list[View] = [View(col.next(u(640), u(30)), cls="android.widget.ImageView", desc=f"Photo of {p.name}",
                                  paint=lambda c, v: thumb(c, v.bounds, p))]
        items.append(Label(col.next(u(150), u(8)), p.name, u(54), t.text, rid="product_title", max_lines=2,
                           valign="top", bold=True))
        items.append(Label(col.next(u(60), u(16)), f"by {p.brand}", u(38), t.sub, rid="product_brand"))
        rr = col.next(u(70), u(20))
        items.append(View((rr[0], rr[1], rr[0] + u(330), rr[3]), cls="android.widget.RatingBar",
                          desc=f"Rated {p.rating:.1f} out of 5",
                          paint=lambda c, v: stars(c, v.bounds[0], v.bounds[1] + u(4), u(60), p.rating,
                                                   (255, 179, 0), t.divider)))
        items.append(Label((rr[0] + u(350), rr[1], rr[2], rr[3]), f"{p.rating:.1f} · {p.review_count:,} reviews",
                           u(38), t.sub, rid="product_rating"))
        items.append(Label(col.next(u(110), u(4)), ui.money(p.price), u(80), t.text, rid="product_price", bold=True))
        items.append(Label(col.next(u(60), u(24)), "In stock" if p.in_stock else "Out of stock", u(38),
                           (46, 125, 50) if p.in_stock else (198, 40, 40), rid="stock"))
        for title, kind, values in (("Size", "size", p.sizes), ("Colour", "color", p.colors)):
            if not values:
                continue
            chosen = params.get(kind, "")
            items.append(ui.section(ctx, col, f"{title}: {chosen}" if chosen else f"{title}: choose one"))

            def pick(kind: str = kind, v: str = "") -> str:
                params[kind] = v
                return f"chose {kind} {v}"

            from guilens.device.sim.apps.shop import slug

            items += ui.chips(ctx, col, [(v, f"option_{kind}_{slug(v)}", v == chosen,
                                          partial(pick, kind, v)) for v in values])
        items.append(ui.button(ctx, col.next(u(140), u(40)), "Add to cart", "add_to_cart",
                               lambda: self._add(ctx, p), icon=icons.cart))
        if p.description:
            items.append(Label(col.next(u(120), u(20)), p.description, u(40), t.text, rid="product_description",
                               max_lines=2, valign="top"))
        if p.specs:
            items.append(ui.section(ctx, col, "Specifications"))
            for k, v in p.specs.items():
                r = col.next(u(100))
                row = View(r, cls="android.widget.LinearLayout", rid="spec")
                row.add(Label((r[0], r[1], r[0] + (r[2] - r[0]) * 4 // 10, r[3]), k, u(40), t.sub, rid="spec_name"))
                row.add(Label((r[0] + (r[2] - r[0]) * 4 // 10, r[1], r[2], r[3]), v, u(40), t.text, rid="spec_value"))
                items.append(row)
            col.skip(u(20))
        items.append(ui.section(ctx, col, f"Reviews ({p.review_count:,})"))
        for rv in p.reviews:
            r = col.next(u(260), u(20))
            card = View(r, fill=t.card, radius=u(32), rid="review", cls="android.widget.LinearLayout")
            card.add(Label((r[0] + u(36), r[1] + u(24), r[2] - u(360), r[1] + u(90)), rv.author, u(40), t.text,
                           rid="review_author", bold=True))
            card.add(View((r[2] - u(330), r[1] + u(34), r[2] - u(36), r[1] + u(84)), cls="android.widget.RatingBar",
                          desc=f"{rv.rating} stars", rid="review_rating",
                          paint=partial(_paint_stars, size=u(50), rating=rv.rating, bg=t.divider)))
            card.add(Label((r[0] + u(36), r[1] + u(100), r[2] - u(36), r[3] - u(20)), rv.text, u(38), t.sub,
                           rid="review_text", max_lines=3, valign="top"))
            items.append(card)
        col.skip(u(60))
        items.append(View((0, col.y - 2, 1, col.y)))
        views.append(ui.scroll(ctx, (0, ctx.top + ctx.bar, ctx.w, ctx.bottom), "product_page", items))
        return views

    def _add(self, ctx: Ctx, p: Product) -> str:
        params = ctx.route.params
        if p.sizes and not params.get("size"):
            ctx.toast("Choose a size first")
            return "not added: choose a size first"
        st: ShopState = ctx.state
        size, color = params.get("size", ""), params.get("color", "")
        for item in st.cart:
            if item.product_id == p.id and item.size == size and item.color == color:
                item.quantity += 1
                break
        else:
            st.cart.append(CartItem(product_id=p.id, size=size, color=color))
        ctx.toast("Added to cart")
        return f"added {p.name} to the cart"

    def screen_cart(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        st: ShopState = ctx.state
        views: list[View] = [ui.app_bar(ctx, "Cart")]
        col = ui.Column(u(40), ctx.top + ctx.bar + u(20), ctx.w - u(40))
        items: list[View] = []
        for i, item in enumerate(st.cart):
            p = st.product(item.product_id)
            if p is None:
                continue
            r = col.next(u(330), u(24))
            card = View(r, fill=t.card, radius=u(36), rid="cart_item", cls="android.widget.LinearLayout")
            card.add(View((r[0] + u(24), r[1] + u(24), r[0] + u(244), r[1] + u(244)), cls="android.widget.ImageView",
                          paint=partial(paint_thumb, p=p)))
            tx = r[0] + u(270)
            opts = " · ".join(x for x in (f"Size {item.size}" if item.size else "", item.color) if x)
            card.add(Label((tx, r[1] + u(24), r[2] - u(30), r[1] + u(134)), p.name, u(38), t.text, rid="cart_name",
                           max_lines=2, valign="top", bold=True))
            card.add(Label((tx, r[1] + u(134), r[2] - u(30), r[1] + u(184)), opts, u(34), t.sub, rid="cart_options"))
            card.add(Label((tx, r[1] + u(190), tx + u(300), r[1] + u(260)), ui.money(p.price * item.quantity), u(46),
                           t.text, rid="cart_price", bold=True))
            qy = r[3] - u(120)
            qx = r[2] - u(390)
            card.add(ui.button(ctx, (qx, qy, qx + u(100), qy + u(100)), "", "decrease",
                               partial(self._qty, ctx, i, -1), style="outline", icon=icons.minus))
            card.add(Label((qx + u(100), qy, qx + u(190), qy + u(100)), str(item.quantity), u(44), t.text,
                           align="center", rid="quantity"))
            card.add(ui.button(ctx, (qx + u(190), qy, qx + u(290), qy + u(100)), "", "increase",
                               partial(self._qty, ctx, i, 1), style="outline", icon=icons.plus))
            card.add(ui.button(ctx, (qx + u(300), qy, qx + u(380), qy + u(100)), "", "remove",
                               partial(self._qty, ctx, i, -10**6), style="text", icon=icons.trash))
            for ch in card.children[-4:]:
                ch.desc = {"decrease": "Decrease quantity", "increase": "Increase quantity",
                           "remove": f"Remove {p.name}"}.get(ch.rid, ch.desc)
            items.append(card)
        if not st.cart:
            items.append(ui.empty(ctx, col.next(u(300)), "Your cart is empty"))
        views.append(ui.scroll(ctx, (0, ctx.top + ctx.bar, ctx.w, ctx.bottom - u(260)), "cart_list", items))
        total = cart_total(st)
        bar = View((0, ctx.bottom - u(260), ctx.w, ctx.bottom), fill=t.surface)
        bar.add(Label((u(48), ctx.bottom - u(250), ctx.w // 2, ctx.bottom - u(170)), "Subtotal", u(40), t.sub))
        bar.add(Label((ctx.w // 2, ctx.bottom - u(250), ctx.w - u(48), ctx.bottom - u(170)), ui.money(total), u(50),
                      t.text, align="right", rid="cart_total", bold=True))
        views.append(bar)
        if st.cart:
            views.append(ui.button(ctx, (u(48), ctx.bottom - u(160), ctx.w - u(48), ctx.bottom - u(30)), "Checkout",
                                   "checkout", ctx.opener("checkout", "asked to confirm the order")))
        return views

    def _qty(self, ctx: Ctx, i: int, delta: int) -> str:
        st: ShopState = ctx.state
        item = st.cart[i]
        item.quantity += delta
        if item.quantity < 1:
            st.cart.pop(i)
            return "removed the item from the cart"
        return f"quantity is now {item.quantity}"

    def dialog_checkout(self, ctx: Ctx, spec: dict[str, Any]) -> View | None:
        st: ShopState = ctx.state
        total = cart_total(st)

        def place() -> str:
            order = Order(id=len(st.orders) + 1, items=[i.model_copy() for i in st.cart], total=total,
                          placed=ctx.now)
            st.orders.append(order)
            st.cart.clear()
            ctx.close_dialog()
            ctx.replace("order", {"id": order.id})
            return f"placed order #{order.id} for {ui.money(total)}"

        def cancel() -> str:
            ctx.close_dialog()
            return "did not place the order"

        n = sum(i.quantity for i in st.cart)
        return ui.dialog(ctx, "Place order?", f"{n} item{'s' if n != 1 else ''}, total {ui.money(total)}.",
                         [("Cancel", "button2", cancel), ("Place order", "button1", place)], dismiss=cancel)

    def screen_order(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        st: ShopState = ctx.state
        order = next((o for o in st.orders if o.id == ctx.route.params["id"]), None)
        views: list[View] = [ui.app_bar(ctx, "Order placed")]
        y = ctx.top + ctx.bar + u(120)
        views.append(View((ctx.w // 2 - u(120), y, ctx.w // 2 + u(120), y + u(240)), cls="android.widget.ImageView",
                          paint=icons.disc(icons.check, t.accent, t.on_accent)))
        views.append(Label((0, y + u(290), ctx.w, y + u(380)), "Thank you for your order!", u(56), t.text,
                           align="center", bold=True))
        if order is not None:
            views.append(Label((0, y + u(400), ctx.w, y + u(470)), f"Order #{order.id}", u(42), t.sub,
                               align="center", rid="order_number"))
            views.append(Label((0, y + u(480), ctx.w, y + u(580)), f"Total {ui.money(order.total)}", u(60), t.text,
                               align="center", rid="order_total", bold=True))
        views.append(ui.button(ctx, (u(200), y + u(680), ctx.w - u(200), y + u(810)), "Continue shopping",
                               "continue_shopping", lambda: self._home(ctx)))
        return views

    def _home(self, ctx: Ctx) -> str:
        ctx.stack[1:] = []
        return "back to the shop's home"


def cart_total(st: ShopState) -> float:
    total = 0.0
    for item in st.cart:
        p = st.product(item.product_id)
        if p is not None:
            total += p.price * item.quantity
    return round(total, 2)
