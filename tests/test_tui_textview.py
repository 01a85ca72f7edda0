"""The text view widget: mounted in a minimal host app, shown real sim screens and a real-Android dump.

Pilot tests click on drawn elements and empty cells, resize the terminal, set a
viewport and show the placeholders; snapshot tests (pytest-textual-snapshot)
pin what the view looks like. Update the pictures with
`pytest tests/test_tui_textview.py --snapshot-update`.
"""

from __future__ import annotations

from typing import Any

from test_textview_layout import ANDROID, sim_screen
from textual.app import App, ComposeResult

from guilens.device.uitree import find_nodes
from guilens.screens.widgets.textphone import NO_TREE, TextPhone


class TextHost(App[None]):
    """One TextPhone, `width` cells wide, shown a screen once mounted; records the taps it posts."""

    CSS = "Screen { layout: horizontal; }"

    def __init__(self, xml: str | None, size: tuple[int, int], action: dict[str, Any] | None = None,
                 viewport: tuple[int, int, int, int] | None = None, width: int | None = 48) -> None:
        super().__init__()
        self.xml, self.size_, self.action, self.viewport, self.width = xml, size, action, viewport, width
        self.taps: list[tuple[int, int]] = []

    def compose(self) -> ComposeResult:
        phone = TextPhone()
        if self.width is not None:
            phone.styles.width = self.width
        yield phone

    def on_mount(self) -> None:
        phone = self.query_one(TextPhone)
        phone.show(self.xml, self.size_, self.action)
        if self.viewport is not None:
            phone.set_viewport(self.viewport)

    def on_text_phone_tapped(self, event: TextPhone.Tapped) -> None:
        self.taps.append((event.x, event.y))


def screen_text(app: App[Any]) -> str:
    """What the terminal shows, as text (the same cells a tmux capture reads)."""
    phone = app.query_one(TextPhone)
    width = phone.content_size.width
    return "\n".join("".join(seg.text for seg in phone.render_line(y)).rstrip()[:width]
                     for y in range(phone.content_size.height))


async def test_a_click_on_a_label_taps_its_elements_centre() -> None:
    xml, size, root = sim_screen("open shop")
    app = TextHost(xml, size)
    async with app.run_test(size=(60, 55)) as pilot:
        await pilot.pause()
        phone = app.query_one(TextPhone)
        layout = phone.text_layout
        assert layout is not None and (layout.cols, layout.rows) == (48, 55)
        i = next(i for i, lab in enumerate(layout.labels) if lab.text == "Electronics")
        placed = layout.placed[i]
        await pilot.click(TextPhone, offset=(placed.col + 4, placed.row))
        checkbox = find_nodes(root, "Electronics")[0]
        assert app.taps == [checkbox.center]
        # a price inside a card taps the card, as the runner resolves a tap on it
        j = next(i for i, lab in enumerate(layout.labels) if lab.text == "$164.95")
        await pilot.click(TextPhone, offset=(layout.placed[j].col + 1, layout.placed[j].row))
        card = find_nodes(root, "$164.95")[0].parent
        assert card is not None and app.taps[-1] == card.center
        # hovering a cut label shows all of it, with its element's number
        k = next(i for i, lab in enumerate(layout.labels) if lab.text.startswith("ASICS Gel-Nimbus"))
        assert not layout.placed[k].whole
        await pilot.hover(TextPhone, offset=(layout.placed[k].col + 3, layout.placed[k].row))
        assert phone.tooltip == f"#{layout.labels[k].number} ASICS Gel-Nimbus 25 Men's Running Shoes"
        # an empty cell: the device pixel under it
        await pilot.click(TextPhone, offset=(24, 22))
        assert app.taps[-1] == layout.device_at(24, 22)
        x, y = app.taps[-1]
        assert abs(x - 24.5 * 1080 / 48) <= 1 and abs(y - 22.5 * 2400 / 55) <= 1


async def test_resize_lays_out_again() -> None:
    xml, size, _ = sim_screen("open settings")
    app = TextHost(xml, size, width=None)
    async with app.run_test(size=(40, 40)) as pilot:
        await pilot.pause()
        phone = app.query_one(TextPhone)
        assert phone.text_layout is not None and (phone.text_layout.cols, phone.text_layout.rows) == (40, 40)
        before = screen_text(app)
        await pilot.resize_terminal(70, 50)
        await pilot.pause()
        assert (phone.text_layout.cols, phone.text_layout.rows) == (70, 50)
        after = screen_text(app)
        assert after != before and "Wi-Fi" in after and "Connected to GuilensNet" in after
        assert all(len(strip.text) == 70 for strip in phone._strips)


async def test_placeholders_and_viewport() -> None:
    app = TextHost(None, (1080, 2400))
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        phone = app.query_one(TextPhone)
        assert NO_TREE in screen_text(app) and phone.text_layout is None
        phone.show("<not a dump>", (1080, 2400))
        await pilot.pause()
        assert "unreadable UI tree: no <hierarchy> element in th" in screen_text(app)  # cut at 48 cells
        xml, size, _ = sim_screen("open shop")
        phone.show(xml, (0, 0))
        await pilot.pause()
        assert "screen size 0x0 is empty" in screen_text(app)
        phone.show(xml, size)
        phone.set_viewport((0, 428, 540, 900))
        await pilot.pause()
        text = screen_text(app)
        assert "Electronics" in text and "Cart" not in text
        assert phone.text_layout is not None and phone.text_layout.viewport == (0, 428, 540, 900)
        phone.set_viewport(None)
        await pilot.pause()
        assert "Cart" in screen_text(app)


async def test_theme_change_restyles_without_a_new_layout() -> None:
    xml, size, _ = sim_screen("open notes")
    app = TextHost(xml, size, action={"type": "tap", "x": 540, "y": 2200})
    async with app.run_test(size=(60, 55)) as pilot:
        await pilot.pause()
        phone = app.query_one(TextPhone)
        layout = phone.text_layout
        number = phone.get_component_rich_style("textphone--number")
        app.theme = "textual-light"
        await pilot.pause()
        assert phone.text_layout is layout
        assert phone.get_component_rich_style("textphone--number") != number
        styles = {seg.style for strip in phone._strips for seg in strip if seg.text.strip()}
        assert phone.get_component_rich_style("textphone--number") in styles


# -- snapshots -----------------------------------------------------------------------------------


def test_snapshot_shop_with_a_tap(snap_compare: Any) -> None:
    xml, size, root = sim_screen("open shop")
    el = find_nodes(root, "Electronics")[0]
    app = TextHost(xml, size, action={"type": "tap", "x": el.center[0], "y": el.center[1]})
    assert snap_compare(app, terminal_size=(48, 55))


def test_snapshot_android_settings(snap_compare: Any) -> None:
    app = TextHost(ANDROID, (1080, 2400), action={"type": "tap", "x": 540, "y": 1417})
    assert snap_compare(app, terminal_size=(48, 55))


def test_snapshot_magnified_calculator(snap_compare: Any) -> None:
    xml, size, _ = sim_screen("open calculator", "tap 140 1300")
    app = TextHost(xml, size, action={"type": "tap", "x": 140, "y": 1300}, viewport=(0, 1000, 1080, 2000))
    assert snap_compare(app, terminal_size=(48, 30))
