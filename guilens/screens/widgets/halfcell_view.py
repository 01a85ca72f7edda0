"""`HalfcellView`: a phone screen as half-cell terminal lines, for terminals without image support.

Hands finished strips to Textual: all the per-pixel work happened in
`halfcell.prepare_frame`, off the event loop, so a new frame costs the loop
almost nothing (STYLE.md section 7: 14-17 ms from frame to screen against
81 ms for textual-image's `HalfcellImage`).
"""

from __future__ import annotations

import dataclasses

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.strip import Strip
from textual.widget import Widget

from guilens.screens.widgets.halfcell import Fit, HalfcellFrame


class HalfcellView(Widget):
    """Hands finished strips to Textual: all the per-pixel work happened in `prepare_frame`."""

    COMPONENT_CLASSES = {"halfcell--placeholder"}
    DEFAULT_CSS = """
    HalfcellView { width: 1fr; height: 1fr; }
    HalfcellView > .halfcell--placeholder { color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.frame: HalfcellFrame | None = None
        self.placeholder = "no screen yet"
        self._lines: dict[int, Strip] = {}
        self._placed: Fit | None = None
        # `Widget.size` looks the widget up in the compositor on every call: too slow per line.
        self._width = 0
        self._height = 0
        self._bg: Style | None = None
        """The widget's own style, for blank cells: `rich_style` walks the DOM (about 50 us a call),
        so it is read once per frame and size, not once per line."""

    def on_resize(self, event: events.Resize) -> None:
        # Textual can paint the new size before this event arrives, with lines padded or cropped to
        # the old width: those lines are cached, so paint again now that the width is known.
        self._width, self._height = event.size
        self._lines.clear()
        self._placed = None
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._lines.clear()
        self._bg = None

    def set_frame(self, frame: HalfcellFrame | None) -> None:
        self.frame = frame
        self._lines.clear()
        self._placed = None
        self.refresh()

    @property
    def placed(self) -> Fit | None:
        """The frame's geometry, centred in the widget as it is now (for mouse mapping)."""
        if self.frame is None:
            return None
        if self._placed is None:
            fit = self.frame.fit
            self._placed = dataclasses.replace(
                fit,
                box_cols=self._width,
                box_rows=self._height,
                left=max(0, (self._width - fit.cols) // 2),
                top=max(0, (self._height - fit.rows) // 2),
            )
        return self._placed

    def render_line(self, y: int) -> Strip:
        line = self._lines.get(y)
        if line is not None:
            return line
        width = self._width
        fit = self.placed
        # Blank cells carry the widget's style: a style-less segment breaks Textual's filters (NO_COLOR).
        bg = self._bg
        if bg is None:
            bg = self._bg = self.rich_style
        if fit is None or self.frame is None:
            if y == self._height // 2 and self.placeholder:
                text = self.placeholder[:width]
                pad = (width - len(text)) // 2
                style = self.get_component_rich_style("halfcell--placeholder")
                return Strip.join([Strip.blank(pad, bg), Strip([Segment(text, style)]),
                                   Strip.blank(width - pad - len(text), bg)])
            return Strip.blank(width, bg)
        row = y - fit.top
        if 0 <= row < len(self.frame.strips):
            strip = self.frame.strips[row]
            right = width - fit.left - strip.cell_length
            if right >= 0:
                # One Strip for the padded line: each Strip Textual builds costs more than its segments.
                segments = [Segment(" " * fit.left, bg)] if fit.left else []
                segments += strip
                if right:
                    segments.append(Segment(" " * right, bg))
                line = Strip(segments, width)
            else:
                strip = strip.crop(0, width - fit.left)
                line = Strip.join([Strip.blank(fit.left, bg), strip,
                                   Strip.blank(width - fit.left - strip.cell_length, bg)])
        else:
            line = Strip.blank(width, bg)
        self._lines[y] = line
        return line
