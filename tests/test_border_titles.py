"""`retitle` (guilens/screens/widgets/border_titles.py): a new border title or subtitle is painted on the
border's row, and the widget's other lines keep their cached render."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Static

from guilens.screens.widgets.border_titles import TitledScroll


class Boxed(App[None]):
    CSS = "#box { border: round $accent; height: 12; width: 40; }"

    def compose(self) -> ComposeResult:
        with TitledScroll(id="box"):
            yield Static("\n".join(f"line {i}" for i in range(8)), id="text")


def rows(box: TitledScroll) -> list[str]:
    width, height = box.outer_size
    return [strip.text for strip in box.render_lines(Region(0, 0, width, height))]


async def test_a_new_title_repaints_the_border_rows_only() -> None:
    app = Boxed()
    async with app.run_test(size=(60, 20)) as pilot:
        box = app.query_one("#box", TitledScroll)
        await pilot.pause()
        rows(box)  # the cache is full
        painted: list[int] = []
        original = box.render_line

        def counting(y: int) -> Strip:
            painted.append(y)
            return original(y)

        box.render_line = counting  # type: ignore[method-assign]
        box.retitle("step 7 of 200", "540,698")
        await pilot.pause()
        got = rows(box)
        assert "step 7 of 200" in got[0] and "540,698" in got[-1]
        assert painted == []  # no content row was rendered again

        box.retitle("step 7 of 200")  # unchanged: nothing to paint
        assert box.border_subtitle == "540,698"

        box.border_title = "step 8 of 200"  # what the plain setter costs: every row again
        await pilot.pause()
        got = rows(box)
        assert "step 8 of 200" in got[0]
        assert len(painted) == box.content_size.height
