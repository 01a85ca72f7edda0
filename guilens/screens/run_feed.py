"""The run screen's half that listens to the runner: each observer message updates its panel.

Mixed into `RunScreen`. Handlers are found by name (`on_step_recorded` for
`messages.StepRecorded`), which Textual looks up along the class's MRO.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from textual.css.query import NoMatches
from textual.screen import Screen

from guilens.screens import messages as m
from guilens.screens.widgets.human import HumanPanel
from guilens.screens.widgets.memory import MemoryView
from guilens.screens.widgets.milestones import MilestoneView, rows_from_task
from guilens.screens.widgets.phone import PhoneView
from guilens.screens.widgets.render import AttemptHeader, Outcome, Question, Reply

if TYPE_CHECKING:
    from collections.abc import Callable

    from guilens.control import Request
    from guilens.episode import Episode, Memory, Step
    from guilens.screens.widgets.status import StatusLine
    from guilens.screens.widgets.trace import TraceView


F = TypeVar("F", bound="Callable[..., None]")


def live(handler: F) -> F:
    """Skip a runner message that lands while the screen is going away: a cancelled run keeps
    reporting (aborted, finished) for a moment after the person quit."""

    @functools.wraps(handler)
    def wrapper(self: Screen[None], *args: Any) -> None:
        if not self.is_mounted or not self.is_attached:
            return
        try:
            handler(self, *args)
        except NoMatches:  # a panel already removed: the screen is closing
            if self.is_attached:
                raise

    return wrapper  # type: ignore[return-value]


class RunnerFeed(Screen[None]):
    """A part of `RunScreen`, which sets up the state below."""

    episode: Episode | None
    episode_dir: Path | None
    dir_lookup: Callable[[Episode], Path | None] | None
    task_lookup: Callable[[Episode], Any] | None
    steps: list[Step]
    finished_dirs: list[Path]
    pending: dict[int, Request]
    runner_state: str
    ui_xml: str | None
    _prev_memory: Memory | None
    _asking: int | None

    if TYPE_CHECKING:
        @property
        def status(self) -> StatusLine: ...

        @property
        def trace(self) -> TraceView: ...

        def _size_phone(self) -> None: ...

        def _update_state(self) -> None: ...

        def _set_finished(self) -> None: ...

        def _close_question(self) -> None: ...

        def open_question(self, req: Request) -> None: ...

        def human_request_opened(self, req: Request) -> None: ...

    @live
    def on_attempt_started(self, msg: m.AttemptStarted) -> None:
        ep = msg.episode
        self.episode = ep
        self.episode_dir = Path(msg.directory) if msg.directory else (self.dir_lookup(ep) if self.dir_lookup else None)
        self.steps = []
        self._prev_memory = None
        st = self.status
        st.scenario, st.task_id, st.level = ep.scenario, ep.task, ep.level
        st.attempt, st.attempts, st.budget = ep.attempt, ep.attempts, ep.budget or 0
        st.step, st.tokens, st.cost, st.outcome = 0, 0, 0.0, ""
        st.started, st.ended = time.monotonic(), 0.0
        self.query_one(MemoryView).reset(ep.lessons)
        task = self._lookup_task(ep)
        milestones = self.query_one(MilestoneView)
        milestones.set_rows(rows_from_task(task) if task is not None else [])
        self.trace.milestone_text = {r.id: r.text for r in milestones.rows}
        self.trace.add(AttemptHeader(ep))
        phone = self.query_one(PhoneView)
        phone.border_title = f"phone · {ep.device}" if ep.device else "phone"
        self._size_phone()
        self._update_milestone_title()

    def _lookup_task(self, ep: Episode) -> Any:
        if self.task_lookup is None:
            return None
        try:
            return self.task_lookup(ep)
        except Exception:  # a missing task definition only costs the pending rows
            return None

    @live
    def on_step_started(self, msg: m.StepStarted) -> None:
        self.status.step = msg.index + 1

    @live
    def on_screen_captured(self, msg: m.ScreenCaptured) -> None:
        phone = self.query_one(PhoneView)
        phone.show(msg.image, msg.action, msg.frame)
        self.ui_xml = msg.ui_xml
        if self.has_class("-human"):
            self.query_one(HumanPanel).set_ui(msg.ui_xml)

    @live
    def on_step_recorded(self, msg: m.StepRecorded) -> None:
        step = msg.step
        self.steps.append(step)
        self.trace.add(step)
        self.query_one(MemoryView).show(step.memory, self._prev_memory)
        self._prev_memory = step.memory
        self.query_one(PhoneView).show_action(step.action)
        st = self.status
        st.step = step.index + 1
        st.tokens += step.usage.input_tokens + step.usage.output_tokens
        st.cost = round(st.cost + step.usage.cost_usd, 6)
        if step.clock is not None:
            st.clock = f"{step.clock:%a %H:%M}"
        milestones = self.query_one(MilestoneView)
        for mid in step.milestones:
            milestones.reach(mid, step.index)
        self._update_milestone_title()

    def _update_milestone_title(self) -> None:
        view = self.query_one(MilestoneView)
        total = len(view.rows) or len(view.reached)
        self.query_one("#milestones-box").border_title = f"milestones {view.done}/{total}" if total else "milestones"

    @live
    def on_question_asked(self, msg: m.QuestionAsked) -> None:
        self.trace.add(Question(msg.question, msg.suggestion))

    @live
    def on_answered(self, msg: m.Answered) -> None:
        self.trace.add(Reply(msg.question, msg.answer, msg.answered_by))

    @live
    def on_milestone_reached(self, msg: m.MilestoneReached) -> None:
        self.query_one(MilestoneView).reach(msg.milestone_id, msg.step)
        self._update_milestone_title()

    @live
    def on_state_changed(self, msg: m.StateChanged) -> None:
        self.runner_state = msg.state
        self._update_state()

    @live
    def on_attempt_finished(self, msg: m.AttemptFinished) -> None:
        ep = msg.episode
        self.episode = ep
        self.trace.add(Outcome(ep))
        self.status.outcome = ep.status
        self.status.ended = time.monotonic()
        if ep.cost_usd:
            self.status.cost = ep.cost_usd
        if self.episode_dir is not None:
            self.finished_dirs.append(self.episode_dir)
        self.refresh_bindings()

    @live
    def on_run_finished(self, msg: m.RunFinished) -> None:
        self._set_finished()
        if msg.episodes:
            outcomes = ", ".join(f"{e.task}#{e.attempt}: {e.status}" for e in msg.episodes)
            self.notify(outcomes, title="Run finished", timeout=8)

    @live
    def on_runner_event(self, msg: m.RunnerEvent) -> None:
        pass  # runner callbacks the screen has no panel for

    @live
    def on_control_changed(self, msg: m.ControlChanged) -> None:
        self._update_state()

    @live
    def on_request_changed(self, msg: m.RequestChanged) -> None:
        req = msg.request
        if msg.event == "opened":
            self.pending[req.id] = req
            if req.kind == "question":
                self.open_question(req)
            else:
                self.human_request_opened(req)
        else:
            self.pending.pop(req.id, None)
            if req.kind == "question" and self._asking == req.id:
                self._close_question()
        self._update_state()
