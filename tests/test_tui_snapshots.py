"""Snapshot tests (pytest-textual-snapshot). The phone renderer is pinned to the half-cell view
and the cell size to 10x20 (`tui_helpers`), so the pictures are the same on every machine;
never Kitty graphics or Sixel here. Update with `pytest tests/test_tui_snapshots.py --snapshot-update`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tui_helpers
from textual.app import App, ComposeResult
from textual.widgets import Input

from guilens.screens.app import GuilensApp
from guilens.screens.modals import AskUserScreen, HelpScreen, help_sections_from
from guilens.screens.replay_screen import ReplayScreen
from guilens.screens.run_screen import RunScreen
from guilens.screens.widgets.phone import PhoneView


@pytest.fixture(scope="module")
def episode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tui_helpers.make_fixed_episode(tmp_path_factory.mktemp("snap"))


def _no_blink(app: App[Any]) -> None:
    for box in app.query(Input):
        box.cursor_blink = False


class PhoneHost(App[None]):
    CSS = "PhoneView { width: 34; height: 1fr; border: round $accent; }"

    def __init__(self, episode: Path) -> None:
        super().__init__()
        self.episode = episode

    def compose(self) -> ComposeResult:
        yield PhoneView("halfcell")

    def on_mount(self) -> None:
        from guilens.episode import EpisodeReader

        reader = EpisodeReader(self.episode)
        self.call_after_refresh(lambda: self.query_one(PhoneView).show(reader.screen(1), reader.steps[1].action))


async def _settle(pilot: Any, cond: Any) -> None:
    for _ in range(100):
        if cond():
            break
        await pilot.pause(0.05)
    await pilot.pause(0.2)


def test_phone_view_draws_the_screen_and_the_tap(snap_compare: Any, episode: Path) -> None:
    app = PhoneHost(episode)

    async def run_before(pilot: Any) -> None:
        phone = app.query_one(PhoneView)
        await _settle(pilot, lambda: phone.canvas is not None and phone.canvas.frame is not None
                      and phone.canvas.frame.action is not None)

    assert snap_compare(app, terminal_size=(40, 34), run_before=run_before)


def _replay_app(episode: Path, steps: int) -> tuple[GuilensApp, Any]:
    app = GuilensApp(lambda: ReplayScreen(episode))

    async def run_before(pilot: Any) -> None:
        screen = app.screen
        await pilot.press(*["right"] * steps)
        await _settle(pilot, lambda: screen.index == steps
                      and screen.query_one("#after", PhoneView).canvas.frame is not None
                      and screen.query_one("#before", PhoneView).shown.image is not None)

    return app, run_before


def test_replay_screen_wide(snap_compare: Any, episode: Path) -> None:
    app, run_before = _replay_app(episode, 3)
    assert snap_compare(app, terminal_size=(200, 60), run_before=run_before)


def test_replay_screen_narrow(snap_compare: Any, episode: Path) -> None:
    app, run_before = _replay_app(episode, 2)
    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


class ModalHost(App[None]):
    CSS_PATH = GuilensApp.CSS_PATH

    def __init__(self, modal: Any) -> None:
        super().__init__()
        self.modal = modal

    def on_mount(self) -> None:
        self.push_screen(self.modal)


def test_ask_user_modal(snap_compare: Any) -> None:
    app = ModalHost(AskUserScreen("What should the note say?", "Buy milk", request_id=1, step=2))

    async def run_before(pilot: Any) -> None:
        await pilot.pause(0.1)
        _no_blink(app)

    assert snap_compare(app, terminal_size=(100, 24), run_before=run_before)


def test_run_screen_help(snap_compare: Any) -> None:
    app = ModalHost(HelpScreen("Keys · run screen", help_sections_from(RunScreen)))
    assert snap_compare(app, terminal_size=(110, 40))
