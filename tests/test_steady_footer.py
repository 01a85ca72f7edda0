"""`SteadyFooter` rebuilds its keys only when the keys shown change: focus moving between widgets
that show the same keys (the replay's list, after the `g` prompt closes) leaves them alone; focus
on a widget with keys of its own shows them, as Textual's `Footer` does."""

from __future__ import annotations

from pathlib import Path

import tui_helpers  # noqa: F401  (pins the phones' cell size)
from test_replay_speed import record, settled
from test_tui_run import wait_for
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets._footer import FooterKey

from guilens.screens.app import GuilensApp
from guilens.screens.modals import PromptScreen
from guilens.screens.replay_screen import ReplayScreen
from guilens.screens.widgets.steady_footer import SteadyFooter


class Plain(Widget, can_focus=True):
    DEFAULT_CSS = "Plain { height: 3; }"


class Extra(Widget, can_focus=True):
    DEFAULT_CSS = "Extra { height: 3; }"
    BINDINGS = [Binding("x", "extra", "Extra key")]

    def action_extra(self) -> None:
        pass


class Host(App[None]):
    BINDINGS = [Binding("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Plain(id="a")
        yield Plain(id="b")
        yield Extra(id="c")
        yield SteadyFooter()


def keys(app: App[None]) -> list[str]:
    return sorted(k.description for k in app.screen.query(FooterKey))


async def test_keys_are_rebuilt_only_when_they_change() -> None:
    app = Host()
    async with app.run_test(size=(80, 20)) as pilot:
        app.query_one("#a").focus()
        await wait_for(pilot, lambda: "Quit" in keys(app), what="the footer's keys")
        first = list(app.screen.query(FooterKey))
        app.query_one("#b").focus()  # the same keys: the same widgets
        await pilot.pause(0.2)
        assert list(app.screen.query(FooterKey)) == first
        app.query_one("#c").focus()  # a key more: rebuilt, as Footer would
        await wait_for(pilot, lambda: "Extra key" in keys(app), what="the focused widget's key")
        app.query_one("#a").focus()
        await wait_for(pilot, lambda: "Extra key" not in keys(app), what="the key gone again")


async def test_closing_the_go_to_prompt_keeps_the_replay_footer(tmp_path: Path) -> None:
    path = record(tmp_path / "attempt-1", 12)
    app = GuilensApp(lambda: ReplayScreen(path))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await settled(pilot, screen, 0)
        footer_keys = list(screen.query(FooterKey))
        assert footer_keys and "Go to" in [k.description for k in footer_keys]
        await pilot.press("g")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="the go-to prompt")
        await pilot.press("9", "enter")
        await settled(pilot, screen, 8)
        assert list(screen.query(FooterKey)) == footer_keys  # not removed and mounted again


