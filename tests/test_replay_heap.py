"""The collector while a replay is in front: no pass lands in the first paint, passes run when the
person is reading a step (or at least every `MOST_S` with a key held down), and the collector is back
on as soon as another screen is in front or the replay closes."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import tui_helpers  # noqa: F401  (pins the phones' cell size)
from test_replay_speed import record, settled
from test_tui_run import wait_for
from textual.app import ComposeResult

from guilens.screens import replay_heap as heap
from guilens.screens.app import GuilensApp
from guilens.screens.modals import PromptScreen
from guilens.screens.replay_frames import Pair
from guilens.screens.replay_screen import ReplayScreen
from guilens.screens.widgets.phone import PhoneView


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    gc.unfreeze()
    if was:
        gc.enable()
    else:
        gc.disable()


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Node:
    """One half of a reference cycle, which only the collector can free."""

    other: Node | None = None


def cycle() -> weakref.ref[Node]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def allocate() -> list[list[int]]:
    """More objects than a young generation holds, so a pass is worth running."""
    return [[i] for i in range(gc.get_threshold()[0] * 2)]


def test_pause_turns_automatic_passes_off_and_resume_back_on() -> None:
    gc.enable()
    collector = heap.Collector()
    collector.pause()
    assert not gc.isenabled() and collector.paused
    collector.pause()  # twice is once
    collector.resume()
    assert gc.isenabled() and not collector.paused
    collector.resume()
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    collector = heap.Collector()
    collector.pause()
    collector.resume()
    assert not gc.isenabled()  # not the replay's to turn on


def test_a_pass_waits_for_the_person_to_stop_moving() -> None:
    clock = Clock()
    collector = heap.Collector(clock)
    collector.pause()
    dead = cycle()
    keep = allocate()
    collector.asked_for_step()
    clock.now += heap.IDLE_S / 2
    assert not collector.tick() and dead() is not None  # a step is still being shown
    clock.now += heap.IDLE_S
    assert collector.tick() and collector.passes == 1
    assert dead() is None  # the cycle was collected
    assert len(keep) > 0


def test_a_key_held_down_still_gets_a_pass_every_most_s() -> None:
    clock = Clock()
    collector = heap.Collector(clock)
    collector.pause()
    passes_at: list[float] = []
    start = clock.now
    keep: list[Any] = []
    while clock.now - start < 3 * heap.MOST_S:
        clock.now += 0.03  # a key repeating every 30 ms
        collector.asked_for_step()
        keep.append(allocate())
        if collector.tick():
            passes_at.append(clock.now - start)
    assert len(passes_at) >= 2
    assert all(b - a <= heap.MOST_S + 0.05 for a, b in zip([0.0, *passes_at], passes_at, strict=False))


def test_the_old_generation_is_walked_as_often_as_cpythons_rule_would() -> None:
    clock = Clock()
    collector = heap.Collector(clock)
    gc.collect()  # no young pass counted since the last full one, whatever ran before this test
    collector.pause()
    full = gc.get_stats()[2]["collections"]
    keep: list[Any] = []
    every = gc.get_threshold()[2] + 1  # `threshold2` young passes, then a full one
    fulls: list[int] = []
    for tick in range(1, 3 * every + 1):
        keep.append(allocate())
        clock.now += heap.IDLE_S * 2
        assert collector.tick()
        if gc.get_stats()[2]["collections"] > full + len(fulls):
            fulls.append(tick)
    assert fulls == [every, 2 * every, 3 * every]  # the rest were young


class Passes:
    """The collector's passes (their generations) while `watching` is set, through `gc.callbacks`."""

    def __init__(self) -> None:
        self.seen: list[int] = []
        self.watching = False

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and self.watching:
            self.seen.append(info["generation"])

    def __enter__(self) -> Passes:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)


async def test_no_pass_runs_in_the_first_paint_and_the_collector_follows_the_screen_in_front(
        tmp_path: Path) -> None:
    gc.enable()
    path = record(tmp_path / "attempt-1", 60)
    watched = Passes()

    def painted() -> None:
        watched.watching = False

    class Watched(ReplayScreen):
        def compose(self) -> ComposeResult:
            watched.watching = True  # from the screen's compose (reading the episode comes before it)
            yield from super().compose()

        def _show(self, pair: Pair) -> None:
            self.call_after_refresh(painted)  # before the screen's own after-paint work (its settle)
            super()._show(pair)

    with watched:
        app = GuilensApp(lambda: Watched(path))
        async with app.run_test(size=(160, 48)) as pilot:
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            await wait_for(pilot, lambda: not watched.watching, what="the first step painted")
            assert watched.seen == []  # not one pass, young or full, from the screen's compose to its first paint
            await settled(pilot, screen, 0)
            assert not gc.isenabled()
            await pilot.press("right", "right", "right")
            await settled(pilot, screen, 3)
            await wait_for(pilot, lambda: screen.collector.passes > 0, what="a pass while the step is read")
            await pilot.press("question_mark")  # the help over the replay: its paints are not the replay's
            await wait_for(pilot, lambda: app.screen is not screen, what="the help")
            assert gc.isenabled()
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen, what="back to the replay")
            assert not gc.isenabled()
        assert gc.isenabled() and gc.get_freeze_count() == 0  # closed: the collector as it was


def shown(screen: ReplayScreen, i: int) -> bool:
    """Step `i` on both phones, made from its own screens."""
    before, after = screen.query_one("#before", PhoneView), screen.query_one("#after", PhoneView)
    want_b, want_a = screen.screens.ready(i), screen.screens.ready(i + 1)
    return (screen.index == i and screen.app.screen is screen and want_b is not None and want_a is not None
            and before._frame_for is before.shown.image is want_b.image
            and after._frame_for is after.shown.image is want_a.image)


async def test_no_pass_runs_while_the_step_typed_at_g_is_shown(tmp_path: Path) -> None:
    """`g`'s prompt is a screen over the replay, so the passes are on while it is open; Enter shows the
    step before the replay hears it is in front again, and that paint is the replay's: no pass in it."""
    gc.enable()
    path = record(tmp_path / "attempt-1", 60)
    with Passes() as watched:
        app = GuilensApp(lambda: ReplayScreen(path))
        async with app.run_test(size=(160, 48)) as pilot:
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            await settled(pilot, screen, 0)
            for target in (40, 7, 52):
                await pilot.press("g")
                await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="the go-to prompt")
                assert gc.isenabled()  # a screen over the replay
                await pilot.press(*str(target + 1))
                ticked = screen.collector.passes
                watched.watching = True
                await pilot.press("enter")
                await wait_for(pilot, partial(shown, screen, target), what=f"step {target + 1}")
                watched.watching = False
                # On a loaded machine the step may take longer to show than `IDLE_S`, and `tick` may run
                # its pass meanwhile: the replay's own, and counted. None of CPython's automatic ones.
                assert len(watched.seen) == screen.collector.passes - ticked
                watched.seen.clear()
                assert not gc.isenabled()
                await settled(pilot, screen, target)  # a pass may run now: the person reads the step
