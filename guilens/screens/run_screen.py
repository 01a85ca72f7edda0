"""The run screen: a live episode, and the person's hands on it.

The runner runs in one exclusive thread worker and reports through
`TextualObserver` (messages, never direct widget calls); the person steers it
through `RunControl` (pause, step, cancel, take over) and answers through the
`QuestionChannel` (the agent's questions in a modal, their own actions when at
the controls). Cancelling cancels the episode, not the app.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer
from textual.worker import Worker, WorkerState

from guilens.control import QuestionChannel, Request, RunControl
from guilens.episode import Episode, Memory, Step
from guilens.screens.human_mixin import HumanControls
from guilens.screens.observer import TextualObserver
from guilens.screens.run_feed import RunnerFeed
from guilens.screens.widgets.human import CommandLine, HumanPanel
from guilens.screens.widgets.memory import MemoryView
from guilens.screens.widgets.milestones import MilestoneView
from guilens.screens.widgets.phone import PhoneView, Renderer
from guilens.screens.widgets.render import Mark, Note
from guilens.screens.widgets.status import StatusLine
from guilens.screens.widgets.trace import TraceView


class RunnerLike(Protocol):
    def run(self) -> Any: ...


RunnerFactory = Callable[[list[Any], RunControl, QuestionChannel], RunnerLike]
"""Builds the runner with the TUI's observer, control and channel (`launch.run_tui` wraps `Runner`)."""


class RunScreen(RunnerFeed, HumanControls, Screen[None]):
    HELP_TITLE = "run screen"
    KEY_HELP = [
        ("The episode", [
            ("space", "pause / resume"), ("n", "run one step, then pause"), ("c, ctrl+c", "cancel the episode"),
            ("a", "answer the agent's question"), ("t", "take over the phone / hand it back to the agent"),
            ("m", "mark a milestone at this step (a label in the episode)"),
            ("j", "judge the finished episode"), ("r", "replay the finished episode"),
            ("z", "zoom the phone to the whole terminal"), ("q", "quit (asks first while an episode runs)"),
        ]),
        ("At the controls", [
            ("click", "tap the device pixel under the cursor"), ("drag", "swipe"),
            ("↑ ↓ Enter", "pick an element in the list and tap it"),
            ("b / h / e", "back / home / enter keys"),
            (":", "command line: type TEXT, open APP, answer TEXT, finish, wait S"),
        ]),
        ("Everywhere", [("?", "this help"), ("ctrl+p", "command palette")]),
    ]
    BINDINGS = [
        Binding("space", "pause", "Pause"),
        Binding("n", "step", "Step"),
        Binding("c", "cancel", "Cancel"),
        Binding("ctrl+c", "cancel", "Cancel", show=False, priority=True),
        Binding("a", "answer", "Answer"),
        Binding("t", "take_over", "Take over"),
        Binding("m", "mark", "Mark"),
        Binding("j", "judge", "Judge"),
        Binding("r", "replay", "Replay"),
        Binding("z", "zoom", "Zoom"),
        Binding("q", "quit", "Quit"),
        # Shown only while a person is at the controls (`check_action` hides them otherwise).
        Binding("b", "device_key('back')", "Back"),
        Binding("h", "device_key('home')", "Home"),
        Binding("e", "device_key('enter')", "Enter"),
        Binding("colon", "command_line", "Command", key_display=":"),
    ]

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
        self.episode: Episode | None = None
        self.episode_dir: Path | None = None
        self.finished_dirs: list[Path] = []
        self.steps: list[Step] = []
        self.pending: dict[int, Request] = {}
        self.runner_state = "starting"
        self.finished = False
        self.ui_xml: str | None = None
        self._prev_memory: Memory | None = None
        self._asking: int | None = None

    # -- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            phone = PhoneView(self.renderer, id="phone")
            phone.border_title = "phone"
            yield phone
            with Vertical(id="middle"):
                trace = TraceView(id="trace")
                trace.border_title = "trace"
                yield trace
                human = HumanPanel(id="human")
                human.border_title = "you are at the controls"
                yield human
            with Vertical(id="side"):
                with VerticalScroll(id="milestones-box") as box:
                    box.border_title = "milestones"
                    yield MilestoneView(id="milestones")
                with VerticalScroll(id="memory-box") as box:
                    box.border_title = "memory"
                    yield MemoryView(id="memory")
        yield CommandLine(id="command")
        yield StatusLine(id="status").data_bind(state=RunScreen.state)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        phone = self.query_one(PhoneView)
        self.observer = TextualObserver(self, prepare=phone.prepare)
        self.observer.attach(self.control, self.channel)
        self.run_episode()

    def on_unmount(self) -> None:
        # However the screen goes (quit, an error), the runner's thread must not wait forever
        # at a pause or on a question nobody will answer: the episode is recorded as aborted.
        if not self.finished:
            self.control.cancel()
            self.channel.withdraw_all()

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    @property
    def trace(self) -> TraceView:
        return self.query_one(TraceView)

    def on_resize(self) -> None:
        self._size_phone()

    def _size_phone(self) -> None:
        """Give the phone the width its aspect ratio needs at this height; the rest goes to the panels."""
        phone = self.query_one(PhoneView)
        if self.zoomed:
            phone.styles.width = "1fr"
            return
        w, h = (self.episode.screen_size if self.episode and self.episode.screen_size else (1080, 2400))
        rows = max(4, self.size.height - 4)  # status, footer, phone border
        cw, ch = phone.cell
        cols = round(rows * ch * w / (h * cw))
        phone.styles.width = min(cols + 2, max(20, self.size.width * 45 // 100))

    def watch_zoomed(self, zoomed: bool) -> None:
        self.set_class(zoomed, "-zoomed")
        self._size_phone()

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
            self.trace.add(Note(f"the run stopped with an error: {type(err).__name__}: {err}", "error"))
            self.notify(f"{type(err).__name__}: {err}", title="Run failed", severity="error", timeout=10)
        if event.state == WorkerState.SUCCESS:
            self.app.run_result = event.worker.result  # type: ignore[attr-defined]
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            self._set_finished()

    def _set_finished(self) -> None:
        if self.finished:
            return
        self.finished = True
        self.pending.clear()
        if not self.status.ended:
            self.status.ended = time.monotonic()
        self._update_state()

    @property
    def running(self) -> bool:
        workers = [w for w in self.workers if w.group == "episode" and w.node is self]
        return any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in workers) and not self.finished

    # -- state -------------------------------------------------------------------------------------
    def _update_state(self) -> None:
        kinds = {r.kind for r in self.pending.values()}
        if self.finished:
            state = "finished"
        elif "question" in kinds:
            state = "waiting"
        elif self.control.human or "action" in kinds:
            state = "human"
        elif self.control.cancelled:
            state = "cancelling"
        elif self.control.paused:
            state = "paused"
        elif self.runner_state in ("running", "paused", "waiting", "human", "finished"):
            state = "running" if self.runner_state in ("paused", "finished") else self.runner_state
        else:
            state = "running"
        self.state = state
        self.set_class(state == "human", "-human")
        if state == "human":
            self.query_one(HumanPanel).set_ui(self.ui_xml)
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        live = not self.finished
        if action in ("pause", "step", "cancel", "take_over", "mark"):
            return True if live else None
        if action == "answer":
            return True if any(r.kind == "question" for r in self.pending.values()) else None
        if action in ("judge", "replay"):
            return True if self.finished_dirs else None
        if action in ("device_key", "command_line"):
            return self.state == "human"
        return True

    # -- keys ------------------------------------------------------------------------------------------
    def action_pause(self) -> None:
        paused = self.control.toggle_pause()
        self.notify("Paused: space resumes, n runs one step" if paused else "Resumed", timeout=2)

    def action_step(self) -> None:
        self.control.step_once()

    def action_cancel(self) -> None:
        if self.finished:
            return
        self.control.cancel()
        self.channel.withdraw_all()
        self.notify("Cancelling the episode…", timeout=3)

    def action_zoom(self) -> None:
        self.zoomed = not self.zoomed

    def action_mark(self) -> None:
        from guilens.screens.modals import PromptScreen

        n = self.steps[-1].index if self.steps else 0

        def done(label: str | None) -> None:
            if label:
                self.mark(label, n)

        self.app.push_screen(PromptScreen(f"Mark a milestone at step {n}", placeholder="what was reached, e.g. cart open"),
                             done)

    def mark(self, label: str, step: int) -> None:
        annotate = getattr(self.runner, "annotate", None)
        if annotate is None:
            self.notify("This runner cannot record marks.", severity="error")
            return
        try:
            annotate(label)
        except Exception as err:
            self.notify(str(err), title="Mark not recorded", severity="error")
            return
        self.trace.add(Mark(label, step))
        self.notify(f"Marked {label!r} at step {step}", timeout=3)

    def action_judge(self) -> None:
        if not self.finished_dirs:
            return
        from guilens.screens.judge_screen import JudgeScreen

        self.app.push_screen(JudgeScreen(self.finished_dirs[-1], settings=self.settings))

    def action_replay(self) -> None:
        if not self.finished_dirs:
            return
        from guilens.screens.replay_screen import ReplayScreen

        self.app.push_screen(ReplayScreen(self.finished_dirs[-1], renderer=self.renderer, settings=self.settings))

    def action_quit(self) -> None:
        if not self.running:
            self.app.exit()
            return
        from guilens.screens.modals import ConfirmScreen

        def answer(yes: bool | None) -> None:
            if yes:
                self.action_cancel()
                self._exit_when_stopped()

        self.app.push_screen(
            ConfirmScreen("An episode is running. Cancel it and quit?", yes="Cancel and quit", no="Keep running"),
            answer,
        )

    @work(exclusive=True, group="quit")
    async def _exit_when_stopped(self) -> None:
        """Let the runner record the episode as aborted before the app goes."""
        for worker in [w for w in self.workers if w.group == "episode" and w.node is self]:
            with contextlib.suppress(Exception):  # its error was already shown; quitting anyway
                await worker.wait()
        self.app.exit()
