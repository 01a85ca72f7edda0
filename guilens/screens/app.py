"""The guilens Textual app: one app, several screens (home, run, replay, runs browser).

The app itself only holds what all screens share: the stylesheet, the help
key, the command palette (which lists the current screen's keys, so every
key can also be found by name), the phone setup chosen before the app
started, and the graphics layer that draws full-resolution phones
(`GraphicsApp`). `launch.py` builds it with the screen to open first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual.app import SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from guilens.screens.phone_setup import PhoneSetup
from guilens.screens.widgets.graphics_view import GraphicsApp


class GuilensApp(GraphicsApp):
    CSS_PATH = Path(__file__).parent / "app.tcss"
    TITLE = "guilens"
    BINDINGS = [
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(self, first: Callable[[], Screen[Any]], *, renderer: PhoneSetup | str = "halfcell") -> None:
        super().__init__()
        self._first = first
        self.renderer: PhoneSetup | str = renderer
        self.run_result: Any = None
        """What the last run returned (`launch.run_tui` hands it to the CLI)."""

    def on_mount(self) -> None:
        self.push_screen(self._first())
        note = getattr(self.renderer, "note", "")
        if note:
            self.notify(note, title="Phone", timeout=8)

    def action_help(self) -> None:
        from guilens.screens.modals import HelpScreen, help_sections_from

        if isinstance(self.screen, HelpScreen):
            return
        title = f"Keys · {getattr(self.screen, 'HELP_TITLE', self.screen.__class__.__name__)}"
        self.push_screen(HelpScreen(title, help_sections_from(self.screen)))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        seen: set[str] = set()
        for binding in getattr(screen, "BINDINGS", []):
            if not isinstance(binding, Binding) or not binding.description or binding.action in seen:
                continue
            if not screen.check_action(binding.action.partition("(")[0], ()):  # hidden or disabled now
                continue
            seen.add(binding.action)
            key = binding.key_display or binding.key.split(",")[0]
            yield SystemCommand(binding.description, f"key: {key}",
                                lambda action=binding.action: self._run_screen_action(screen, action))

    def _run_screen_action(self, screen: Screen[Any], action: str) -> None:
        self.call_later(screen.run_action, action)
