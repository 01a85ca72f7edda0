"""One device's part of the run screen: its phone, trace, person's controls, milestones, memory
and status line, and what it knows of the attempt running there.

The run screen holds one pane per device of the run, as tabs (`RunScreen`
hides the tab bar when there is only one, so a single-device run looks as it
always did). Tabs rather than a grid: the phone's height is what limits its
legibility, and a grid would halve it (and every panel beside it) for each
row of devices, where a tab keeps each device's whole layout and the tab bar
still shows at a glance which device waits for an answer or a person.

The pane applies what the runner reports about its device (`RunScreen`
routes each observer message by `Episode.device`); whatever concerns the run
as a whole (pending requests, the control, the end of the run) stays on the
screen.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import TabPane

from guilens.episode import Episode, Memory, Step
from guilens.screens import messages as m
from guilens.screens.widgets.halfcell import HalfcellFrame
from guilens.screens.widgets.human import HumanPanel
from guilens.screens.widgets.memory import MemoryView
from guilens.screens.widgets.milestones import MilestoneView, rows_from_task
from guilens.screens.widgets.phone import PhoneView, Renderer
from guilens.screens.widgets.render import AttemptHeader, Outcome, Question, Reply
from guilens.screens.widgets.status import STATES, StatusLine
from guilens.screens.widgets.trace import TraceView


class DevicePane(TabPane):
    """A device's panels and the state of its current attempt."""

    def __init__(
        self,
        renderer: Renderer,
        *,
        label: str | None,
        id: str,
        task_lookup: Callable[[Episode], Any] | None = None,
        dir_lookup: Callable[[Episode], Path | None] | None = None,
        zoomed: bool = False,
    ) -> None:
        super().__init__(label or "phone", id=id)
        self.renderer: Renderer = renderer
        self.label = label
        """The device's label in the run (`sim-2`); None until the runner names it."""
        self.task_lookup = task_lookup
        self.dir_lookup = dir_lookup
        self.zoomed = zoomed
        self.episode: Episode | None = None
        self.episode_dir: Path | None = None
        self.finished_dirs: list[Path] = []
        self.steps: list[Step] = []
        self.runner_state = "starting"
        self.ui_xml: str | None = None
        self.prev_memory: Memory | None = None
        self.clock_format = "%a %H:%M"
        """How the status line shows the phone's clock: with the date for a task of a multi-day sequence."""
        self.state = "starting"
        """What the status line shows: computed by the screen, which knows the control and requests."""
        self._phone: PhoneView | None = None
        """Kept from `compose`: the runner's thread reaches the phone here, where a DOM query is not safe."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            phone = self._phone = PhoneView(self.renderer, id="phone")
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
        yield StatusLine(id="status")

    # -- panels ------------------------------------------------------------------------------
    @property
    def phone(self) -> PhoneView:
        return self._phone if self._phone is not None else self.query_one(PhoneView)

    def prepare(self, image: Image.Image, action: dict[str, Any] | None) -> HalfcellFrame | None:
        """On the runner's thread: the screen shrunk for this phone view (None: the view does it)."""
        phone = self._phone
        return phone.prepare(image, action) if phone is not None else None

    @property
    def trace(self) -> TraceView:
        return self.query_one(TraceView)

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    @property
    def human(self) -> HumanPanel:
        return self.query_one(HumanPanel)

    def on_resize(self) -> None:
        self.size_phone()

    NARROW = 120
    """Below this many columns the phone's share shrinks, and the side panels give way to the controls
    while a person has them (`app.tcss`: `RunScreen.-narrow`)."""

    def phone_share(self) -> int:
        """The most of the pane's width the phone may take, in percent. Wide: what its view needs, up
        to 45% (pixels) or 60% (text). Narrow: less, so the trace keeps a readable width, except at the
        controls, where the side panels are hidden and the phone and the element list share the width."""
        pixels = self.phone.view == "pixels"
        if self.size.width >= self.NARROW:
            return 45 if pixels else 60
        if self.has_class("-human"):
            return 50
        return 40 if pixels else 45

    def size_phone(self) -> None:
        """Give the phone the width its view needs at this height (the pixels at the screen's aspect,
        the text view more), within its share; the rest goes to the panels."""
        phone = self.phone
        if self.zoomed:
            phone.styles.width = "1fr"
            return
        rows = max(4, self.size.height - 3)  # the status line, the phone's border
        phone.styles.width = min(phone.wanted_width(rows) + 2, max(20, self.size.width * self.phone_share() // 100))

    def tab_title(self) -> Content:
        """The tab's label: the device, its state, and the task it runs."""
        icon, style, _ = STATES.get(self.state, ("·", "$text", self.state))
        task = self.episode.task if self.episode is not None else ""
        return Content.from_markup(f"$d [b {style}]$i[/] [$text-muted]$t[/]", d=self.label or "phone", i=icon, t=task)

    def set_state(self, state: str) -> None:
        self.state = state
        self.status.state = state
        human = state == "human"
        changed = human != self.has_class("-human")
        self.set_class(human, "-human")
        if human:
            self.human.set_ui(self.ui_xml)
        if changed:
            self.size_phone()  # a narrow terminal gives the phone more while the side panels are hidden

    # -- what the runner reports about this device ------------------------------------------
    def attempt_started(self, msg: m.AttemptStarted) -> None:
        ep = msg.episode
        self.episode = ep
        self.episode_dir = Path(msg.directory) if msg.directory else (self.dir_lookup(ep) if self.dir_lookup else None)
        self.steps = []
        self.prev_memory = None
        self.runner_state = "running"
        st = self.status
        st.scenario, st.task_id, st.level = ep.scenario, ep.task, ep.level
        st.attempt, st.attempts, st.budget = ep.attempt, ep.attempts, ep.budget or 0
        st.step, st.tokens, st.cost, st.outcome = 0, 0, 0.0, ""
        st.started, st.ended = time.monotonic(), 0.0
        self.query_one(MemoryView).reset(ep.lessons)
        task = self._lookup_task(ep)
        milestones = self.query_one(MilestoneView)
        milestones.set_rows(rows_from_task(task, ep.values) if task is not None else [])
        # a task of a multi-day sequence (`day:`) shows the date too: the weekday alone repeats in a week
        self.clock_format = "%a %d %b %H:%M" if getattr(task, "day", None) is not None else "%a %H:%M"
        self.trace.milestone_text = {r.id: r.text for r in milestones.rows}
        self.trace.add(AttemptHeader(ep))
        self.phone.border_title = f"phone · {ep.device}" if ep.device else "phone"
        self.size_phone()
        self._update_milestone_title()

    def _lookup_task(self, ep: Episode) -> Any:
        if self.task_lookup is None:
            return None
        try:
            return self.task_lookup(ep)
        except Exception:  # a missing task definition only costs the pending rows
            return None

    def step_started(self, msg: m.StepStarted) -> None:
        self.status.step = msg.index  # steps done: the one starting shows as the state, not in the count

    def screen_captured(self, msg: m.ScreenCaptured) -> None:
        self.phone.show(msg.image, msg.action, msg.frame, ui_xml=msg.ui_xml)  # the UI tree feeds the text view
        self.ui_xml = msg.ui_xml
        if self.has_class("-human"):
            self.human.set_ui(msg.ui_xml)

    def step_recorded(self, msg: m.StepRecorded) -> None:
        step = msg.step
        self.steps.append(step)
        self.trace.add(step)
        self.query_one(MemoryView).show(step.memory, self.prev_memory)
        self.prev_memory = step.memory
        self.phone.show_action(step.action)
        st = self.status
        st.step = step.index + 1
        st.tokens += step.usage.input_tokens + step.usage.output_tokens
        st.cost = round(st.cost + step.usage.cost_usd, 6)
        if step.clock is not None:
            st.clock = step.clock.strftime(self.clock_format)
        milestones = self.query_one(MilestoneView)
        for mid in step.milestones:
            milestones.reach(mid, step.index)
        self._update_milestone_title()

    def question_asked(self, msg: m.QuestionAsked) -> None:
        self.trace.add(Question(msg.question, msg.suggestion))

    def answered(self, msg: m.Answered) -> None:
        self.trace.add(Reply(msg.question, msg.answer, msg.answered_by))

    def milestone_reached(self, msg: m.MilestoneReached) -> None:
        self.query_one(MilestoneView).reach(msg.milestone_id, msg.step)
        self._update_milestone_title()

    def attempt_finished(self, msg: m.AttemptFinished) -> Path | None:
        """The attempt's outcome in the trace and status line; returns its directory, if known."""
        ep = msg.episode
        started = self.episode
        # An attempt that never started (blocked, or its phone could not be set up) has no directory
        # of the attempt before it: look its own up.
        ran = started is not None and (started.task, started.attempt) == (ep.task, ep.attempt)
        where = self.episode_dir if ran else (self.dir_lookup(ep) if self.dir_lookup else None)
        self.episode = ep
        self.runner_state = "finished"
        self.trace.add(Outcome(ep, self.query_one(MilestoneView).count_text))
        self.status.outcome = ep.status
        self.status.ended = time.monotonic()
        if ep.cost_usd:
            self.status.cost = ep.cost_usd
        if where is not None:
            self.finished_dirs.append(where)
        return where

    def _update_milestone_title(self) -> None:
        # the checklist's count: an alternatives item once
        self.query_one("#milestones-box").border_title = self.query_one(MilestoneView).count_text or "milestones"
