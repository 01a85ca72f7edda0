"""`StepList`: the replay's list of steps, one line each, drawn only where it is seen.

Textual's `OptionList` measures every option's height whenever its width changes
(on mount and on each of the layout's resizes), so opening a 200-step episode
cost about 90 ms more than a 21-step one, and a 10,000-step one more still.
Every row here is one line, so the list needs no measuring at all: it is a
Line API `ScrollView` (as toolong's log view is) whose virtual height is the
number of steps, and a row is built from its step only when it scrolls into
view. Opening, scrolling and moving cost the same at any length. A row's
spans become its segments directly: Textual's general `Visual.to_strips`
(wrapping, alignment, links, selection) cost ten times as much per row, 5-10 ms
of every paint that redraws the list.

The finished lines are kept by row too (`render_lines`). Textual's styles cache keeps a
widget's lines by their place in the view, so every scroll of a long list sent each row in view
through it again and made new `Strip`s, whose own caches (the terminal's colour filter, the
compositor's cuts) then started empty: about 45 us a row, 2.5 ms of each far jump in a
200-step replay, where a 21-step list never scrolls. Kept by row, a row scrolled back into view is
the same `Strip` as before, with its caches warm. The lines are what Textual's path makes of a
list with no border, padding or outline (a test compares the two); a list styled with any of those
takes Textual's path.

The highlight moves by the person's keys (↑ ↓, PgUp PgDn) and clicks, which
post `StepList.Highlighted`; the screen that owns the list moves it with
`highlight()`, which posts nothing, so a highlight the screen set can never
come back later as a stale request to go there (keys pressed fast would
otherwise bounce between steps).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.color import Color
from textual.content import Content
from textual.geometry import Region, Size
from textual.message import Message
from textual.renderables.tint import Tint
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.style import Style
from textual.widgets.option_list import Option

from guilens.screens.widgets.list_bar import ListBar, finish, plain


class _Look(NamedTuple):
    """What every line of one render of the list shares."""

    width: int
    """The list's."""
    content_width: int
    """Its content's: the rows and the room under the scroll bar."""
    inner_width: int
    """The rows'."""
    focused: bool
    padding: RichStyle
    """The background a row is padded with to the content's width."""
    tint: Color
    background: Color
    """The background under the tint."""


class StepList(ScrollView, can_focus=True):
    """`count` rows, row `i` drawn from `row(i)` when it is in view; one row highlighted."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"step-list--row", "step-list--highlighted"}
    DEFAULT_CSS = """
    StepList { height: 1fr; overflow-x: hidden; background: $surface; color: $foreground; }
    StepList > .step-list--highlighted {
        color: $block-cursor-blurred-foreground;
        background: $block-cursor-blurred-background;
        text-style: $block-cursor-blurred-text-style;
    }
    StepList:focus { background-tint: $foreground 5%; }
    StepList:focus > .step-list--highlighted {
        color: $block-cursor-foreground;
        background: $block-cursor-background;
        text-style: $block-cursor-text-style;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,end", "owner", show=False),
    ]
    """Home and End belong to the screen that owns the list, which moves it (`highlight`). Handled
    here, they moved the list, which painted, and only then told the screen: a paint more on every
    jump to an end. Bound to an action that is never enabled (`check_action`), they pass the list
    by, where `ScrollView`'s own Home and End would have scrolled it and stopped there."""

    @dataclass
    class Highlighted(Message):
        """The person moved the highlight to `index` (keys or a click)."""

        step_list: StepList
        index: int

        @property
        def control(self) -> StepList:
            return self.step_list

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, StepList.Highlighted) and message.step_list is self.step_list

    def __init__(self, count: int, row: Callable[[int], Content], *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.count = count
        self._row = row
        self.highlighted: int | None = 0 if count else None
        self._strips: LRUCache[tuple[int, int, bool, bool], Strip] = LRUCache(256)
        self._contents: LRUCache[int, Content] = LRUCache(256)
        self._lines: LRUCache[tuple[int, int, int, bool, bool], Strip] = LRUCache(256)
        """Finished lines (`render_lines`) by (row, content width, width, lit, focused)."""
        self.virtual_size = Size(0, count)

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """The list's scroll bar, a `ListBar` (made as `Widget.vertical_scrollbar` makes Textual's own)."""
        if self._vertical_scrollbar is None:
            self._vertical_scrollbar = bar = ListBar(thickness=self.scrollbar_size_vertical)
            bar.display = False
            self.app._start_widget(self, bar)
        return self._vertical_scrollbar

    # -- the rows ----------------------------------------------------------------------------
    def prompt(self, index: int) -> Content:
        """Row `index`'s text."""
        return self._row(index)

    def get_option_at_index(self, index: int) -> Option:
        """Row `index` as an `Option`, as `OptionList` answers (its id is the step's index)."""
        if not 0 <= index < self.count:
            raise IndexError(index)
        return Option(self._row(index), id=str(index))

    def set_rows(self, count: int, row: Callable[[int], Content]) -> None:
        """New rows (the verdict changed the marks): redraw what is in view."""
        self.count, self._row = count, row
        self._strips.clear()
        self._lines.clear()
        self._contents.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, count)
        if self.highlighted is not None and self.highlighted >= count:
            self.highlighted = count - 1 if count else None
        self.refresh()

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        """Textual's compositor gives a Line API view (no children) a virtual size equal to what it
        shows, and `ScrollView._size_updated` compares that with the list's own virtual size (a row
        per step): whenever the list is longer than its view they differ, so every layout of the
        screen repainted the list's scroll bar, 3-5 ms of every step shown in a 200-step replay, for
        a bar that had not moved. The comparison here is with the list's own virtual size, the true
        one; new rows (`set_rows`) still reach the bar, through the virtual size's own refresh."""
        return super()._size_updated(size, self.virtual_size, container_size, layout)

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, self.count)
        self._strips.clear()
        self._lines.clear()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()
        self._lines.clear()

    def prepare_rows(self, first: int, count: int) -> None:
        """Build rows `first` to `first + count - 1` now, before they are drawn (the replay does it
        while its first step's screens decode, so its first paint does not parse them)."""
        for index in range(max(0, first), min(self.count, first + count)):
            if self._contents.get(index) is None:
                self._contents[index] = self._row(index)

    def render_lines(self, crop: Region) -> list[Strip]:
        """The rows in `crop`, each finished once and kept by row (module docstring).

        What Textual's styles cache makes of a row with no border, padding or outline: the row,
        padded with the background to the content's width (under the scroll bar), tinted by
        `background-tint`, then the app's line filters and the crop; anything else takes its path."""
        if not plain(self):
            return super().render_lines(crop)
        top, look = self.scroll_offset.y, self._look()
        return finish(self, [self._line(top + y, self.highlighted, look) for y in crop.line_range], crop)

    def prepare_jump(self, index: int) -> None:
        """Finish now the lines a jump to row `index` will show: the replay calls it while the step's
        number is typed at `g`, so the paint that shows the step finds them kept.

        Why: in a long episode a far jump lands among rows never drawn, and building them (about
        35 us a row) was in that paint, a cost that grew with the episode: over 30 far jumps a
        1000-step replay built about 50 new rows a jump, a 200-step one a few (most of its rows had
        been drawn by then). Where the list will scroll is worked out with Textual's own rule for
        `highlight`'s scroll (`Region.get_scroll_to_visible`, the least that brings the row into
        view); a wrong guess only leaves the rows to the paint."""
        if not self.count or not self.is_mounted or not plain(self):
            return
        index = max(0, min(self.count - 1, index))
        window = self.scrollable_content_region.at_offset(self.scroll_offset)
        delta = Region.get_scroll_to_visible(window, self._row_region(index))  # as `scroll_to_region` does
        top = max(0, min(self.max_scroll_y, self.scroll_offset.y + delta.y))
        look = self._look()
        lines = [self._line(i, index, look) for i in range(top, min(self.count, top + window.height))]
        finish(self, lines, Region(0, 0, self.size.width, len(lines)))  # their filtered copies kept too

    def _look(self) -> _Look:
        base_background, background = self.background_colors
        return _Look(self.size.width, self.content_region.width, self.scrollable_content_region.width,
                     self.has_focus, Style(background=base_background + background).rich_style,
                     self.styles.tint, background)

    def _line(self, index: int, highlighted: int | None, look: _Look) -> Strip:
        """Row `index`'s finished line, `highlighted` being the lit row: kept, or made and kept."""
        key = (index, look.inner_width, look.width, index == highlighted, look.focused)
        line = self._lines.get(key) if 0 <= index < self.count else None
        if line is None:
            row = self._row_strip(index, highlighted).adjust_cell_length(look.content_width, look.padding)
            segments = (row if not look.tint.a
                        else Tint.process_segments(row, look.tint, self.app.ansi_theme, look.background))
            line = Strip(segments, look.width)
            if 0 <= index < self.count:
                self._lines[key] = line
        return line

    def render_line(self, y: int) -> Strip:
        return self._row_strip(self.scroll_offset.y + y, self.highlighted)

    def _row_strip(self, index: int, highlighted: int | None) -> Strip:
        """Row `index` at the rows' width, `highlighted` being the lit row (a blank past the last)."""
        width = self.scrollable_content_region.width
        lit = index == highlighted
        style = self.get_visual_style("step-list--row", *(["step-list--highlighted"] if lit else []))
        if not 0 <= index < self.count:
            return Strip.blank(width, self.get_visual_style("step-list--row").rich_style)
        key = (index, width, lit, self.has_focus)
        strip = self._strips.get(key)
        if strip is None:
            content = self._contents.get(index)
            if content is None:
                content = self._contents[index] = self._row(index)  # parsed once, drawn at any width
            # Spans straight to segments (module docstring); `_get_style` resolves `$variables` as
            # `Visual.to_strips` has Textual do it.
            content = content.truncate(width, ellipsis=True)
            segments = [Segment(text, part.rich_style) for text, part in content.render(style, "", self._get_style)]
            strip = Strip(segments).extend_cell_length(width, style.rich_style).crop(0, width).apply_offsets(0, 0)
            self._strips[key] = strip
        return strip

    # -- the highlight -----------------------------------------------------------------------
    def highlight(self, index: int) -> None:
        """Move the highlight to `index` and bring it into view; posts nothing (the owner moved it)."""
        if not self.count:
            return
        index = max(0, min(self.count - 1, index))
        old, self.highlighted = self.highlighted, index
        if old == index:
            return
        if old is not None:  # the two rows the highlight left and reached; a scroll repaints the rest
            self.refresh_line(old)
        self.refresh_line(index)
        self.scroll_to_region(self._row_region(index), animate=False, force=True, immediate=True)

    def _row_region(self, index: int) -> Region:
        """Row `index` in the list's virtual space: what `highlight` scrolls into view."""
        return Region(0, index, max(1, self.scrollable_content_region.width), 1)

    def _choose(self, index: int) -> None:
        if not self.count:
            return
        index = max(0, min(self.count - 1, index))
        if index != self.highlighted:
            self.highlight(index)
            self.post_message(self.Highlighted(self, index))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "owner"

    def action_move(self, delta: int) -> None:
        self._choose((self.highlighted or 0) + delta)

    def action_page(self, direction: int) -> None:
        self._choose((self.highlighted or 0) + direction * max(1, self.scrollable_content_region.height - 1))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            self._choose(self.scroll_offset.y + offset.y)
