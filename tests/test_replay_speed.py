"""The replay's fast paths stay correct: keys pressed faster than screens decode end on the right
step's frames and row; prefetching reads the neighbours, not the episode; the heap frozen while
the replay is open is thawed when it closes; the step list draws only the rows in view; a broken
screen file is one clear line, not a crash."""

from __future__ import annotations

import gc
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import tui_helpers  # noqa: F401  (pins the phones' cell size)
from PIL import ImageChops
from test_tui_run import wait_for

from guilens.actions import parse_action
from guilens.device.sim import SimDevice
from guilens.episode import Episode, EpisodeReader, Recorder, Step, Timings
from guilens.screens.app import GuilensApp
from guilens.screens.replay_screen import ReplayScreen
from guilens.screens.widgets.phone import PhoneView
from guilens.screens.widgets.step_list import StepList

APPS = ["notes", "calculator", "contacts", "calendar", "clock", "messages", "settings", "shop"]


def record(out: Path, steps: int) -> Path:
    """`steps` steps on the sim through the real recorder: apps opened and left, so screens differ."""
    dev = SimDevice()
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    rec = Recorder(out, Episode(task="wander", instruction="x", device="sim", timings=Timings(started_at=t0)))
    for i in range(steps):
        obs = dev.observe()
        action: dict[str, Any] = ({"type": "open_app", "app": APPS[(i // 2) % len(APPS)]} if i % 2 == 0
                                  else {"type": "key", "key": "home"})
        dev.act(parse_action(action))
        rec.record_step(Step(index=i, started_at=t0 + timedelta(seconds=i), ended_at=t0 + timedelta(seconds=i + 1),
                             thought=f"thought {i}", action=action), obs.screenshot, obs.ui_xml)
    final = dev.observe()
    rec.finish("success", final_screen=final.screenshot, final_ui=final.ui_xml)
    return out


@pytest.fixture(scope="module")
def episode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(tmp_path_factory.mktemp("replay-speed") / "attempt-1", 24)


def same(a: Any, b: Any) -> bool:
    return a is not None and b is not None and ImageChops.difference(a, b).getbbox() is None


async def settled(pilot: Any, screen: ReplayScreen, i: int) -> None:
    """Wait until step `i` is fully shown: its frames made from its screens, its row lit."""
    before, after = screen.query_one("#before", PhoneView), screen.query_one("#after", PhoneView)
    await wait_for(pilot, lambda: screen.index == i and before.canvas is not None and before.canvas.frame is not None
                   and after.canvas is not None and after.canvas.frame is not None
                   and before._frame_for is before.shown.image and after._frame_for is after.shown.image,
                   what=f"step {i + 1} shown")
    await pilot.pause(0.3)  # anything stale still in flight would land now


async def test_keys_pressed_fast_end_on_the_right_frames_and_row(episode: Path) -> None:
    reader = EpisodeReader(episode)
    app = GuilensApp(lambda: ReplayScreen(episode))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        before, after = screen.query_one("#before", PhoneView), screen.query_one("#after", PhoneView)
        steps = screen.query_one("#step-list", StepList)
        for keys, want in ((["right"] * 7 + ["left"] * 2, 5), (["end", "home"] + ["right"] * 3, 3),
                           (["end", "left", "left", "left"], len(reader.steps) - 4),
                           (["down"] * 4 + ["up"], len(reader.steps) - 2)):  # down stops at the last
            await pilot.press(*keys)  # each press lands before the last one's screens are decoded
            await settled(pilot, screen, want)
            assert steps.highlighted == want
            assert screen.query_one("#detail-box").border_title == f"step {want + 1} of {len(reader.steps)}"
            assert f"thought {want}" in str(screen.query_one("#step-detail").render())
            assert same(before.shown.image, reader.screen(want)) and same(after.shown.image, reader.screen(want + 1))
            assert before.canvas is not None and before.canvas.frame is not None
            assert before.canvas.frame.action == reader.steps[want].action
            assert after.canvas is not None and after.canvas.frame is not None and after.canvas.frame.action is None


async def test_prefetch_reads_the_neighbours_not_the_episode(episode: Path) -> None:
    app = GuilensApp(lambda: ReplayScreen(episode))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await settled(pilot, screen, 0)
        loader = screen.loader
        assert loader is not None
        await wait_for(pilot, lambda: loader.cached(2) is not None, what="steps 2 and 3 prepared ahead")
        await pilot.pause(0.3)
        # step 1's two screens, and the next two steps' (one new screen each); nothing twice
        assert screen.screens.decodes == 4
        for i in (1, 2, 3):
            await pilot.press("right")
            await settled(pilot, screen, i)
        await wait_for(pilot, lambda: loader.cached(4) is not None, what="step 5 prepared ahead")
        assert screen.screens.decodes <= 4 + 3  # each step on reads one screen more, ahead
        assert screen.screens.decodes < len(screen.steps) // 2
        assert gc.get_freeze_count() > 0  # the app's objects are left out of the collector's passes...
    assert gc.get_freeze_count() == 0  # ...until the replay closes


async def test_the_step_list_draws_only_the_rows_in_view(tmp_path: Path) -> None:
    reader = EpisodeReader(record(tmp_path / "attempt-1", 120))
    drawn: list[int] = []

    class Counting(ReplayScreen):
        def _row(self, i: int) -> Any:
            drawn.append(i)
            return super()._row(i)

    app = GuilensApp(lambda: Counting(reader.dir))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await settled(pilot, screen, 0)
        assert 0 < len(set(drawn)) <= 40 and max(drawn) < 40  # the rows in view, not 120
        drawn.clear()
        await pilot.press("end")
        await settled(pilot, screen, 119)
        assert min(drawn) >= 119 - 40 and screen.query_one("#step-list", StepList).highlighted == 119


async def test_a_broken_screen_file_is_one_clear_line(tmp_path: Path) -> None:
    path = record(tmp_path / "attempt-1", 4)
    (path / "screens" / "0001.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    app = GuilensApp(lambda: ReplayScreen(path))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await wait_for(pilot, lambda: any("0001.png" in n.message for n in app._notifications), what="the notice")
        notice = next(n.message for n in app._notifications if "0001.png" in n.message)
        assert "cannot read this screen" in notice and "\n" not in notice
        await pilot.press("right", "right")
        await settled(pilot, screen, 2)  # the steps after it still replay
        assert app.is_running


async def test_a_far_jump_typed_at_g_finds_the_lists_rows_made(tmp_path: Path) -> None:
    """A long episode's far jump lands among rows never drawn: they are made while the number is
    typed (`StepList.prepare_jump`), so from Enter to the step shown no row of the list is built."""
    from guilens.screens.modals import PromptScreen

    path = record(tmp_path / "attempt-1", 150)
    app = GuilensApp(lambda: ReplayScreen(path))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await settled(pilot, screen, 0)
        steps = screen.query_one("#step-list", StepList)
        built: list[int] = []
        row = steps._row
        steps._row = lambda i: (built.append(i), row(i))[1]
        kept = steps._lines.keys  # the list's kept lines (an LRUCache: its keys, it is not iterable)
        for target in (120, 8, 95, 60, 140):
            await pilot.press("g")
            await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="the go-to prompt")
            await pilot.press(*str(target + 1))
            # The last digit's prompt change has reached the list: the target's lit line is kept.
            await wait_for(pilot, lambda t=target: any(k[0] == t and k[3] for k in kept()),
                           what=f"row {target + 1} made while typing")
            built.clear()
            await pilot.press("enter")
            await settled(pilot, screen, target)
            assert steps.highlighted == target and built == [], (target, built)
