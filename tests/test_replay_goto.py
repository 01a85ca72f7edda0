"""`g` in the replay: the step whose number is typed so far is prepared while the prompt is open
(`ReplayLoader.expect`), so Enter shows it in the paint that closes the prompt; each keystroke
supersedes the last one's work, a step typed on the way (the "2" of "25") never shows, and a
request still to be delivered is never dropped for a step only typed."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import tui_helpers  # noqa: F401  (pins the phones' cell size)
from test_replay_paint import Paints, open_loader, state, wait
from test_replay_speed import record, same, settled
from test_tui_run import wait_for

from guilens.episode import EpisodeReader
from guilens.screens import replay_decode
from guilens.screens.app import GuilensApp
from guilens.screens.modals import PromptScreen
from guilens.screens.replay_frames import Pair, ReplayLoader
from guilens.screens.replay_screen import ReplayScreen
from guilens.screens.widgets.phone import PhoneView
from guilens.screens.widgets.step_list import StepList


@pytest.fixture(scope="module")
def episode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(tmp_path_factory.mktemp("replay-goto") / "attempt-1", 30)


async def open_prompt(pilot: object, app: GuilensApp) -> None:
    await pilot.press("g")  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="the go-to prompt")


async def test_the_step_typed_is_ready_before_enter_and_shown_in_the_paint_that_closes_the_prompt(
        episode: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reader = EpisodeReader(episode)
    app = GuilensApp(lambda: ReplayScreen(episode))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await settled(pilot, screen, 0)
        loader = screen.loader
        assert loader is not None and loader.cached(24) is None
        await open_prompt(pilot, app)
        for digit in "25":  # as a person types: the loader works between the keys
            await pilot.press(digit)
            await pilot.pause(0.1)
        await wait_for(pilot, lambda: loader.cached(24) is not None, what="step 25 prepared while typing")
        assert screen.index == 0  # prepared, not shown: the prompt is still open
        paints = Paints(lambda: state(app))
        paints.install(monkeypatch)
        await pilot.press("enter")
        await settled(pilot, screen, 24)
        shown = [s for s in paints.seen if s is not None]
        assert shown and shown[0] == ("step 25 of 30", 24, 25)  # no paint of step 1 on the way
        before, after = screen.query_one("#before", PhoneView), screen.query_one("#after", PhoneView)
        assert same(before.shown.image, reader.screen(24)) and same(after.shown.image, reader.screen(25))
        assert before.canvas is not None and before.canvas.frame is not None
        assert before.canvas.frame.action == reader.steps[24].action
        assert screen.query_one("#step-list", StepList).highlighted == 24


async def test_typed_at_once_ends_on_the_step_typed_and_never_shows_one_typed_on_the_way(
        episode: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reader = EpisodeReader(episode)
    app = GuilensApp(lambda: ReplayScreen(episode))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await settled(pilot, screen, 0)
        paints = Paints(lambda: state(app))
        paints.install(monkeypatch)
        was = 0
        for number, want in (("27", 26), ("2", 1), ("19", 18)):
            await open_prompt(pilot, app)
            paints.seen.clear()
            await pilot.press(*number, "enter")  # no time between the keys: each supersedes the last
            await settled(pilot, screen, want)
            before = screen.query_one("#before", PhoneView)
            assert same(before.shown.image, reader.screen(want))
            assert screen.query_one("#detail-box").border_title == f"step {want + 1} of 30"
            # "2" of "27" and "1" of "19" were prepared for a moment; only the step left and the one
            # typed are ever painted, each beside its own screens
            for title, b, a in (s for s in paints.seen if s is not None):
                step = int(title.split()[1]) - 1
                assert step in (was, want), f"{title} painted on the way to step {want + 1}"
                assert b is None or (b, a) == (step, step + 1), f"{title} painted beside the screens of step {b}"
            was = want


async def test_escape_leaves_the_step_in_view(episode: Path) -> None:
    app = GuilensApp(lambda: ReplayScreen(episode))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await settled(pilot, screen, 0)
        await open_prompt(pilot, app)
        await pilot.press("1", "2", "escape")
        await pilot.pause(0.3)
        assert screen.index == 0 and screen.query_one("#detail-box").border_title == "step 1 of 30"


# -- the loader alone ------------------------------------------------------------------------


@pytest.fixture
def loader(episode: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ReplayLoader, list[Pair]]]:
    yield from open_loader(episode, monkeypatch)


def test_an_expected_step_is_prepared_and_not_delivered(loader: tuple[ReplayLoader, list[Pair]]) -> None:
    made, delivered = loader
    made.expect(20)
    wait(lambda: made.cached(20) is not None)
    time.sleep(0.2)
    assert delivered == [] and made.screens.decodes == 2  # its two screens, nothing around it
    made.request(20)
    wait(lambda: len(delivered) == 1)
    assert delivered[0].index == 20 and made.screens.decodes == 2  # served from what was prepared


def test_a_newer_expect_supersedes_the_last_one(loader: tuple[ReplayLoader, list[Pair]],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    made, delivered = loader
    read = replay_decode.read_shot
    monkeypatch.setattr(replay_decode, "read_shot", lambda reader, index: (time.sleep(0.3), read(reader, index))[1])
    made.expect(2)  # "2" ...
    time.sleep(0.05)
    made.expect(26)  # ... "27": the loader stops waiting for step 3 and prepares step 27
    wait(lambda: made.cached(26) is not None, timeout=5.0)
    assert made.cached(2) is None  # its screens decoded on their own threads, but no frames were made for it
    assert delivered == []


def test_an_expect_never_drops_a_request_still_to_be_delivered(loader: tuple[ReplayLoader, list[Pair]],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    made, delivered = loader
    read = replay_decode.read_shot
    monkeypatch.setattr(replay_decode, "read_shot", lambda reader, index: (time.sleep(0.2), read(reader, index))[1])
    made.request(5)
    time.sleep(0.05)
    made.expect(17)  # typed while step 6 is still decoding: step 6 is still the one shown
    wait(lambda: len(delivered) == 1)
    assert delivered[0].index == 5
    wait(lambda: made.cached(17) is not None)  # then the step typed
    made.painted(5)
    time.sleep(0.3)
    assert [p.index for p in delivered] == [5]
