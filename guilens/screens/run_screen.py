"""The run screen: a live episode, and the person's hands on it.

The runner runs in one exclusive thread worker and reports through
`TextualObserver` (messages, never direct widget calls); the person steers it
through `RunControl` (pause, step, cancel, take over) and answers through the
`QuestionChannel` (the agent's questions in a modal, their own actions when at
the controls). Cancelling cancels the episode, not the app.

Each device of the run has a pane of its own (`DevicePane`: phone, trace,
memory, milestones, status), one tab each; with a single device the tab bar
is hidden. With several: pause, resume and cancel act on the whole run; `n`,
take-over, the person's moves and marks act on the device in view; a question
from any device opens a modal that names it, and brings its tab into view
unless the person is at the controls of the device they are looking at.

A phone that goes away pauses the run while it is waited for: the device's
state is `disconnected` (its status line says so, and the trace and a
notification say what the device said), and the resume key (space) asks the
phone at once rather than toggling the pause (`guilens.run.reconnect`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from PIL import Image
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import TabbedContent
from textual.worker import Worker, WorkerState

from guilens.control import QuestionChannel, Request, RunControl
from guilens.episode import Episode, Step
from guilens.screens import messages as m
from guilens.screens.app import is_first_screen
from guilens.screens.device_pane import DevicePane
from guilens.screens.human_mixin import HumanControls
from guilens.screens.observer import TextualObserver
from guilens.screens.run_feed import RunnerFeed
from guilens.screens.run_keys import RunKeys
from guilens.screens.widgets.halfcell import HalfcellFrame
from guilens.screens.widgets.human import CommandLine
from guilens.screens.widgets.keybar import KeyBar
from guilens.screens.widgets.phone import Renderer
from guilens.screens.widgets.render import Note
from guilens.screens.widgets.status import StatusLine
from guilens.screens.widgets.trace import TraceView


class RunnerLike(Protocol):
    def run(self) -> Any: ...


RunnerFactory = Callable[[list[Any], RunControl, QuestionChannel], RunnerLike]
"""Builds the runner with the TUI's observer, control and channel (`launch.run_tui` wraps `Runner`)."""


class RunScreen(RunnerFeed, HumanControls, RunKeys, Screen[None]):
    HELP_TITLE = "run screen"
    KEY_HELP = [
        ("The episode", [
            ("space", "pause / resume"), ("n", "run one step, then pause"), ("c, ctrl+c", "cancel the episode"),
            ("a", "answer the agent's question"), ("t", "take over the phone / hand it back to the agent"),
            ("m", "mark a milestone at this step (a label in the episode)"),
            ("i", "an anomaly on the phone now: ad, permission, low battery, crash (sim)"),
            ("j", "judge the finished episode"), ("r", "replay the finished episode"),
            ("z", "zoom the phone to the whole terminal"),
            ("q, Esc", "back to the screen it was opened from (home), else quit; asks first while an episode runs"),
        ]),
        ("The phone", [
            ("v", "pixels → the UI tree's text → both side by side"),
            ("+ / -", "magnify around the last action's target / less"),
            ("arrows", "pan the magnifier (while the phone has focus: click it or tab to it)"),
        ]),
        ("At the controls", [
            ("click", "tap the device pixel under the cursor"), ("drag", "swipe"),
            ("↑ ↓ Enter", "pick an element in the list and tap it"),
            ("b / h / e", "back / home / enter keys"),
            (":", "command line: type TEXT, open APP, answer TEXT, finish, wait S"),
        ]),
        ("Everywhere", [("?", "this help"), ("ctrl+p", "command palette")]),
    ]
    DEVICE_HELP = ("Several devices (one tab each)", [
        ("1 … 9", "show device N"), ("[ ]", "show the previous / next device"),
        ("space, c", "pause / cancel the whole run"),
        ("n, t, m", "step, take over, mark: the device in view"),
        ("a", "answer: the modal names the device that asks"),
    ])
    """Added to the help (before "Everywhere") once a run has more than one device."""
    BINDINGS = [
        Binding("space", "pause", "Pause"),
        Binding("n", "step", "Step"),
        Binding("c", "cancel", "Cancel"),
        Binding("ctrl+c", "cancel", "Cancel", show=False, priority=True),
        Binding("a", "answer", "Answer"),
        Binding("t", "take_over", "Take over"),
        Binding("m", "mark", "Mark"),
        Binding("i", "anomaly", "Anomaly"),
        Binding("j", "judge", "Judge"),
        Binding("r", "replay", "Replay"),
        Binding("l", "llm_calls", "LLM calls"),
        Binding("z", "zoom", "Zoom"),
        Binding("v", "cycle_view", "View"),
        Binding("plus,equals_sign", "magnify(1)", "Magnify", key_display="+", show=False),
        Binding("minus", "magnify(-1)", "Less", key_display="-", show=False),
        # `q` goes back where the screen was opened from, or quits the app when it is the first screen.
        Binding("q", "back", "Back"),
        Binding("escape", "back", "Back", show=False),
        Binding("q", "quit", "Quit"),
        # Shown only while a person is at the controls (`check_action` hides them otherwise).
        Binding("b", "device_key('back')", "Back"),
        Binding("h", "device_key('home')", "Home"),
        Binding("e", "device_key('enter')", "Enter"),
        Binding("colon", "command_line", "Command", key_display=":"),
        # Shown only when the run has several devices.
        Binding("left_square_bracket", "cycle_device(-1)", "Prev device", key_display="["),
        Binding("right_square_bracket", "cycle_device(1)", "Next device", key_display="]"),
        *[Binding(str(n), f"show_device({n})", f"Device {n}", show=False) for n in range(1, 10)],
    ]

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    """Below 120 columns the side panels narrow, and give way to the controls while a person has them."""

    state: reactive[str] = reactive("starting")
    zoomed: reactive[bool] = reactive(False)

    def __init__(
        self,
        factory: RunnerFactory,
        *,
        renderer: Renderer = "halfcell",
        task_lookup: Callable[[Episode], Any] | None = None,
        dir_lookup: Callable[[Episode], Path | None] | None = None,
        paused: bool = False,
        settings: Any = None,
    ) -> None:
        super().__init__()
        self.factory = factory
        self.renderer: Renderer = renderer
        self.task_lookup = task_lookup
        self.dir_lookup = dir_lookup
        self.settings = settings
        self.control = RunControl(paused=paused)
        self.channel = QuestionChannel()
        self.runner: Any = None
        self.observer: TextualObserver | None = None
        self.finished_dirs: list[Path] = []
        """Every finished attempt's directory, of every device, in the order they ended."""
        self.pending: dict[int, Request] = {}
        self.finished = False
        self._asking: int | None = None
        self.created_panes: list[DevicePane] = []
        """Every device pane made, in order (`new_pane`)."""

    # -- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with TabbedContent(id="devices", classes="-single"):
            yield self.new_pane(None)  # named by the first thing the runner says; more come as tabs
        yield CommandLine(id="command")
        yield KeyBar()

    def on_mount(self) -> None:
        self.observer = TextualObserver(self, prepare=self._prepare_frame)
        self.observer.attach(self.control, self.channel)
        self.run_episode()

    def _prepare_frame(self, device: str, image: Image.Image, action: dict[str, Any] | None) -> HalfcellFrame | None:
        """On the runner's thread: shrink a screen for its device's phone view (None: the view does it).
        Reads the list of panes the screen keeps, not the DOM, which only the event loop may query."""
        panes = list(self.created_panes)
        pane = next((p for p in panes if p.label == device), panes[0] if len(panes) == 1 else None)
        return pane.prepare(image, action) if pane is not None else None

    def on_unmount(self) -> None:
        # However the screen goes (quit, an error), the runner's thread must not wait forever
        # at a pause or on a question nobody will answer: the episode is recorded as aborted.
        if not self.finished:
            self.control.cancel()
            self.channel.withdraw_all()

    # -- the devices' panes -------------------------------------------------------------------
    @property
    def panes(self) -> list[DevicePane]:
        return list(self.query(DevicePane))

    @property
    def pane(self) -> DevicePane:
        """The device in view."""
        tabs = self.query_one("#devices", TabbedContent)
        active = tabs.active_pane
        return active if isinstance(active, DevicePane) else self.panes[0]

    @property
    def episode(self) -> Episode | None:
        return self.pane.episode

    @property
    def steps(self) -> list[Step]:
        return self.pane.steps

    @property
    def ui_xml(self) -> str | None:
        return self.pane.ui_xml

    @property
    def status(self) -> StatusLine:
        return self.pane.status

    @property
    def trace(self) -> TraceView:
        return self.pane.trace

    def _several_devices(self) -> None:
        """A second device appeared: show the tab bar and the device keys."""
        self.query_one("#devices", TabbedContent).remove_class("-single")
        if self.DEVICE_HELP not in self.KEY_HELP:
            self.KEY_HELP = [*self.KEY_HELP[:-1], self.DEVICE_HELP, self.KEY_HELP[-1]]
        self.refresh_bindings()

    def show_pane(self, pane: DevicePane) -> None:
        tabs = self.query_one("#devices", TabbedContent)
        if pane.id and tabs.active != pane.id:
            tabs.active = pane.id

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.pane.size_phone()
        self._update_state()

    def action_cycle_device(self, delta: int) -> None:
        panes = self.panes
        self.show_pane(panes[(panes.index(self.pane) + delta) % len(panes)])

    def action_show_device(self, n: int) -> None:
        panes = self.panes
        if 1 <= n <= len(panes):
            self.show_pane(panes[n - 1])

    def action_cycle_view(self) -> None:
        """Every device's phone changes together: people compare them."""
        view = self.pane.phone.cycle_view()
        for pane in self.panes:
            pane.phone.view = view
            pane.size_phone()
        self.notify(f"Phone: {view}", timeout=2)

    def action_magnify(self, delta: int) -> None:
        phone = self.pane.phone
        phone.magnify(phone.zoom + delta)
        if phone.zoom > 1:
            phone.focus()  # so the arrows pan

    def watch_zoomed(self, zoomed: bool) -> None:
        self.set_class(zoomed, "-zoomed")
        for pane in self.panes:
            pane.zoomed = zoomed
            pane.size_phone()

    # -- the worker ----------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="episode", exit_on_error=False, name="episode")
    def run_episode(self) -> Any:
        assert self.observer is not None
        self.runner = self.factory([self.observer], self.control, self.channel)
        return self.runner.run()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "episode":
            return
        if event.state == WorkerState.ERROR:
            err = event.worker.error
            self.app.run_error = err  # type: ignore[attr-defined]
            self.trace.add(Note(f"the run stopped with an error: {type(err).__name__}: {err}", "error"))
            self.notify(f"{type(err).__name__}: {err}", title="Run failed", severity="error", timeout=10)
        if event.state == WorkerState.CANCELLED:
            # The app is closing (quit, a closed browser tab): Textual cancels the worker before the
            # screen unmounts, so release a runner thread blocked at the gate or on a question here,
            # or the process waits for it forever.
            self.control.cancel()
            self.channel.withdraw_all()
        if event.state == WorkerState.SUCCESS:
            self.app.run_result = event.worker.result  # type: ignore[attr-defined]
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            self._set_finished()

    def _set_finished(self) -> None:
        if self.finished:
            return
        self.finished = True
        self.pending.clear()
        for pane in self.panes:
            if not pane.status.ended:
                pane.status.ended = time.monotonic()
        self._update_state()

    @property
    def running(self) -> bool:
        workers = [w for w in self.workers if w.group == "episode" and w.node is self]
        return any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in workers) and not self.finished

    # -- state -------------------------------------------------------------------------------------
    def _state_of(self, pane: DevicePane) -> str:
        """What a device is doing, from the control, its open requests and what its runner said."""
        kinds = {r.kind for r in self.pending.values() if self.pane_of_request(r) is pane}
        if self.finished:
            return "finished"
        if "question" in kinds or "start" in kinds:
            return "waiting"
        if self.control.is_human(pane.label) or "action" in kinds:
            return "human"
        if self.control.cancelled:
            return "cancelling"
        if pane.runner_state == "disconnected":
            return "disconnected"
        if self.control.paused:
            return "paused"
        if pane.runner_state == "finished" and pane.episode is not None:
            return "finished"  # its attempt is over and no other has started on it (yet)
        if pane.runner_state in ("waiting", "human"):
            return pane.runner_state
        return "running"

    async def on_state_changed(self, msg: m.StateChanged) -> None:
        """A phone gone: say what the device said, once per wait (`RunnerFeed` updates the pane).
        Textual also calls `RunnerFeed.on_state_changed`, after this one."""
        ep = msg.episode
        if msg.state != "disconnected" or ep is None or not self.is_attached:
            return
        text = ep.error or f"{ep.device}: the phone went away"
        self.notify(f"{text}\nspace: try it now", title="Phone gone: the run waits for it", severity="warning",
                    timeout=8)
        pane = next((p for p in self.panes if p.label == ep.device), None)
        if pane is not None:
            pane.trace.add(Note(f"⚡ {text}", "warning"))

    def action_pause(self) -> None:
        """Space: while the phone in view is gone, ask it now (the run resumes, and pauses again if
        it still does not answer); otherwise pause or resume."""
        if self.state == "disconnected":
            self.control.resume()
            self.notify("Asking the phone…", timeout=2)
            return
        super().action_pause()

    def _update_state(self) -> None:
        tabs = self.query_one("#devices", TabbedContent)
        for pane in self.panes:
            pane.set_state(self._state_of(pane))
            if pane.id:
                tabs.get_tab(pane.id).label = pane.tab_title()
        state = self.pane.state
        if state == "human" and self.state != "human":
            self.focus_elements(self.pane)  # the controls just appeared: the keys go to their list
        self.state = state
        self.set_class(state == "human", "-human")
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        live = not self.finished
        if action in ("pause", "step", "cancel", "take_over", "mark", "anomaly"):
            return True if live else None
        if action == "answer":
            return any(r.kind == "question" for r in self.pending.values())
        if action in ("judge", "replay"):
            return bool(self.finished_dirs)
        if action == "back":
            return not is_first_screen(self)
        if action == "quit":
            return is_first_screen(self)
        if action in ("device_key", "command_line"):
            return self.state == "human"
        if action in ("cycle_device", "show_device"):
            return len(self.panes) > 1
        return True
