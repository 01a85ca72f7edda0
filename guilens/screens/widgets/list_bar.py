"""`ListBar`: the step list's scroll bar, its lines kept by what they show.

Textual's `ScrollBar` draws itself through Rich on every move: a `ScrollBarRender`
rendered by a console, wrapped as a Visual, styled line by line in the styles
cache, and each line a new `Strip`, whose own caches (the terminal's colour
filter, the compositor's cuts) start empty. A far jump in a long replay moves
the bar, so each one paid that for the bar's 54 lines, about 2 ms at 200x60,
where a list that fits its panel has no bar at all. Most of a bar's lines are
alike (the track above the thumb, the thumb, the track below; two glyphs at the
thumb's ends), so here each line is worked out by `ScrollBarRender.render_bar`,
Textual's own geometry, and drawn as the one `Strip` kept for a line that looks
like it. A line is what Textual's path makes of it: the bar's segment over the
widget's own style (a test compares the two). Textual makes a widget's scroll
bars itself, so `StepList` asks for this one in its `vertical_scrollbar`.
"""

from __future__ import annotations

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.cache import LRUCache
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.widget import Widget


class ListBar(ScrollBar):
    """A vertical `ScrollBar` whose lines are kept by their look (module docstring)."""

    def __init__(self, *, thickness: int = 1) -> None:
        super().__init__(vertical=True, name="vertical", thickness=thickness)
        self._lines: LRUCache[tuple[str, Style, Style, int], Strip] = LRUCache(64)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._lines.clear()

    def render_lines(self, crop: Region) -> list[Strip]:
        """The bar's lines in `crop`, as Textual would draw them, each made once per look.

        A bar that is not `plain`, or tinted, or not a `ScrollBarRender` (another `renderer`), takes
        Textual's path."""
        bar = self.render()
        if not isinstance(bar, ScrollBarRender) or not plain(self) or self.styles.tint.a:
            return super().render_lines(crop)
        width, height = self.size
        style = bar.style if isinstance(bar.style, Style) else self.app.console.get_style(bar.style)
        looks = bar.render_bar(size=height, virtual_size=bar.virtual_size, window_size=bar.window_size,
                               position=bar.position, thickness=width, vertical=True,
                               back_color=style.bgcolor or Color.parse("#555555"),
                               bar_color=style.color or Color.parse("bright_magenta")).segments
        base = self.visual_style.rich_style
        lines, strips = self._lines, []
        for y in crop.line_range:
            look = looks[y] if y < len(looks) else Segment(" " * width)
            key = (look.text, look.style or Style.null(), base, width)
            line = lines.get(key)
            if line is None:
                line = lines[key] = Strip([Segment(look.text, base + look.style)], width)
            strips.append(line)
        return finish(self, strips, crop)


def plain(widget: Widget) -> bool:
    """Whether Textual's styles cache would do no more to the widget's lines than pad them to its
    width and tint them: no border, outline, padding, hatch, or opacity of either kind. Only then
    may kept lines stand for what that cache makes (`ListBar`, `StepList.render_lines`)."""
    styles = widget.styles
    return (not widget.BLANK and widget.opacity == 1.0 and styles.text_opacity == 1.0
            and not any(styles.padding) and not any(edge for edge, _ in styles.border)
            and not any(edge for edge, _ in styles.outline)
            and not (styles.has_rule("hatch") and styles.hatch != "none"))


def finish(widget: Widget, strips: list[Strip], crop: Region) -> list[Strip]:
    """Kept lines as Textual's styles cache ends a render: the app's line filters (the terminal's
    colours), then the crop's columns. A kept `Strip` keeps its filtered copy in its own cache."""
    _, background = widget.background_colors
    for line_filter in widget.get_line_filters():
        strips = [strip.apply_filter(line_filter, background) for strip in strips]
    if crop.column_span != (0, widget.size.width):
        x1, x2 = crop.column_span
        strips = [strip.crop(x1, x2) for strip in strips]
    return strips
