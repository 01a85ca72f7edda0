"""The widget kit: views that draw themselves and emit their own UI-tree node.

A screen is a tree of `View`s with absolute bounds. The same object paints the
pixels and writes the uiautomator node, so what an agent reads in the tree is
exactly what it sees in the picture, and the hit test that decides what a tap
lands on walks that same tree. Pixels go through `paint.Canvas`.
"""

from __future__ import annotations

from collections.abc import Callable

from PIL import Image

from guilens.band_history import BandHistory
from guilens.device.sim.paint import (
    Canvas,
    Color,
    Rect,
    ellipsize,
    font,
    line_height,
    mix,
    text_width,
    wrap,
)
from guilens.device.uitree import UINode

__all__ = [
    "Button", "Canvas", "Color", "Field", "Handler", "Label", "Rect", "Scroll", "SeekBar", "Switch", "View",
    "ellipsize", "font", "hit", "line_height", "mix", "render", "scroll_at", "text_width", "wrap",
]

Handler = Callable[[], str]


class View:
    """A node of a screen: bounds, flags for the tree, handlers for taps, and how to paint itself."""

    cls = "android.view.View"

    def __init__(self, bounds: Rect, *, rid: str = "", text: str = "", desc: str = "",
                 on_tap: Handler | None = None, on_long: Handler | None = None,
                 fill: Color | None = None, radius: int = 0, outline: Color | None = None,
                 children: list[View] | None = None, cls: str | None = None, pkg: str | None = None,
                 checkable: bool = False, checked: bool = False, selected: bool = False,
                 blocks: bool = False, paint: Callable[[Canvas, View], object] | None = None,
                 see_through: bool = False) -> None:
        self.bounds = bounds
        self.clip = bounds
        self.rid = rid
        self.text = text
        self.desc = desc
        self.on_tap = on_tap
        self.on_long = on_long
        self.fill = fill
        self.radius = radius
        self.outline = outline
        self.children: list[View] = children or []
        if cls:
            self.cls = cls
        self.pkg = pkg
        self.checkable = checkable
        self.checked = checked
        self.selected = selected
        self.blocks = blocks  # swallows taps without being clickable (dialog cards over a scrim)
        self.paint = paint
        self.in_tree = True  # False for content under a modal dialog: drawn, dimmed, not in the dump
        # children of a view painted with a picture (or left transparent over one) cannot use solid tiles
        self.see_through = see_through or (paint is not None and fill is None)

    # --- geometry -----------------------------------------------------------------------------
    def add(self, *views: View) -> View:
        self.children.extend(views)
        return self

    def translate(self, dx: int, dy: int) -> None:
        x1, y1, x2, y2 = self.bounds
        self.bounds = (x1 + dx, y1 + dy, x2 + dx, y2 + dy)
        self.clip = self.bounds
        for c in self.children:
            c.translate(dx, dy)

    def clip_to(self, r: Rect) -> bool:
        """Clip to `r`; False when nothing is left (the view is scrolled out)."""
        x1, y1, x2, y2 = self.clip
        c = (max(x1, r[0]), max(y1, r[1]), min(x2, r[2]), min(y2, r[3]))
        if c[2] <= c[0] or c[3] <= c[1]:
            return False
        self.clip = c
        self.children = [ch for ch in self.children if ch.clip_to(c)]
        return True

    def walk(self) -> list[View]:
        out = [self]
        for c in self.children:
            out.extend(c.walk())
        return out

    # --- behaviour ----------------------------------------------------------------------------
    @property
    def label(self) -> str:
        if self.text or self.desc:
            return self.text or self.desc
        for c in self.children:
            if c.label:
                return c.label
        return self.rid

    def tap(self, x: int, y: int) -> str:
        if self.on_tap is not None:
            return self.on_tap()
        return "nothing there"

    # --- output -------------------------------------------------------------------------------
    def draw(self, c: Canvas, bg: Color | None) -> None:
        if self.fill is not None or self.outline is not None:
            c.rect(self.bounds, self.fill, self.outline, radius=self.radius, bg=bg)
        inner = self.fill if self.fill is not None else (None if self.see_through else bg)
        if self.paint is not None:
            c.bg = inner if self.fill is not None else bg
            self.paint(c, self)
        self.content(c, inner)
        for ch in self.children:
            ch.draw(c, inner)

    def content(self, c: Canvas, bg: Color | None) -> None:
        """What the view paints over its background, under its children."""

    def node(self, pkg: str) -> UINode:
        pkg = self.pkg or pkg
        n = UINode(
            text=self.text, resource_id=f"{pkg}:id/{self.rid}" if self.rid else "", cls=self.cls,
            package=pkg, content_desc=self.desc, bounds=self.clip,
            clickable=self.on_tap is not None, long_clickable=self.on_long is not None,
            checkable=self.checkable, checked=self.checked, selected=self.selected,
            focusable=self.on_tap is not None,
        )
        n.children = [ch.node(pkg) for ch in self.children if ch.in_tree]
        for ch in n.children:
            ch.parent = n
        return n


class Label(View):
    cls = "android.widget.TextView"

    def __init__(self, bounds: Rect, text: str, size: int, color: Color, *, align: str = "left",
                 valign: str = "center", max_lines: int = 1, bold: bool = False, **kw: object) -> None:
        super().__init__(bounds, text=text, **kw)  # type: ignore[arg-type]
        self.size = size
        self.color = color
        self.align = align
        self.valign = valign
        self.max_lines = max_lines
        self.bold = bold

    def content(self, c: Canvas, bg: Color | None) -> None:
        x1, y1, x2, y2 = self.bounds
        lh = line_height(self.size)
        max_lines = self.max_lines or max(1, (y2 - y1) // lh)
        lines = wrap(self.text, self.size, max(1, x2 - x1), max_lines)
        total = lh * len(lines)
        y = y1 + max(0, (y2 - y1 - total) // 2) if self.valign == "center" else y1
        top, bottom = self.clip[1], self.clip[3]
        for ln in lines:
            if y + lh > top and y < bottom:
                w = text_width(ln, self.size)
                x = x1 if self.align == "left" else (x2 - w if self.align == "right" else (x1 + x2 - w) // 2)
                c.text(x, y, ln, self.size, self.color, bg, self.bold)
            y += lh


class Button(View):
    """A tappable pill or text button; its text is both drawn and the node's text."""

    cls = "android.widget.Button"

    def __init__(self, bounds: Rect, text: str, on_tap: Handler | None, *, size: int = 42,
                 color: Color = (255, 255, 255), icon: Callable[[Canvas, Rect, Color], None] | None = None,
                 align: str = "center", icon_only: bool = False, **kw: object) -> None:
        super().__init__(bounds, text=text, on_tap=on_tap, **kw)  # type: ignore[arg-type]
        self.size = size
        self.color = color
        self.icon = icon
        self.align = align
        self.icon_only = icon_only  # the text is for the tree only (an "×" drawn as two strokes)

    def content(self, c: Canvas, bg: Color | None) -> None:
        x1, y1, x2, y2 = self.bounds
        lh = line_height(self.size)
        tw = text_width(self.text, self.size) if self.text and not self.icon_only else 0
        isz = int(self.size * 1.1) if self.icon else 0
        gap = self.size // 3 if (self.icon and tw) else 0
        total = isz + gap + tw
        x = (x1 + x2 - total) // 2 if self.align == "center" else x1 + self.size
        if self.icon:
            iy = (y1 + y2 - isz) // 2
            self.icon(c, (x, iy, x + isz, iy + isz), self.color)
        if tw:
            c.text(x + isz + gap, (y1 + y2 - lh) // 2, self.text, self.size, self.color, bg, bold=True)


class Field(View):
    """A text field. Tapping focuses it; `type` appends to its draft; `enter` submits it."""

    cls = "android.widget.EditText"

    def __init__(self, bounds: Rect, key: str, value: str, hint: str, *, focused: bool, accent: Color,
                 on_focus: Handler, on_type: Callable[[str], str], on_submit: Handler | None = None,
                 multiline: bool = False, size: int = 44, fg: Color = (30, 30, 30),
                 hint_color: Color = (140, 140, 140), box: Color = (246, 246, 246),
                 line: Color = (200, 200, 200), **kw: object) -> None:
        super().__init__(bounds, rid=key, text=value or hint, on_tap=on_focus, **kw)  # type: ignore[arg-type]
        self.key = key
        self.value = value
        self.hint = hint
        self.focused = focused
        self.accent = accent
        self.on_type = on_type
        self.on_submit = on_submit
        self.multiline = multiline
        self.size = size
        self.fg = fg
        self.hint_color = hint_color
        self.box = box
        self.line = line

    def draw(self, c: Canvas, bg: Color | None) -> None:
        x1, y1, x2, y2 = self.bounds
        c.rect(self.bounds, self.box, self.accent if self.focused else self.line,
               width=4 if self.focused else 2, radius=24, bg=bg)
        pad = self.size // 2
        width = max(1, x2 - x1 - 2 * pad)
        lh = line_height(self.size)
        if self.multiline:
            max_lines = max(1, (y2 - y1 - pad) // lh)
            lines = list(wrap(self.value or self.hint, self.size, width))
            if len(lines) > max_lines:  # keep the end in view while typing, as a real editor scrolls
                lines = lines[-max_lines:] if self.focused else lines[:max_lines]
            y = y1 + pad // 2
        else:
            s = self.value or self.hint
            if text_width(s, self.size) > width:
                s = ("…" + s[-60:]) if self.focused else s
                while text_width(s, self.size) > width and len(s) > 2:
                    s = ("…" + s[2:]) if self.focused else s[:-2] + "…"
            lines = [s]
            y = (y1 + y2 - lh) // 2
        color = self.fg if self.value else self.hint_color
        last_x = x1 + pad
        for ln in lines:
            c.text(x1 + pad, y, ln, self.size, color, self.box)
            last_x = x1 + pad + (text_width(ln, self.size) if self.value else 0)
            y += lh
        if self.focused:
            cy = y - lh
            c.rect((last_x + 2, cy + lh // 8, last_x + 6, cy + lh - lh // 8), self.accent)

    def node(self, pkg: str) -> UINode:
        n = super().node(pkg)
        n.focused = self.focused
        n.focusable = True
        n.editable = True
        return n


class Switch(View):
    cls = "android.widget.Switch"

    def __init__(self, bounds: Rect, checked: bool, accent: Color, off: Color = (190, 190, 190), **kw: object):
        super().__init__(bounds, checkable=True, checked=checked, **kw)  # type: ignore[arg-type]
        self.accent = accent
        self.off = off
        self.text = "ON" if checked else "OFF"

    def content(self, c: Canvas, bg: Color | None) -> None:
        x1, y1, x2, y2 = self.bounds
        h = y2 - y1
        track = mix(self.accent, (255, 255, 255), 0.45) if self.checked else self.off
        c.rect((x1, y1 + h // 5, x2, y2 - h // 5), track, radius=(h - 2 * (h // 5)) // 2, bg=bg)
        d = h - h // 8
        kx = x2 - d if self.checked else x1
        c.ellipse((kx, y1 + h // 16, kx + d, y1 + h // 16 + d), self.accent if self.checked else (250, 250, 250),
                  outline=None if self.checked else (170, 170, 170))


class Scroll(View):
    """A scrolling viewport: children are laid out in content coordinates, then shifted by the offset.

    Children scrolled fully out of view are dropped from both the picture and the tree (as a
    RecyclerView recycles them); half-visible ones are clipped, and their node bounds are the
    visible part, as uiautomator reports them.
    """

    cls = "android.widget.ScrollView"

    def __init__(self, bounds: Rect, key: str, offset: int, children: list[View], *,
                 on_scroll: Callable[[int, int], str], fill: Color | None = None,
                 on_end: Callable[[], str] | None = None, **kw: object) -> None:
        """`on_end`: what scrolling on past the end does (a results list loads its next page, as
        infinite scroll does); None: nothing, the list stays at its end."""
        super().__init__(bounds, rid=key, fill=fill, **kw)  # type: ignore[arg-type]
        top = bounds[1]
        bottom = max([ch.bounds[3] for ch in children], default=top)
        self.content_height = bottom - top
        self.max_offset = max(0, self.content_height - (bounds[3] - bounds[1]) + 24)
        self.offset = max(0, min(offset, self.max_offset))
        self.key = key
        self.on_scroll = on_scroll
        self.on_end = on_end
        for ch in children:
            if self.offset:
                ch.translate(0, -self.offset)
        self.children = [ch for ch in children if ch.clip_to(bounds)]

    @property
    def scrollable(self) -> bool:
        return self.max_offset > 0

    def scroll_by(self, dy: int) -> str:
        if dy > 0 and self.on_end is not None and self.offset >= self.max_offset:
            return self.on_end()
        new = max(0, min(self.offset + dy, self.max_offset))
        return self.on_scroll(new, new - self.offset)

    def draw(self, c: Canvas, bg: Color | None) -> None:
        if self.fill is not None:
            c.rect(self.bounds, self.fill)
        inner = self.fill if self.fill is not None else bg
        x1, y1, x2, y2 = self.bounds
        for ch in self.children:
            cy1, cy2 = ch.bounds[1], ch.bounds[3]
            if cy1 >= y1 and cy2 <= y2:
                ch.draw(c, inner)
                continue
            # half-visible: draw into a strip so nothing spills over the bars around the list
            band = (x1, max(y1, cy1), x2, min(y2, cy2))
            strip = c.strip(band)
            ch.draw(strip, inner)
            c.put_back(strip)
        if self.max_offset > 0:  # scrollbar
            vh = y2 - y1
            th = max(60, vh * vh // max(vh, self.content_height))
            ty = y1 + (vh - th) * self.offset // self.max_offset
            c.rect((x2 - 10, ty, x2 - 4, ty + th), (190, 190, 190), radius=3, bg=None)

    def node(self, pkg: str) -> UINode:
        n = super().node(pkg)
        n.scrollable = self.scrollable
        return n


class SeekBar(View):
    """A slider 0..100; a tap or a horizontal swipe along it sets the value."""

    cls = "android.widget.SeekBar"

    def __init__(self, bounds: Rect, value: int, accent: Color, on_set: Callable[[int], str], **kw: object):
        super().__init__(bounds, text=str(value), **kw)  # type: ignore[arg-type]
        self.value = value
        self.accent = accent
        self.on_set = on_set
        self.on_tap = lambda: self.on_set(self.value)

    def value_at(self, x: int) -> int:
        x1, _, x2, _ = self.bounds
        pad = (self.bounds[3] - self.bounds[1]) // 2
        return max(0, min(100, round((x - x1 - pad) * 100 / max(1, x2 - x1 - 2 * pad))))

    def tap(self, x: int, y: int) -> str:
        return self.on_set(self.value_at(x))

    def content(self, c: Canvas, bg: Color | None) -> None:
        x1, y1, x2, y2 = self.bounds
        h = y2 - y1
        pad = h // 2
        cy = (y1 + y2) // 2
        kx = x1 + pad + (x2 - x1 - 2 * pad) * self.value // 100
        c.rect((x1 + pad, cy - 6, x2 - pad, cy + 6), (210, 210, 210), radius=6, bg=bg)
        c.rect((x1 + pad, cy - 6, kx, cy + 6), self.accent, radius=6, bg=None)
        c.ellipse((kx - h // 3, cy - h // 3, kx + h // 3, cy + h // 3), self.accent)


def hit(root: View, x: int, y: int, want: str = "tap") -> View | None:
    """The topmost view at (x, y) that takes a tap (or a long press): the last one in document order."""
    best: View | None = None

    def visit(v: View) -> None:
        nonlocal best
        x1, y1, x2, y2 = v.clip
        if not (x1 <= x < x2 and y1 <= y < y2):
            return
        if want == "tap" and (v.on_tap is not None or v.blocks or isinstance(v, SeekBar)) or (
            want == "long" and (v.on_long is not None or v.blocks or v.on_tap is not None)
        ):
            best = v
        for ch in v.children:
            visit(ch)

    visit(root)
    return best


def scroll_at(root: View, x: int, y: int) -> Scroll | None:
    """The innermost scrolling viewport under (x, y)."""
    best: Scroll | None = None
    for v in root.walk():
        x1, y1, x2, y2 = v.clip
        if isinstance(v, Scroll) and x1 <= x < x2 and y1 <= y < y2:
            best = v
    return best


def render(root: View, size: tuple[int, int]) -> Image.Image:
    """Paint a screen. The root's own fill is the new image's colour, so it is not painted twice.

    The screen carries what was drawn over each band of its rows (`BandHistory`),
    for the recorder's encoder to skip the bands that did not change."""
    bg = root.fill or (0, 0, 0)
    img = Image.new("RGB", size, bg)
    history = BandHistory(size[1])
    history.add(0, size[1], ("new", size, bg))
    c = Canvas(img, history=history)
    if root.paint is not None:
        c.bg = bg
        root.paint(c, root)
    root.content(c, bg)
    for ch in root.children:
        ch.draw(c, bg)
    history.seal(img)
    return img
