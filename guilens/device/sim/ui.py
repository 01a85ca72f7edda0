"""Composite widgets every app builds its screens from: bars, rows, fields, dialogs, toasts.

They take the app's `Ctx`, so accent colours, dark mode and scale follow the
phone's settings without each app handling them, and resource-ids land under
the app's package.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import guilens.device.sim.icons as icons
from guilens.device.sim.core import Ctx
from guilens.device.sim.icons import Icon
from guilens.device.sim.kit import (
    Button,
    Canvas,
    Color,
    Field,
    Handler,
    Label,
    Rect,
    Scroll,
    Switch,
    View,
    line_height,
    mix,
    text_width,
    wrap,
)

AVATAR_COLORS: tuple[Color, ...] = (
    (239, 108, 0), (0, 137, 123), (94, 53, 177), (216, 27, 96), (30, 136, 229), (67, 160, 71),
    (109, 76, 65), (84, 110, 122),
)


@dataclass
class BarAction:
    icon: Icon
    desc: str
    rid: str
    handler: Handler
    text: str = ""


class Column:
    """Stacks rectangles downwards from `y`, between `x1` and `x2`."""

    def __init__(self, x1: int, y: int, x2: int) -> None:
        self.x1, self.y, self.x2 = x1, y, x2

    def next(self, h: int, gap: int = 0) -> Rect:
        r = (self.x1, self.y, self.x2, self.y + h)
        self.y += h + gap
        return r

    def skip(self, h: int) -> None:
        self.y += h


def editor_bar(ctx: Ctx, title: str, save: Handler, delete: Handler | None = None) -> View:
    """The bar of an add or edit screen: Save, and Delete once the record exists."""
    actions = [] if delete is None else [BarAction(icons.trash, "Delete", "delete", delete)]
    actions.append(BarAction(icons.check, "Save", "save", save, text="Save"))
    return app_bar(ctx, title, actions=actions)


def record_bar(ctx: Ctx, title: str, record_id: int | None, edit: Handler) -> View:
    """The bar of a record's own page: Delete (which asks first) and Edit."""
    return app_bar(ctx, title, actions=[
        BarAction(icons.trash, "Delete", "delete",
                  ctx.opener("confirm_delete", "asked to confirm the delete", id=record_id)),
        BarAction(icons.pencil, "Edit", "edit", edit),
    ])


def back_handler(ctx: Ctx) -> Handler:
    def go() -> str:
        note = ctx.app.leave(ctx)
        ctx.pop()
        return "went back" + (f" ({note})" if note else "")

    return go


def app_bar(ctx: Ctx, title: str, *, back: bool = True, actions: Sequence[BarAction] = (),
            subtitle: str = "", color: Color | None = None) -> View:
    t = ctx.theme
    fill = color or t.surface
    fg = t.on_accent if color else t.text
    u = ctx.u
    bar = View((0, ctx.top, ctx.w, ctx.top + ctx.bar), fill=fill, cls="android.view.ViewGroup", rid="toolbar")
    x = u(36)
    if back:
        bar.add(Button((u(16), ctx.top + u(21), u(142), ctx.top + u(147)), "", back_handler(ctx), desc="Navigate up",
                       rid="up", icon=icons.back, color=fg, cls="android.widget.ImageButton", size=u(60)))
        x = u(160)
    right = ctx.w - u(16)
    btns: list[View] = []
    for a in reversed(actions):
        if a.text:
            tw = u(40) + len(a.text) * u(24)
            r = (right - tw, ctx.top + u(30), right, ctx.top + u(138))
            btns.append(Button(r, a.text, a.handler, rid=a.rid, desc=a.desc, color=t.accent if not color else fg,
                               size=u(42)))
        else:
            r = (right - u(126), ctx.top + u(21), right, ctx.top + u(147))
            btns.append(Button(r, "", a.handler, rid=a.rid, desc=a.desc, icon=a.icon, color=fg, size=u(56),
                               cls="android.widget.ImageButton"))
        right = r[0] - u(4)
    if subtitle:
        bar.add(Label((x, ctx.top + u(22), right, ctx.top + u(100)), title, u(54), fg, rid="toolbar_title", bold=True))
        bar.add(Label((x, ctx.top + u(96), right, ctx.top + u(146)), subtitle, u(36), mix(fg, fill, 0.3),
                      rid="toolbar_subtitle"))
    else:
        bar.add(Label((x, ctx.top, right, ctx.top + ctx.bar), title, u(58), fg, rid="toolbar_title", bold=True))
    bar.add(*reversed(btns))
    return bar


def fab(ctx: Ctx, text: str, rid: str, handler: Handler, icon: Icon = icons.plus) -> View:
    u = ctx.u
    w = u(150) + len(text) * u(25)
    r = (ctx.w - u(48) - w, ctx.bottom - u(216), ctx.w - u(48), ctx.bottom - u(48))
    return Button(r, text, handler, rid=rid, desc=text, icon=icon, fill=ctx.theme.accent,
                  color=ctx.theme.on_accent, radius=u(48), size=u(44))


def field(ctx: Ctx, r: Rect, key: str, hint: str, *, submit: Handler | None = None, multiline: bool = False,
          accept: Callable[[str], str] | None = None, on_change: Callable[[], None] | None = None,
          size: int | None = None, name: str = "") -> Field:
    """A text field bound to the draft `key` of the current route; `name` (default: the hint) is what
    action descriptions call it."""
    route = ctx.route
    t = ctx.theme
    hint_text = hint
    hint = name or hint

    def focus() -> str:
        route.focus = key
        return f"focused {hint}"

    def type_(text: str) -> str:
        if accept is not None:
            text = accept(text)
            if not text:
                return f"{hint} does not take that text"
        if not multiline:
            text = text.replace("\n", " ")
        route.fields[key] = route.fields.get(key, "") + text
        if on_change is not None:
            on_change()
        return f"typed {text!r} into {hint}"

    return Field(r, key, route.fields.get(key, ""), hint_text, focused=route.focus == key, accent=t.accent,
                 on_focus=focus, on_type=type_, on_submit=submit, multiline=multiline, size=size or ctx.u(44),
                 fg=t.text, hint_color=t.sub, box=t.field, line=t.divider)


def clear_button(ctx: Ctx, field_view: Field, hint: str, on_change: Callable[[], None] | None = None) -> View | None:
    """An × inside a non-empty field that empties it (there is no delete key in the action space)."""
    if not field_view.value:
        return None
    route = ctx.route
    x1, y1, x2, y2 = field_view.bounds
    size = min(ctx.u(110), y2 - y1)
    r = (x2 - size - ctx.u(8), y1 + (min(y2 - y1, ctx.u(150)) - size) // 2, x2 - ctx.u(8),
         y1 + (min(y2 - y1, ctx.u(150)) + size) // 2)

    def clear() -> str:
        route.fields[field_view.key] = ""
        route.focus = field_view.key
        if on_change is not None:
            on_change()
        return f"cleared {hint}"

    return Button(r, "", clear, rid=f"{field_view.key}_clear", desc=f"Clear {hint}", icon=icons.close,
                  color=ctx.theme.sub, size=ctx.u(44), cls="android.widget.ImageButton")


def labeled_field(ctx: Ctx, col: Column, key: str, label: str, hint: str = "", *, height: int = 150,
                  multiline: bool = False, submit: Handler | None = None,
                  accept: Callable[[str], str] | None = None) -> list[View]:
    """A caption above a field with a clear button; the field's hint is `hint` or the label."""
    u = ctx.u
    cr = col.next(u(60))
    fr = col.next(u(height), u(24))
    f = field(ctx, fr, key, hint or label, multiline=multiline, submit=submit, accept=accept, name=label)
    # tapping the caption focuses the field (as a TextInputLayout does), so a tap "by its label" works
    cap = Label(cr, label, u(36), ctx.theme.sub, on_tap=f.on_tap, rid=f"{key}_label")
    out: list[View] = [cap, f]
    cb = clear_button(ctx, f, label)
    if cb is not None:
        out.append(cb)
    return out


def button(ctx: Ctx, r: Rect, text: str, rid: str, handler: Handler, style: str = "filled",
           icon: Icon | None = None) -> Button:
    t = ctx.theme
    u = ctx.u
    if style == "filled":
        return Button(r, text, handler, rid=rid, fill=t.accent, color=t.on_accent, radius=(r[3] - r[1]) // 2,
                      size=u(42), icon=icon)
    if style == "tonal":
        return Button(r, text, handler, rid=rid, fill=t.tint, color=mix(t.accent, t.text, 0.35),
                      radius=(r[3] - r[1]) // 2, size=u(42), icon=icon)
    if style == "outline":
        return Button(r, text, handler, rid=rid, fill=t.surface, outline=t.divider, color=t.accent,
                      radius=(r[3] - r[1]) // 2, size=u(42), icon=icon)
    return Button(r, text, handler, rid=rid, color=t.accent, size=u(42), icon=icon)


def chip(ctx: Ctx, r: Rect, text: str, rid: str, checked: bool, handler: Handler) -> Button:
    t = ctx.theme
    b = Button(r, text, handler, rid=rid, fill=t.tint if checked else t.surface,
               outline=t.accent if checked else t.divider, color=mix(t.accent, t.text, 0.3) if checked else t.text,
               radius=(r[3] - r[1]) // 2, size=ctx.u(38), icon=icons.check if checked else None,
               cls="android.widget.CheckBox", checkable=True, checked=checked)
    return b


def chip_width(ctx: Ctx, text: str, checked: bool = True) -> int:

    return text_width(text, ctx.u(38)) + ctx.u(80) + (ctx.u(60) if checked else 0)


def chips(ctx: Ctx, col: Column, items: Sequence[tuple[str, str, bool, Handler]], h: int = 110) -> list[View]:
    """A wrapping row of chips: (text, rid, checked, handler)."""
    u = ctx.u
    out: list[View] = []
    x, y = col.x1, col.y
    for text, rid, checked, handler in items:
        w = chip_width(ctx, text)
        if x + w > col.x2 and x > col.x1:
            x, y = col.x1, y + u(h) + u(20)
        out.append(chip(ctx, (x, y, x + w, y + u(h)), text, rid, checked, handler))
        x += w + u(20)
    col.y = y + u(h) + u(28) if items else col.y
    return out


def scroll(ctx: Ctx, r: Rect, key: str, children: list[View], fill: Color | None = None,
           on_end: Callable[[], str] | None = None) -> Scroll:
    route = ctx.route

    def on_scroll(new: int, moved: int) -> str:
        route.scroll[key] = new
        if moved == 0:
            return "already at the " + ("top" if new == 0 else "end")
        return "scrolled " + ("down" if moved > 0 else "up")

    return Scroll(r, key, route.scroll.get(key, 0), children, on_scroll=on_scroll, fill=fill, on_end=on_end)


def avatar(c: Canvas, r: Rect, name: str) -> None:
    color = AVATAR_COLORS[sum(map(ord, name)) % len(AVATAR_COLORS)]
    c.ellipse(r, color)
    initial = (name.strip()[:1] or "?").upper()

    size = (r[3] - r[1]) * 11 // 20
    c.text((r[0] + r[2] - text_width(initial, size)) // 2, (r[1] + r[3] - line_height(size)) // 2, initial, size,
           (255, 255, 255), color)


def row(ctx: Ctx, r: Rect, title: str, subtitle: str = "", *, rid: str = "", title_id: str = "",
        sub_id: str = "", on_tap: Handler | None = None, on_long: Handler | None = None,
        lead: Callable[[Canvas, Rect], None] | None = None, trailing: str = "", trailing_id: str = "",
        card: bool = True, sub_lines: int = 1, trailing_color: Color | None = None) -> View:
    """A list item: optional leading drawing, a title, a subtitle and a trailing text."""
    t = ctx.theme
    u = ctx.u
    x1, y1, x2, y2 = r
    v = View(r, rid=rid, on_tap=on_tap, on_long=on_long, fill=t.card if card else None, radius=u(36) if card else 0,
             cls="android.widget.LinearLayout")
    tx = x1 + u(40)
    if lead is not None:
        ls = min(u(110), y2 - y1 - u(40))
        lr = (x1 + u(32), (y1 + y2 - ls) // 2, x1 + u(32) + ls, (y1 + y2 + ls) // 2)
        v.add(View(lr, cls="android.widget.ImageView", paint=lambda c, _v: lead(c, lr)))
        tx = lr[2] + u(32)
    right = x2 - u(40)
    if trailing:

        tw = text_width(trailing, u(40)) + u(8)
        v.add(Label((right - tw, y1, right, y2), trailing, u(40), trailing_color or t.sub, rid=trailing_id,
                    align="right"))
        right -= tw + u(24)
    if subtitle:
        th = u(64)
        sh = u(50) * sub_lines
        top = y1 + (y2 - y1 - th - sh) // 2
        v.add(Label((tx, top, right, top + th), title, u(46), t.text, rid=title_id, bold=True))
        v.add(Label((tx, top + th, right, top + th + sh), subtitle, u(38), t.sub, rid=sub_id,
                    max_lines=sub_lines, valign="top"))
    else:
        v.add(Label((tx, y1, right, y2), title, u(46), t.text, rid=title_id))
    return v


def section(ctx: Ctx, col: Column, text: str) -> Label:
    return Label(col.next(ctx.u(84)), text, ctx.u(38), ctx.theme.accent, bold=True)


def empty(ctx: Ctx, r: Rect, text: str) -> View:
    return Label(r, text, ctx.u(42), ctx.theme.sub, align="center", max_lines=3)


def switch_row(ctx: Ctx, r: Rect, title: str, subtitle: str, rid: str, checked: bool, handler: Handler,
               icon: Icon | None = None) -> View:
    t = ctx.theme
    u = ctx.u
    v = row(ctx, r, title, subtitle, rid=rid, on_tap=handler, title_id=f"{rid}_title",
            lead=(lambda c, lr: icon(c, lr, t.accent)) if icon else None)
    x2 = r[2] - u(40)
    cy = (r[1] + r[3]) // 2
    v.add(Switch((x2 - u(130), cy - u(40), x2, cy + u(40)), checked, t.accent, rid=f"{rid}_switch",
                 desc=title, off=t.divider))
    # keep the labels clear of the switch
    for ch in v.children:
        if isinstance(ch, Label):
            ch.bounds = (ch.bounds[0], ch.bounds[1], min(ch.bounds[2], x2 - u(160)), ch.bounds[3])
            ch.clip = ch.bounds
    return v


def dialog(ctx: Ctx, title: str, message: str, buttons: Sequence[tuple[str, str, Handler]], *,
           dismiss: Handler | None = None, body: Callable[[Column], list[View]] | None = None) -> View:
    """A modal alert: scrim, card, title, message, buttons on the right. Taps outside call `dismiss`."""
    t = ctx.theme
    u = ctx.u
    scrim = View((0, 0, ctx.w, ctx.h), on_tap=dismiss, blocks=True, cls="android.widget.FrameLayout",
                 paint=_scrim, rid="touch_outside" if dismiss else "", desc="Dismiss" if dismiss else "")

    x1, x2 = u(80), ctx.w - u(80)
    lines = len(wrap(message, u(42), x2 - x1 - u(128))) if message else 0
    extra_h = 0
    extra: list[View] = []
    if body is not None:
        probe = Column(x1 + u(64), 0, x2 - u(64))
        extra = body(probe)
        extra_h = probe.y
    h = u(130) + u(90) + lines * line_height(u(42)) + extra_h + u(200)
    y1 = (ctx.h - h) // 2
    card = View((x1, y1, x2, y1 + h), fill=t.surface, radius=u(56), blocks=True, cls="android.widget.LinearLayout",
                rid="dialog")
    col = Column(x1 + u(64), y1 + u(64), x2 - u(64))
    card.add(Label(col.next(u(90), u(20)), title, u(54), t.text, rid="alertTitle", bold=True))
    if message:
        card.add(Label(col.next(lines * line_height(u(42)), u(30)), message, u(42), t.sub, rid="message",
                       max_lines=lines, valign="top"))
    for v in extra:
        v.translate(0, col.y)
        card.add(v)
    right = x2 - u(48)
    by = y1 + h - u(150)
    for text, rid, handler in reversed(buttons):

        bw = text_width(text, u(42)) + u(80)
        card.add(Button((right - bw, by, right, by + u(110)), text, handler, rid=rid, color=t.accent, size=u(42)))
        right -= bw + u(12)
    scrim.add(card)
    return scrim


def menu(ctx: Ctx, title: str, items: Sequence[tuple[str, str, Handler]], selected: str | None = None) -> View:
    """A context menu (long-press) or a choice list: one row per item; a tap outside closes it.

    `selected` is the rid of the chosen item in a choice list; it is drawn with a check and marked
    selected/checked in the tree.
    """
    t = ctx.theme
    u = ctx.u

    def dismiss() -> str:
        ctx.close_dialog()
        return "closed the menu"

    scrim = View((0, 0, ctx.w, ctx.h), on_tap=dismiss, cls="android.widget.FrameLayout", paint=_scrim,
                 rid="touch_outside", desc="Dismiss")
    h = u(120) + len(items) * u(140) + u(30)
    x1, x2 = u(120), ctx.w - u(120)
    y1 = (ctx.h - h) // 2
    card = View((x1, y1, x2, y1 + h), fill=t.surface, radius=u(40), blocks=True, cls="android.widget.ListView",
                rid="menu")
    card.add(Label((x1 + u(56), y1 + u(24), x2 - u(56), y1 + u(120)), title, u(40), t.sub, rid="menu_title"))
    y = y1 + u(120)
    for text, rid, handler in items:
        on = rid == selected
        b = Button((x1 + u(16), y, x2 - u(16), y + u(140)), text, handler, rid=rid, color=t.accent if on else t.text,
                   size=u(46), cls="android.widget.CheckedTextView" if selected is not None else "android.widget.TextView",
                   align="left", icon=icons.check if on else None, fill=t.tint if on else None, radius=u(30),
                   checkable=selected is not None, checked=on, selected=on)
        card.add(b)
        y += u(140)
    scrim.add(card)
    return scrim


def _scrim(c: Canvas, v: View) -> None:
    # A flat dim instead of alpha blending: cheap and identical on every run.
    c.dim(v.bounds, 45)


def toast(ctx: Ctx, text: str) -> View:

    u = ctx.u
    tw = min(ctx.w - u(160), text_width(text, u(40)) + u(96))
    r = ((ctx.w - tw) // 2, ctx.bottom - u(330), (ctx.w + tw) // 2, ctx.bottom - u(210))
    v = View(r, fill=(50, 50, 56), radius=u(60), cls="android.widget.Toast", pkg="com.android.systemui")
    v.add(Label((r[0] + u(40), r[1], r[2] - u(40), r[3]), text, u(40), (240, 240, 240), align="center",
                rid="toast_text"))
    return v


def money(v: float, sign: str = "$") -> str:
    neg = v < 0
    s = f"{sign}{abs(v):,.2f}"
    return f"-{s}" if neg else s
