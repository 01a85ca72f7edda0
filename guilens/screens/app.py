"""The guilens Textual app: one app, several screens (home, run, replay, runs browser).

The app itself only holds what all screens share: the stylesheet, the help
key, the command palette (which lists the current screen's keys, so every
key can also be found by name), the phone setup chosen before the app
started, the settings, and the graphics layer that draws full-resolution
phones (`GraphicsApp`). `launch.py` builds it with the screen to open first.

Leaving: a screen opened from another (a run or the runs browser opened from
home, a replay from the runs browser) goes back to it on `q`/Esc; the first
screen quits. Quitting while an episode runs asks once, whichever screen is
in view, and lets every running episode be recorded as aborted first.

Screenshots (the palette's "Screenshot") go to a folder that exists: the
`screenshot_dir` setting, else beside the run in view (`<run>/screenshots/`),
else `<run_dir>/screenshots/`. Textual's own default is `~/Downloads`, which a
server or a fresh account does not have, and its failure notice gives no
reason; here the folder is created first and either notice says where.

The theme: the app starts with the `theme` setting, and a theme picked in the palette is written
back to the settings file (`theme = "..."`), so the next start has it. An app built without
settings (tests, embedding) neither reads nor writes the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual import events, work
from textual.app import SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from guilens.screens.phone_setup import PhoneSetup
from guilens.screens.widgets.graphics_view import GraphicsApp


def is_first_screen(screen: Screen[Any]) -> bool:
    """Whether `screen` is the one the app opened with (below it there is only Textual's own):
    `q` quits from there, and goes back from any screen opened on top of another."""
    stack = screen.app.screen_stack
    return screen not in stack or stack.index(screen) <= 1


def run_directory_of(screen: Screen[Any]) -> Path | None:
    """The run a screen shows, if any: a screen's own `run_directory()`, else the run holding the
    episode directory it shows (`path`: the replay, the judge)."""
    own = getattr(screen, "run_directory", None)
    if callable(own):
        found = own()
        return Path(found) if found else None
    path = getattr(screen, "path", None)
    if isinstance(path, Path) and (path / "episode.json").is_file():
        for parent in list(path.parents)[:3]:
            if (parent / "run.json").is_file():
                return parent
        return path.parent
    return None


class GuilensApp(GraphicsApp):
    CSS_PATH = Path(__file__).parent / "app.tcss"
    TITLE = "guilens"
    BINDINGS = [
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(self, first: Callable[[], Screen[Any]], *, renderer: PhoneSetup | str = "halfcell",
                 settings: Any = None) -> None:
        super().__init__()
        self._first = first
        self.renderer: PhoneSetup | str = renderer
        self.settings = settings
        """The settings the app was started with (None: each screen's own, else the defaults)."""
        self.run_result: Any = None
        """What the last run returned (`launch.run_tui` hands it to the CLI)."""
        self.run_error: BaseException | None = None
        """What stopped the last run, when it did not finish (a full disk, a phone not found): `run_tui`
        raises it once the terminal is restored, so the CLI says it in one line and exits non-zero."""
        self._quitting = False

    def on_mount(self) -> None:
        self._apply_saved_theme()
        self.theme_changed_signal.subscribe(self, self._save_theme)
        self.push_screen(self._first())
        note = getattr(self.renderer, "note", "")
        if note:
            self.notify(note, title="Phone", timeout=8)

    # -- the theme --------------------------------------------------------------------------------
    def _apply_saved_theme(self) -> None:
        name = getattr(self.settings, "theme", None)
        if not name:
            return
        if name not in self.available_themes:
            self.notify(f"The theme setting {name!r} is not a theme here; using {self.theme}. "
                        "Pick one with the palette's Theme.", title="Theme", severity="warning", timeout=8)
            return
        self.theme = name

    def _save_theme(self, theme: Any) -> None:
        """Write the theme just chosen into the settings file (see the module docstring)."""
        if self.settings is None or theme.name == self.settings.theme:
            return
        from guilens.config import ConfigError, save_setting

        try:
            path = save_setting("theme", theme.name)
        except (ConfigError, OSError) as err:
            reason = getattr(err, "strerror", None) or str(err)
            self.notify(f"Theme not saved: {reason}", title="Theme", severity="error", timeout=10)
            return
        self.settings.theme = theme.name
        self.log(f"theme {theme.name!r} saved in {path}")

    def action_help(self) -> None:
        from guilens.screens.modals import HelpScreen, help_sections_from

        if isinstance(self.screen, HelpScreen):
            return
        title = f"Keys · {getattr(self.screen, 'HELP_TITLE', self.screen.__class__.__name__)}"
        self.push_screen(HelpScreen(title, help_sections_from(self.screen)))

    # -- leaving ---------------------------------------------------------------------------------
    def running_screens(self) -> list[Any]:
        """The screens whose episode is still running (run screens), bottom to top."""
        return [s for s in self.screen_stack if getattr(s, "running", False)]

    async def action_quit(self) -> None:
        """Quit; while an episode runs, ask once first, then let each run record its episode as aborted."""
        from guilens.screens.modals import ConfirmScreen

        running = self.running_screens()
        if not running:
            self.exit()
            return
        if self._quitting:
            return  # already asking (or already stopping): one question, however many keys

        def answer(yes: bool | None) -> None:
            if yes:
                self._stop_and_exit(running)
            else:
                self._quitting = False

        self._quitting = True
        what = "An episode is running" if len(running) == 1 else f"{len(running)} runs are going"
        self.push_screen(ConfirmScreen(f"{what}. Cancel and quit?", yes="Cancel and quit", no="Keep running"),
                         answer)

    @work(exclusive=True, group="quit")
    async def _stop_and_exit(self, screens: list[Any]) -> None:
        for screen in screens:
            await screen.stop()
        self.exit()

    # -- screenshots ------------------------------------------------------------------------------
    def screenshot_folder(self) -> Path:
        """Where a screenshot goes now (see the module docstring)."""
        settings = self.settings if self.settings is not None else getattr(self.screen, "settings", None)
        chosen = getattr(settings, "screenshot_dir", None)
        if chosen:
            return Path(chosen).expanduser()
        for screen in reversed(self.screen_stack):
            run = run_directory_of(screen)
            if run is not None:
                return run / "screenshots"
        return Path(getattr(settings, "run_dir", None) or "runs") / "screenshots"

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None:
        folder = Path(path) if path else self.screenshot_folder()
        driver = self._driver
        if driver is None or not driver.is_web:  # in a browser the file is downloaded, not saved here
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                self.notify(f"Not saved: cannot create the folder {folder}: {err.strerror or err}",
                            title="Screenshot", severity="error", timeout=10)
                return None
        return super().deliver_screenshot(filename, str(folder.absolute()), time_format)

    def on_delivery_complete(self, event: events.DeliveryComplete) -> None:
        if event.name != "screenshot":
            return
        event.prevent_default()  # Textual's own notice quotes the path; this one says it plainly
        where = f" to {event.path}" if event.path is not None else ""
        self.notify(f"Saved{where}", title="Screenshot", timeout=8)

    def on_delivery_failed(self, event: events.DeliveryFailed) -> None:
        if event.name != "screenshot":
            return
        event.prevent_default()  # Textual's own notice says only "Failed to save screenshot"
        err = event.exception
        reason = getattr(err, "strerror", None) or str(err) or type(err).__name__
        where = getattr(err, "filename", None)
        self.notify(f"Not saved{f' to {where}' if where else ''}: {reason}", title="Screenshot",
                    severity="error", timeout=10)

    # -- the palette -------------------------------------------------------------------------------
    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        # Textual's own commands first; a screen key named like one of them (home's `q` Quit) would be
        # a second entry doing the same thing, so the palette lists each name once.
        titles: set[str] = set()
        for command in super().get_system_commands(screen):
            titles.add(command.title.casefold())
            yield command
        seen: set[str] = set()
        for binding in getattr(screen, "BINDINGS", []):
            if not isinstance(binding, Binding) or not binding.description or binding.action in seen:
                continue
            if binding.description.casefold() in titles:
                continue
            if not screen.check_action(binding.action.partition("(")[0], ()):  # hidden or disabled now
                continue
            seen.add(binding.action)
            key = binding.key_display or binding.key.split(",")[0]
            yield SystemCommand(binding.description, f"key: {key}",
                                lambda action=binding.action: self._run_screen_action(screen, action))

    def _run_screen_action(self, screen: Screen[Any], action: str) -> None:
        self.call_later(screen.run_action, action)
