"""The step list's lines and its scroll bar's are kept by what they show (`StepList.render_lines`,
`ListBar`): they must be exactly what Textual's own path draws, in every state a person can put them
in, and a row scrolled back into view must be the very `Strip` drawn before (its caches warm)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Region
from textual.scrollbar import ScrollBar
from textual.widget import Widget

from guilens.screens.widgets.list_bar import ListBar
from guilens.screens.widgets.step_list import StepList

ROWS = 200


def row(i: int) -> Content:
    return Content.from_markup(f"[b]{i + 1:>3}[/b] tap [$text-muted]on the next app[/] [$success]✓[/]" if i % 3
                               else f"[b]{i + 1:>3}[/b] open_app [$error]✗ a long line that is cut at the edge[/]")


class ListApp(App[None]):
    CSS = "#box { width: 34; height: 20; }"

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield StepList(ROWS, row, id="steps")


def textual_lines(widget: Widget, crop: Region, base: Callable[[Widget, Region], Any]) -> list[str]:
    """What Textual's own `render_lines` draws (its caches emptied first), as the terminal gets it."""
    widget._styles_cache.clear()
    if isinstance(widget, ScrollBar):
        widget._render_content()
    return [strip.render(widget.app.console) for strip in base(widget, crop)]


def ours(widget: Widget, crop: Region) -> list[str]:
    return [strip.render(widget.app.console) for strip in widget.render_lines(crop)]


def check_alike(steps: StepList) -> None:
    bar = steps.vertical_scrollbar
    assert isinstance(bar, ListBar)
    for widget, base in ((steps, Widget.render_lines), (bar, ScrollBar.render_lines)):
        width, height = widget.size
        for crop in (Region(0, 0, width, height), Region(1, 2, max(1, width - 3), height - 5)):
            assert ours(widget, crop) == textual_lines(widget, crop, base), (type(widget).__name__, crop)


async def test_the_lists_lines_are_textuals_in_every_state() -> None:
    app = ListApp()
    async with app.run_test(size=(80, 30)) as pilot:
        steps = app.query_one(StepList)
        steps.focus()
        await pilot.pause()
        check_alike(steps)
        for target in (150, 3, ROWS - 1, 0, 77):
            steps.highlight(target)
            await pilot.pause()
            check_alike(steps)
        steps.blur()
        await pilot.pause()
        check_alike(steps)
        app.theme = "textual-light"
        await pilot.pause()
        check_alike(steps)
        steps.focus()
        steps.vertical_scrollbar.mouse_over = True
        await pilot.pause()
        check_alike(steps)
        steps.styles.padding = (0, 1)  # a style the kept lines do not draw: Textual's path
        await pilot.pause()
        check_alike(steps)


async def test_a_row_scrolled_back_into_view_is_the_same_strip() -> None:
    app = ListApp()
    async with app.run_test(size=(80, 30)) as pilot:
        steps = app.query_one(StepList)
        steps.focus()
        await pilot.pause()
        crop = Region(0, 0, *steps.size)
        bar_crop = Region(0, 0, *steps.vertical_scrollbar.size)
        first, first_bar = steps.render_lines(crop), steps.vertical_scrollbar.render_lines(bar_crop)
        steps.highlight(120)
        await pilot.pause()
        steps.highlight(0)
        await pilot.pause()
        again, again_bar = steps.render_lines(crop), steps.vertical_scrollbar.render_lines(bar_crop)
        # The same rows and bar: the same strips, the terminal's colour filter already applied to each.
        assert all(a is b for a, b in zip(first, again, strict=True))
        assert all(a is b for a, b in zip(first_bar, again_bar, strict=True))


async def test_the_lines_a_jump_will_show_are_made_before_it_and_are_textuals() -> None:
    """`prepare_jump(t)` then `highlight(t)`: the paint builds no row, wherever `t` is (far below, far
    above, in view, the ends), and what it draws is still what Textual's own path draws."""
    built: list[int] = []

    def counted(i: int) -> Content:
        built.append(i)
        return row(i)

    class CountingApp(ListApp):
        def compose(self) -> ComposeResult:
            with Vertical(id="box"):
                yield StepList(ROWS, counted, id="steps")

    app = CountingApp()
    async with app.run_test(size=(80, 30)) as pilot:
        steps = app.query_one(StepList)
        steps.focus()
        await pilot.pause()
        crop = Region(0, 0, *steps.size)
        for target in (150, 3, 170, 160, ROWS - 1, 0, 60):
            steps.prepare_jump(target)
            built.clear()
            steps.highlight(target)
            steps.render_lines(crop)  # the paint's lines, as the compositor asks for them
            await pilot.pause()
            assert built == [], (target, built)
            check_alike(steps)
            built.clear()
