"""The phone pane's views in the run screen: `v` (pixels, text, both), `z` (the whole terminal), the
magnifier (`+`/`-`, arrows), a click on the text view during a take-over, and the replay's `v`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tui_helpers
from test_tui_run import make_app, run_screen, wait_for

from guilens.screens.replay_screen import ReplayScreen
from guilens.screens.widgets.human import HumanPanel
from guilens.screens.widgets.phone import PhoneView
from guilens.screens.widgets.textphone import TextPhone


def _text_rows(phone: PhoneView) -> str:
    layout = phone.text.text_layout
    return "\n".join(layout.text()) if layout is not None else ""


async def test_v_cycles_pixels_text_and_both_and_the_text_is_the_screens(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, paused=True)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = run_screen(app)
        phone = screen.query_one(PhoneView)
        await wait_for(pilot, lambda: phone.shown.image is not None, what="the first screen")
        assert phone.view == "pixels" and phone.text is None  # made when first shown
        width_pixels = phone.size.width

        await pilot.press("v")
        await wait_for(pilot, lambda: phone.view == "text" and phone.text.text_layout is not None, what="text")
        assert phone.text.display and not phone.query_one("#pixels").display
        assert "Notes" in _text_rows(phone) and "Calculator" in _text_rows(phone)  # the launcher's app labels

        await pilot.press("v")
        await wait_for(pilot, lambda: phone.view == "both", what="both")
        await pilot.pause(0.3)
        assert phone.text.display and phone.query_one("#pixels").display
        assert phone.size.width > width_pixels  # the pane widens for the text beside the pixels
        pixels = phone.query_one("#pixels")
        assert pixels.region.right <= phone.text.region.x  # side by side
        assert phone.box[0] == pixels.content_region.width  # frames are prepared for the pixels' part

        await pilot.press("v")
        await wait_for(pilot, lambda: phone.view == "pixels", what="pixels again")


async def test_z_gives_the_phone_the_terminal_and_the_magnifier_follows_the_target(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, paused=True)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = run_screen(app)
        phone = screen.query_one(PhoneView)
        await wait_for(pilot, lambda: phone.shown.image is not None, what="the first screen")
        await pilot.press("n", "n")  # open notes, tap "New note": the tap is the last action
        await wait_for(pilot, lambda: len(screen.steps) == 2, what="two steps")
        await wait_for(pilot, lambda: (phone.shown.action or {}).get("type") == "tap", what="the tap drawn")
        tap = phone.shown.action
        assert tap is not None

        narrow = phone.size.width
        await pilot.press("z")
        await pilot.pause(0.3)
        assert screen.zoomed and phone.size.width > narrow * 2

        await pilot.press("plus")
        await wait_for(pilot, lambda: phone.zoom == 2 and phone.viewport is not None, what="magnified")
        x1, y1, x2, y2 = phone.viewport  # type: ignore[misc]
        assert (x2 - x1, y2 - y1) == (540, 1200)
        assert x1 <= tap["x"] <= x2 and y1 <= tap["y"] <= y2  # around the last action's target
        await wait_for(pilot, lambda: phone.fit is not None and phone.fit.oy == y1, what="the magnified frame")
        fit = phone.fit
        assert fit is not None and (fit.ox, fit.oy, fit.src_w, fit.src_h) == (x1, y1, 540, 1200)
        assert app.focused is phone  # the arrows pan now
        await pilot.press("up")  # "New note" sits at the bottom: the viewport starts clamped there
        assert phone.viewport is not None and phone.viewport[1] == y1 - 1200 // 4
        await pilot.press("down", "down")
        assert phone.viewport is not None and phone.viewport[1] == y1  # and never goes past the edge
        await pilot.press("minus")
        await wait_for(pilot, lambda: phone.viewport is None, what="the whole screen again")
        await pilot.press("z")
        await pilot.pause(0.2)
        assert not screen.zoomed


async def test_a_click_on_the_text_view_taps_that_element_for_a_person_at_the_controls(tmp_path: Path) -> None:
    app, factory = make_app(tmp_path, paused=True)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = run_screen(app)
        phone = screen.query_one(PhoneView)
        await wait_for(pilot, lambda: phone.shown.ui_xml is not None, what="the first screen")
        await pilot.press("v")  # text
        await wait_for(pilot, lambda: phone.text.text_layout is not None, what="the text view")
        await pilot.press("t")
        await wait_for(pilot, lambda: screen.state == "human" and any(r.kind == "action" for r in screen.pending.values()),
                       what="the person's turn")
        layout = phone.text.text_layout
        placed = next(p for p in layout.placed.values() if p.lines[0].startswith("Notes"))
        text = phone.query_one(TextPhone)
        await pilot.click(text, offset=(placed.col + 1, placed.row))
        await wait_for(pilot, lambda: len(screen.steps) >= 1, what="the tap recorded")
        step = screen.steps[-1]
        assert step.by == "human" and step.action is not None and step.action["type"] == "tap"
        # the phone shows the tap's result while the run stays paused: Notes is open
        await wait_for(pilot, lambda: "Notes" in (phone.shown.ui_xml or "") and "New note" in (phone.shown.ui_xml or ""),
                       what="the notes app on the phone")
        assert screen.query_one(HumanPanel).display


async def test_the_replay_cycles_both_phones_together(tmp_path: Path) -> None:
    from guilens.screens.app import GuilensApp

    episode = tui_helpers.make_episode(tmp_path)
    app = GuilensApp(lambda: ReplayScreen(episode))
    async with app.run_test(size=(200, 60)) as pilot:
        screen: Any = app.screen
        before, after = screen.query_one("#before", PhoneView), screen.query_one("#after", PhoneView)
        await wait_for(pilot, lambda: before.shown.ui_xml is not None and after.shown.ui_xml is not None,
                       what="both screens")
        await pilot.press("v")
        await wait_for(pilot, lambda: before.view == after.view == "text", what="text in both")
        await wait_for(pilot, lambda: before.text.text_layout is not None, what="the text view")
        assert "Calculator" in _text_rows(before)  # step 0 is the launcher
        await pilot.press("right")
        await wait_for(pilot, lambda: screen.index == 1 and "New note" in _text_rows(before), what="step 1")
