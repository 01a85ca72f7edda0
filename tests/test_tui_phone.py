"""The phone view: half-cell geometry and strips, the action overlay, mouse to device pixels."""

from __future__ import annotations

import asyncio

import pytest
import tui_helpers  # noqa: F401  (pins the cell size)
from PIL import Image, ImageDraw
from textual.app import App, ComposeResult

from guilens.screens.widgets.halfcell import (
    HalfcellFrame,
    OverlayColors,
    build_strips,
    draw_action,
    fit_image,
    prepare_frame,
)
from guilens.screens.widgets.phone import HalfcellView, PhoneView


def test_fit_keeps_the_phone_aspect_and_centres_it() -> None:
    fit = fit_image((1080, 2400), 120, 56, (10, 20))
    assert (fit.cols, fit.rows) == (50, 56)  # 50 x 112 half-cell pixels: 0.45 like the phone
    assert fit.left == 35 and fit.top == 0
    narrow = fit_image((1080, 2400), 30, 56, (10, 20))
    assert narrow.cols == 30 and narrow.rows == round(30 * 10 * 2400 / 1080 / 20)
    assert narrow.top == (56 - narrow.rows) // 2


def test_cell_to_device_is_the_centre_of_the_cell_and_none_outside() -> None:
    fit = fit_image((1080, 2400), 60, 56, (10, 20))  # cols 50, left 5
    assert fit.cell_to_device(4, 10) is None
    assert fit.cell_to_device(5 + 50, 10) is None
    x, y = fit.cell_to_device(5, 0)  # type: ignore[misc]
    assert (x, y) == (int(0.5 * 1080 / 50), int(0.5 * 2400 / 56))
    x, y = fit.cell_to_device(5 + 49, 55)  # type: ignore[misc]
    assert 1050 < x < 1080 and 2350 < y < 2400
    # device -> cell -> device lands within one cell of where it started
    for px, py in [(100, 200), (540, 1200), (1000, 2300)]:
        cx, cy = fit.device_to_cell(px, py)
        bx, by = fit.cell_to_device(cx, cy)  # type: ignore[misc]
        assert abs(bx - px) <= 1080 / 50 and abs(by - py) <= 2400 / 56


def test_strips_hold_the_pixel_colours_and_merge_runs() -> None:
    img = Image.new("RGB", (4, 4), (10, 20, 30))
    img.putpixel((3, 0), (200, 0, 0))  # top-right upper half differs
    img.putpixel((0, 3), (0, 200, 0))  # bottom-left lower half differs
    strips = build_strips(img)
    assert len(strips) == 2
    top = list(strips[0])
    assert [s.text for s in top] == ["▀▀▀", "▀"]
    assert top[0].style.color.triplet == (10, 20, 30) and top[0].style.bgcolor.triplet == (10, 20, 30)
    assert top[1].style.color.triplet == (200, 0, 0)
    bottom = list(strips[1])
    assert [s.text for s in bottom] == ["▀", "▀▀▀"]
    assert bottom[0].style.bgcolor.triplet == (0, 200, 0)
    assert all(s.cell_length == 4 for s in strips)


def test_tap_and_swipe_are_drawn_where_they_happened() -> None:
    img = Image.new("RGB", (100, 200), (0, 0, 0))
    colors = OverlayColors(mark=(255, 0, 0), ring=(255, 255, 255))
    tapped = draw_action(img, {"type": "tap", "x": 500, "y": 1500}, (0.1, 0.1), colors)
    assert tapped.getpixel((50, 150)) == (255, 0, 0)
    assert tapped.getpixel((10, 10)) == (0, 0, 0)
    assert img.getpixel((50, 150)) == (0, 0, 0)  # the original is untouched
    swiped = draw_action(img, {"type": "swipe", "x1": 500, "y1": 1800, "x2": 500, "y2": 200}, (0.1, 0.1), colors)
    assert all(swiped.getpixel((50, y)) == (255, 0, 0) for y in range(40, 170, 10))
    assert draw_action(img, {"type": "type", "text": "x"}, (0.1, 0.1), colors) is img


def test_prepared_frame_redraws_a_new_action_without_shrinking_again() -> None:
    img = Image.new("RGB", (1080, 2400), (240, 240, 240))
    frame = prepare_frame(img, (40, 44), action={"type": "tap", "x": 540, "y": 1200})
    assert isinstance(frame, HalfcellFrame) and len(frame.strips) == frame.fit.rows
    moved = frame.with_action({"type": "tap", "x": 100, "y": 100})
    assert moved.base is frame.base and moved.strips != frame.strips


class Host(App[None]):
    CSS = "PhoneView { width: 52; height: 58; border: round $primary; }"

    def __init__(self) -> None:
        super().__init__()
        self.events: list[object] = []

    def compose(self) -> ComposeResult:
        yield PhoneView("halfcell")

    def on_phone_view_tapped(self, event: PhoneView.Tapped) -> None:
        self.events.append(("tap", event.x, event.y))

    def on_phone_view_swiped(self, event: PhoneView.Swiped) -> None:
        self.events.append(("swipe", event.x1, event.y1, event.x2, event.y2))


def _screen() -> Image.Image:
    img = Image.new("RGB", (1080, 2400), (250, 250, 250))
    ImageDraw.Draw(img).rectangle([0, 0, 540, 1200], fill=(20, 40, 200))
    return img


async def _until(pilot: object, cond: object, timeout: float = 5.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if cond():  # type: ignore[operator]
            return
        await pilot.pause(0.05)  # type: ignore[attr-defined]
    raise AssertionError("condition not reached")


async def test_click_taps_the_device_pixel_under_the_cursor_and_drag_swipes() -> None:
    app = Host()
    async with app.run_test(size=(80, 60)) as pilot:
        phone = app.query_one(PhoneView)
        await _until(pilot, lambda: phone.box == (50, 56))
        phone.show(_screen())
        await _until(pilot, lambda: phone.canvas is not None and phone.canvas.frame is not None)
        fit = phone.fit
        assert fit is not None and (fit.cols, fit.rows) == (50, 56)
        # the upper-left quarter is blue on the phone view, the rest light
        line = phone.canvas.render_line(5)  # type: ignore[union-attr]
        first = list(line)[0]
        assert first.style.color.triplet == (20, 40, 200)

        await pilot.click(HalfcellView, offset=(25, 28))
        await pilot.pause(0.1)
        assert app.events[-1] == ("tap", *fit.cell_to_device(25, 28))  # type: ignore[misc]

        await pilot.mouse_down(HalfcellView, offset=(25, 45))
        await pilot.hover(HalfcellView, offset=(25, 10))
        await pilot.mouse_up(HalfcellView, offset=(25, 10))
        await pilot.pause(0.1)
        kind, x1, y1, x2, y2 = app.events[-1]  # type: ignore[misc]
        assert kind == "swipe" and y1 > 1800 and y2 < 500 and abs(x1 - x2) <= 22


async def test_a_new_action_never_shows_on_an_older_screen() -> None:
    """A screen whose frame is still being prepared must not be replaced by the older one
    when the action arrives (it used to freeze the view on the first screen)."""
    app = Host()
    async with app.run_test(size=(80, 60)) as pilot:
        phone = app.query_one(PhoneView)
        await _until(pilot, lambda: phone.box == (50, 56))
        first, second = Image.new("RGB", (1080, 2400), (255, 0, 0)), Image.new("RGB", (1080, 2400), (0, 0, 255))
        phone.show(first)
        await _until(pilot, lambda: phone.canvas.frame is not None)  # type: ignore[union-attr]
        phone.show(second)  # prepared in a thread...
        phone.show_action({"type": "tap", "x": 10, "y": 10})  # ...while the action arrives
        await pilot.pause(0.5)
        colour = list(phone.canvas.render_line(40))[0].style.color.triplet  # type: ignore[union-attr]
        assert colour == (0, 0, 255)


def test_renderer_choice_is_explicit() -> None:
    from guilens.screens.launch import pick_renderer
    from guilens.screens.phone_setup import RendererError

    assert pick_renderer("halfcell").renderer == "halfcell"
    with pytest.raises(RendererError, match="unknown renderer"):
        pick_renderer("ascii")
    # not a terminal under pytest: auto falls back to the half-cell view, with the text beside it
    auto = asyncio.run(asyncio.to_thread(pick_renderer, "auto"))
    assert (auto.renderer, auto.view) == ("halfcell", "both")
    assert (pick_renderer("text").renderer, pick_renderer("text").view) == ("halfcell", "text")
