"""The phone as text: every element's label drawn in cells at its place, read from the UI tree.

Pixels cannot carry small text in a terminal without graphics (at 200x60 a
half-cell phone is about 50x100 pixels); the UI tree can, and it is the same
for the sim and a real phone. `textlayout` decides what goes in each cell row;
this widget turns the rows into `Strip`s once per screen (or size, or viewport)
and hands the cached strips to Textual in `render_line`, as `HalfcellView` does.

Colours come from the theme through component classes (`textphone--number`,
`textphone--target`, ...): a piece's style is its base class plus its marks,
combined once per combination of marks and cached until the styles change.

A click on a drawn element posts `TextPhone.Tapped` with the element's device
centre (what a tap on it means); a click on an empty cell maps the cell to the
device pixel under it. The run screen decides whether that becomes a tap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import EllipsisType
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from guilens.device.uitree import UINode, UITreeError, parse_ui_xml
from guilens.screens.widgets.textlabels import Mark, Rect, check_viewport
from guilens.screens.widgets.textlayout import TextLayout, layout_screen

NO_TREE = "no UI tree for this screen"

# Which component class styles a piece with this mark; the order is the order they are applied in.
_MARK_CLASSES: tuple[tuple[Mark, str], ...] = (
    (Mark.CLICKABLE, "textphone--clickable"),
    (Mark.EDITABLE, "textphone--field"),
    (Mark.SELECTED, "textphone--selected"),
    (Mark.FOCUSED, "textphone--focused"),
    (Mark.DISABLED, "textphone--disabled"),
)


def build_strips(layout: TextLayout, style_for: Callable[[Mark], Style], blank: Style) -> list[Strip]:
    """One strip per row of `layout`, `layout.cols` cells wide; empty cells in `blank`."""
    strips = []
    width = layout.cols
    for spans in layout.lines:
        if not spans:
            strips.append(Strip([Segment(" " * width, blank)], width))
            continue
        segments, pos = [], 0
        for span in spans:
            if span.col > pos:
                segments.append(Segment(" " * (span.col - pos), blank))
            segments.append(Segment(span.text, style_for(span.flags)))
            pos = span.col + span.width
        if pos < width:
            segments.append(Segment(" " * (width - pos), blank))
        strips.append(Strip(segments, max(width, pos)).crop(0, width))
    return strips


@dataclass(frozen=True)
class TextFrame:
    """A screen's text laid out for `cols` x `rows` cells, as `TextPhone.show` would lay it out; made
    by `text_frame` on any thread (the replay's loader prepares the next steps' ahead)."""

    ui_xml: str | None
    screen_size: tuple[int, int]
    cols: int
    rows: int
    viewport: Rect | None
    action: dict[str, Any] | None
    root: UINode | None
    layout: TextLayout | None
    placeholder: str

    def fits(self, ui_xml: str | None, screen_size: tuple[int, int], cols: int, rows: int,
             viewport: Rect | None, action: dict[str, Any] | None) -> bool:
        """Whether this is what showing `ui_xml` (the same string) at that size and viewport makes."""
        return (self.ui_xml is ui_xml and self.screen_size == screen_size and (self.cols, self.rows) == (cols, rows)
                and self.viewport == viewport and self.action == action)


def text_frame(ui_xml: str | None, screen_size: tuple[int, int], cols: int, rows: int,
               viewport: Rect | None, action: dict[str, Any] | None) -> TextFrame:
    """The UI tree parsed and laid out (the whole of `TextPhone.show` but the strips, which need the
    widget's styles); `viewport` as the view holds it (checked against this screen here)."""
    root, placeholder = None, NO_TREE
    if ui_xml:
        try:
            root = parse_ui_xml(ui_xml)
        except UITreeError as err:
            placeholder = f"unreadable UI tree: {err}"
    shown = _checked(viewport, screen_size)
    layout = None
    if root is not None and cols > 0 and rows > 0:
        try:
            layout = layout_screen(root, screen_size, cols, rows, viewport=shown, action=action)
        except ValueError as err:  # a screen size with no area: say so where the phone would be
            placeholder = str(err)
    return TextFrame(ui_xml, screen_size, cols, rows, viewport, action, root, layout, placeholder)


def _checked(viewport: Rect | None, screen_size: tuple[int, int]) -> Rect | None:
    if viewport is None:
        return None
    try:
        return check_viewport(viewport, screen_size)
    except ValueError:  # a viewport off this (smaller) screen: show the whole of it
        return None


class TextPhone(Widget):
    """The screen's UI tree as text, for any terminal (tmux, a browser, no graphics at all)."""

    COMPONENT_CLASSES = {
        "textphone--label",
        "textphone--desc",
        "textphone--synthetic",
        "textphone--clickable",
        "textphone--number",
        "textphone--glyph",
        "textphone--checked",
        "textphone--field",
        "textphone--focused",
        "textphone--selected",
        "textphone--disabled",
        "textphone--target",
        "textphone--point",
        "textphone--placeholder",
    }
    DEFAULT_CSS = """
    TextPhone { width: 1fr; height: 1fr; background: $surface; color: $foreground; }
    TextPhone > .textphone--label { color: $foreground; }
    TextPhone > .textphone--desc { color: $text-muted; text-style: italic; }
    TextPhone > .textphone--synthetic { color: $text-disabled; text-style: italic; }
    TextPhone > .textphone--clickable { color: $text-primary; }
    TextPhone > .textphone--number { color: $text-accent; background: $accent-muted; text-style: bold; }
    TextPhone > .textphone--glyph { color: $text-accent; }
    TextPhone > .textphone--checked { color: $text-success; text-style: bold; }
    TextPhone > .textphone--field { text-style: underline; }
    TextPhone > .textphone--focused { text-style: bold underline; }
    TextPhone > .textphone--selected { text-style: bold; }
    TextPhone > .textphone--disabled { text-style: dim; }
    TextPhone > .textphone--target { color: $text-error; background: $error-muted; text-style: bold; }
    TextPhone > .textphone--point { color: $text-error; text-style: bold; }
    TextPhone > .textphone--placeholder { color: $text-muted; }
    """

    @dataclass
    class Tapped(Message):
        """A click on the text view, at device pixels (a drawn element's centre)."""

        phone: TextPhone
        x: int
        y: int

        @property
        def control(self) -> TextPhone:
            return self.phone

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        self._styles: dict[int, Style] = {}
        self._bg: Style | None = None
        """The widget's own style, for blank lines: `rich_style` walks the DOM (about 25 us a call, 3 ms of
        a first paint's blank lines), so it is read once per style update, as `HalfcellView` does."""
        self._stale = False
        super().__init__(id=id, classes=classes)
        self.root: UINode | None = None
        self.screen_size: tuple[int, int] = (1080, 2400)
        self.action: dict[str, Any] | None = None
        self.viewport: Rect | None = None
        self.text_layout: TextLayout | None = None
        """The layout on show (None with the placeholder)."""
        self.placeholder = NO_TREE
        self._strips: list[Strip] = []
        # `Widget.size` looks the widget up in the compositor on every call: too slow per line.
        self._width = 0
        self._height = 0

    @property
    def cells(self) -> tuple[int, int]:
        """The size the text is laid out for: the last resize's, or the one `expect_size` was told."""
        return self._width, self._height

    def expect_size(self, cols: int, rows: int) -> None:
        """The size the first layout will give this view, told before it (`PhoneView.expect`), so a
        screen shown before that layout is laid out for it; a different size at the resize lays it
        out again."""
        if not self._width and not self._height:
            self._width, self._height = max(0, cols), max(0, rows)

    # -- what is shown -----------------------------------------------------------------------
    def show(self, ui_xml: str | None, screen_size: tuple[int, int], action: dict[str, Any] | None = None,
             viewport: Rect | None | EllipsisType = ..., prepared: TextFrame | None = None) -> None:
        """Show a screen's UI tree (`uiautomator dump` XML) and the action taken on it; `viewport`, when
        given, is the part of it to show (as `set_viewport`, checked against this screen): set with the
        screen, the two are laid out once, where setting them one after the other laid out twice.
        `prepared`: the same laid out already off the loop (`text_frame`), used when it fits this
        view's size; else the layout is made here."""
        wanted = self.viewport if viewport is ... else viewport
        if prepared is None or not prepared.fits(ui_xml, screen_size, self._width, self._height, wanted, action):
            prepared = text_frame(ui_xml, screen_size, self._width, self._height, wanted, action)
        self.screen_size, self.action = screen_size, action
        self.viewport = _checked(wanted, screen_size)
        self.root, self.placeholder, self.text_layout = prepared.root, prepared.placeholder, prepared.layout
        self._restyle()

    def set_viewport(self, rect: Rect | None) -> None:
        """Show only this device-pixel rectangle, enlarged to the whole view (None: the whole screen).
        Raises ValueError for a rectangle with no area on the screen."""
        self.viewport = None if rect is None else check_viewport(rect, self.screen_size)
        self._relayout()

    def _relayout(self) -> None:
        self.text_layout = None
        if self.root is not None and self._width > 0 and self._height > 0:
            try:
                self.text_layout = layout_screen(
                    self.root, self.screen_size, self._width, self._height, viewport=self.viewport, action=self.action
                )
            except ValueError as err:  # a screen size with no area: say so where the phone would be
                self.placeholder = str(err)
        self._restyle()

    def _restyle(self, refresh: bool = True) -> None:
        layout = self.text_layout
        self._strips = [] if layout is None else build_strips(layout, self._style_for, self._blank())
        self._stale = False
        if refresh:
            self.refresh()

    # -- styles ------------------------------------------------------------------------------
    def _blank(self) -> Style:
        bg = self._bg
        if bg is None:
            bg = self._bg = self.rich_style
        return bg

    def _style_for(self, flags: Mark) -> Style:
        style = self._styles.get(flags)
        if style is None:
            style = self._styles[flags] = self._combine(flags)
        return style

    def _combine(self, flags: Mark) -> Style:
        part = self.get_component_rich_style
        if flags & Mark.POINT:
            return part("textphone--point")
        if flags & Mark.NUMBER:
            style = part("textphone--number")
        elif flags & Mark.GLYPH:
            style = part("textphone--label")
            if flags & Mark.CHECKED:
                style += part("textphone--checked", partial=True)
            else:
                style += part("textphone--glyph", partial=True)
        else:
            base = "textphone--synthetic" if flags & Mark.SYNTHETIC else (
                "textphone--desc" if flags & Mark.DESC else "textphone--label")
            style = part(base)
            for mark, name in _MARK_CLASSES:
                if flags & mark:
                    style += part(name, partial=True)
        if flags & Mark.TARGET:
            style += part("textphone--target", partial=True)
        return style

    def notify_style_update(self) -> None:
        # Called before the component classes are re-read (a theme change refreshes the widget
        # once they are): rebuild the strips on the next render, not now.
        super().notify_style_update()
        self._styles.clear()
        self._bg = None
        self._stale = True

    # -- rendering ---------------------------------------------------------------------------
    def on_resize(self, event: events.Resize) -> None:
        size = self.content_size
        if (size.width, size.height) != (self._width, self._height):
            self._width, self._height = size.width, size.height
            self._relayout()

    def render_line(self, y: int) -> Strip:
        if self._stale and self.text_layout is not None:
            self._restyle(refresh=False)
        if 0 <= y < len(self._strips):
            return self._strips[y]
        width = self._width
        if self.text_layout is None and y == self._height // 2 and self.placeholder:
            text = self.placeholder[:width]
            pad = (width - len(text)) // 2
            style = self.get_component_rich_style("textphone--placeholder")
            return Strip([Segment(" " * pad, self._blank()), Segment(text, style),
                          Segment(" " * (width - pad - len(text)), self._blank())], width)
        return Strip.blank(width, self._blank())

    # -- mouse -------------------------------------------------------------------------------
    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self.text_layout is None or event.button != 1:
            return
        point = self.text_layout.tap_at(offset.x, offset.y)
        if point is not None:
            self.post_message(self.Tapped(self, point[0], point[1]))
            event.stop()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """Hovering a label shows all of it (a cut one too) and its element's number."""
        offset, layout = event.get_content_offset(self), self.text_layout
        label = None if offset is None or layout is None else layout.label_at(offset.x, offset.y)
        tip = None
        if label is not None and layout is not None and label.text:
            element = label.owner or label.node
            number = next((lab.number for lab in layout.labels if lab.number and (lab.owner or lab.node) is element), "")
            tip = f"#{number} {label.text}" if number else label.text
        if tip != self.tooltip:
            self.tooltip = tip
