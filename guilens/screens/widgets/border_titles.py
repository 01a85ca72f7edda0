"""Border titles that change often, repainting the border's row instead of the whole widget.

Why: setting `border_title` or `border_subtitle` makes Textual repaint every line of the widget (the
descriptor calls `refresh()` with no region), and every line of a widget with a border goes through
the styles cache again: its border, background and content. The replay sets three titles on every
step ("before · step 12", the tapped point, "step 12 of 200"): timed side by side, those repaints
were 20 of a jump's 55 ms at 200x60 (`benchmarks/bench_replay.py`). A title is drawn on the border's
top row and a subtitle on its bottom row, so those rows are all that need painting again.

Textual has no call for that, so `retitle` sets the title through the ordinary descriptor and narrows
the `refresh()` it makes to the border's row, passed as a region, which is public API: the rest of
the widget keeps its cached lines.
"""

from __future__ import annotations

from typing import Self

from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.widget import Widget


class BorderTitles(Widget):
    """A widget whose border titles can be changed by `retitle`, painting only the rows they sit on."""

    _title_rows: tuple[bool, bool] | None = None
    """While `retitle` sets a title: which border rows to repaint (top, bottom); else None."""

    def retitle(self, title: str | None = None, subtitle: str | None = None) -> None:
        """Set the border title and/or subtitle (None: leave it as it is); unchanged ones paint nothing."""
        top = title is not None and title != (self.border_title or "")
        bottom = subtitle is not None and subtitle != (self.border_subtitle or "")
        if not (top or bottom):
            return
        self._title_rows = (top, bottom)
        try:
            if top:
                self.border_title = title
            if bottom:
                self.border_subtitle = subtitle
        finally:
            self._title_rows = None

    def _border_rows(self, top: bool, bottom: bool) -> list[Region]:
        """The outer top and bottom rows, as regions relative to the content (what `refresh` takes)."""
        dx, dy = self.content_offset
        width, height = self.outer_size
        rows = ([Region(-dx, -dy, width, 1)] if top else []) + \
               ([Region(-dx, height - dy - 1, width, 1)] if bottom and height > 1 else [])
        return rows

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        if self._title_rows is not None and not regions and not layout and not recompose:
            rows = self._border_rows(*self._title_rows)
            if rows and self.outer_size.area:
                return super().refresh(*rows, repaint=repaint)
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


class TitledScroll(BorderTitles, VerticalScroll):
    """A `VerticalScroll` whose border title `retitle` changes (the replay's "step 12 of 200")."""
