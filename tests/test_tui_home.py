"""The home screen (`guilens` with no arguments): pick, start, and see the run; bad choices are
one-line errors on the screen. And the full-resolution renderer's image preparation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tui_helpers  # noqa: F401
from PIL import Image
from test_tui_run import run_screen, wait_for
from textual.widgets import Input, Select, Static

from guilens.config import Settings
from guilens.run.types import instruction_for
from guilens.screens.app import GuilensApp
from guilens.screens.home_screen import HomeScreen
from guilens.screens.modals import AskUserScreen
from guilens.screens.run_screen import RunScreen
from guilens.screens.runs_screen import RunsScreen
from guilens.screens.widgets.phone import PhoneView


def home_app(tmp_path: Path) -> GuilensApp:
    settings = Settings(run_dir=tmp_path / "runs", cache_dir=tmp_path / "cache")
    return GuilensApp(lambda: HomeScreen(settings))


async def test_home_starts_the_chosen_task_in_the_run_screen(tmp_path: Path) -> None:
    app = home_app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen) and home.scenarios
        scenario = next(s for s in home.scenarios.values() if s.device == "sim" and s.kind == "tasks")
        home.query_one("#scenario", Select).value = scenario.id
        await pilot.pause(0.2)
        task = scenario.tasks[0]
        home.query_one("#task", Select).value = task.id
        await pilot.pause(0.2)
        info = str(home.query_one("#task-info", Static).render())
        assert task.id in info and instruction_for(task, "L0")[:30] in info  # filled, as the agent is given it
        home.query_one("#level", Select).value = "L1" if "L1" in task.levels else "L0"
        await pilot.pause(0.1)
        home.query_one("#start").focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(isinstance(s, RunScreen) for s in app.screen_stack), what="the run screen")
        screen = run_screen(app)
        for _ in range(600):
            if isinstance(app.screen, AskUserScreen):
                await pilot.press("enter")
            if screen.finished:
                break
            await pilot.pause(0.05)
        assert screen.finished and screen.status.outcome == "success"
        assert str(screen.finished_dirs[-1]).startswith(str(tmp_path / "runs"))


async def test_home_shows_bad_choices_as_errors(tmp_path: Path) -> None:
    app = home_app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        home = app.screen
        home.query_one("#device", Input).value = "telephone"
        home.query_one("#start").focus()
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert isinstance(app.screen, HomeScreen)
        assert "--device 'telephone'" in str(home.query_one("#home-error", Static).render())
        home.query_one("#device", Input).value = "sim"
        home.query_one("#attempts", Input).value = "99"
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert "--attempts 99" in str(home.query_one("#home-error", Static).render())
        home.query_one("#scenario").focus()
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, RunsScreen))


def test_full_resolution_frames_are_scaled_to_their_cells_with_the_action_drawn() -> None:
    phone = PhoneView("tgp")
    phone.box = (40, 44)
    img = Image.new("RGB", (1080, 2400), (0, 0, 0))
    encoded, fit = phone.encode(img, {"type": "tap", "x": 540, "y": 1200})
    scaled = encoded.image
    assert (encoded.cols, encoded.rows) == (fit.cols, fit.rows)
    assert scaled.width <= fit.cols * phone.cell[0] and scaled.height <= fit.rows * phone.cell[1]
    assert scaled.width > (fit.cols - 1) * phone.cell[0] or scaled.height > (fit.rows - 1) * phone.cell[1]
    centre: Any = scaled.getpixel((scaled.width // 2, scaled.height // 2))
    assert centre == phone.overlay_colors.mark
    assert phone.prepare(img) is None  # no half-cell frames for a full-resolution view
    # magnified x2 around the tap: the tap stays in the middle, at twice the size
    phone.magnify(2, (540, 1200))
    zoomed, zfit = phone.encode(img, {"type": "tap", "x": 540, "y": 1200})
    assert phone.viewport == (270, 600, 810, 1800) and (zfit.ox, zfit.oy) == (270, 600)
    assert zoomed.image.getpixel((zoomed.image.width // 2, zoomed.image.height // 2)) == phone.overlay_colors.mark
