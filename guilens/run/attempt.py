"""One attempt at one task on one device: the step loop.

Per step: wait at the control's gate (pause, single step, cancel) → ask the
agent (or, during a take-over, the person) about the screen the phone shows →
validate the action and resolve element targets to pixels against the very UI
tree the agent saw → `ask_user` goes to the user (unless the run's modes
refuse it: `guilens.run.modes`), `answer`/`finish` end the attempt, anything
else goes to the device → look at the phone again → check
milestones by rules on what it shows now → record the step → tell the
observers, the new screen last. An invalid action is recorded as an error step
and the agent is told why on its next step; both cost a step of the budget.

The observation taken after an action serves three times: for the milestone
checks of that step, as what the agent sees next, and as what the observers
show at once (`on_screen`), so after a single step, or at the end, the phone
on screen is the phone as it is, not as it was before the pause.

Pausing holds the agent, not the person: while a person holds this device's
controls the gate lets their moves through, and when they hand back with the
run paused the agent waits at the gate again. The attempt runs inside
`acting_for(label)`, so every request it opens names its device.

Time is booked by who spent it (`StepTimings`): the agent deciding, a person
choosing (a take-over, or an agent that `is_human`), the user answering, the
device. The episode's `Timings` add up the same buckets; a step's share is the
difference of those totals across the step, so nothing is counted twice.

The loop acts only once the previous step's line is on disk (`Recorder.wait_durable`),
so a killed run loses at most the step in flight. A screen's files are written from the
moment the phone shows it (`Recorder.write_ahead`), while the step decides and acts, so
that wait is for its encoding, if not done yet, and one appended line, not for two files
to be made. A write that fails stops the attempt (`error`, with the file and the
reason) and, through `fault`, the run.

A phone that goes away mid-run is waited for (`guilens.run.reconnect`): the run
pauses, goes on by itself once the phone answers again, and the call it cut short
is made again when that is safe (every read; an action only if it surely never
reached the phone). The wait is recorded on the step as a `DeviceGap`. A phone
that does not come back within `disconnect_wait_s` ends the attempt `error`
(`lost`), with the step in flight recorded.

Milestones are recorded on the step whose action reached them. The app state
the checks read with it is recorded too (`state/NNNN.json`, see
`guilens.run.statelog`), so the judge's replay reaches milestones where the run did.
"""

from __future__ import annotations

import threading
import time
import traceback
from typing import TYPE_CHECKING, Any

from guilens.actions import Action, ActionError, Answer, AskUser, Finish, parse_action
from guilens.agents.base import AgentStep, StepInput
from guilens.control import Cancelled, ObserverList, QuestionChannel, RunControl, acting_for
from guilens.device.base import DeviceDisconnected, DeviceError, DeviceLost, Observation, UnsupportedAction
from guilens.episode import Episode, Memory, MilestoneHit, Recorder, Step, StepTimings, Timings, now
from guilens.episode_model import DeviceGap
from guilens.llm.errors import LLMError
from guilens.run.anomaly_log import AnomalyNotes, apply_injections, arm_anomalies
from guilens.run.closing import close_attempt
from guilens.run.modes import RunModes, agent_context
from guilens.run.person import PersonMixin
from guilens.run.reconnect import DeviceWait
from guilens.run.resolve import resolve_action
from guilens.run.statelog import StateLog, check_reads
from guilens.run.types import AttemptOutcome, AttemptSpec, Feedback, jsonable, template_values
from guilens.scenarios.checks import CheckContext, MilestoneTracker
from guilens.storage import Reserve, StorageError

if TYPE_CHECKING:
    from guilens.device.base import Device
    from guilens.users import SimUser


class AttemptRunner(PersonMixin):
    """Runs one attempt and writes its directory. Create one per attempt."""

    def __init__(
        self,
        spec: AttemptSpec,
        *,
        device: Device,
        agent: Any,
        user: SimUser,
        observers: ObserverList,
        control: RunControl,
        channel: QuestionChannel,
        disconnect_wait_s: float = 0.0,
        label: str | None = None,
        reserve: Reserve | None = None,
    ) -> None:
        self.spec = spec
        self.device = device
        self.agent = agent
        self.user = user
        self.obs = observers
        self.control = control
        self.channel = channel
        self.reserve = reserve
        """Room the run keeps back on its disk, given up to mark the episode when the disk fills."""
        self.fault: StorageError | None = None
        """The write that stopped this attempt's record, or the end that could not be marked: the
        run stops after this attempt (`guilens.run.engine`)."""
        self.label = label or str(getattr(device, "name", "device"))
        """What the run calls this device (`sim-2`): the episode's `device`, the control's key."""
        self.waiter = DeviceWait(device, control, label=self.label, wait_s=disconnect_wait_s,
                                 announce=self._announce_wait)
        self.gaps: list[DeviceGap] = []
        """Waits for the phone not yet recorded: the next step recorded takes them."""
        self.lost: DeviceLost | None = None
        """The phone went away and did not come back: the run gives this device no more tasks."""
        task, scenario = spec.task, spec.scenario
        self.values = template_values(task, spec.values)
        self.instruction = task.instruction_at(spec.level, self.values)
        self.intent = task.instruction_at("L0", self.values)
        self.tracker = MilestoneTracker(task, dict(self.values))
        self._needs = {m.id: check_reads(m.check) for m in self.tracker.milestones if m.check is not None}
        self.episode = Episode(
            run_id=spec.run_id,
            task=task.id,
            scenario=scenario.id,
            sequence_index=spec.sequence_index,
            instruction=self.instruction,
            level=spec.level,  # type: ignore[arg-type]
            attempt=spec.attempt,
            attempts=spec.attempts,
            agent=str(getattr(agent, "name", "agent")),
            model=getattr(agent, "model", None),
            user=user.name,
            device=self.label,
            screen_size=tuple(device.size),  # type: ignore[arg-type]
            budget=spec.budget,
            milestones_total=self.tracker.total,
            lessons=list(spec.lessons),
            timings=Timings(started_at=now()),
        )
        self.episode.values = dict(self.values)  # the judge fills templates with these
        self.modes: RunModes = spec.modes
        """ScenDroid's modes of the run (`guilens.run.modes`)."""
        self.states = StateLog(spec.directory, lambda: self._device_call(self.device.state))
        self.recorder: Recorder | None = None
        self._lock = threading.Lock()
        self._pending_notes: list[str] = []
        self.answer: str | None = None
        self.finish_status: str | None = None
        self.memory = Memory(ltm=list(spec.ltm), lessons=list(spec.lessons))
        self.qa: list[tuple[str, str]] = []
        self.loop_s = 0.0
        """The step loop's own time: everything but the device, the agent and the user (recording included)."""
        self.record_s = 0.0
        """Of which waiting on the recorder: handing steps over, and the previous step's line before acting."""
        self.current: Observation | None = None
        """What the phone shows now: the screen the next step sees, or the final screen."""
        self._announced = -1
        """The last step index reported to `on_step_started` (a step handed back while paused starts once)."""
        self.anomalies = AnomalyNotes()
        """What each step records of anomalies (`guilens.run.anomaly_log`)."""

    # -- timed device calls ---------------------------------------------------------------------
    def _device_call(self, fn: Any, *args: Any, unsure: str | None = None) -> Any:
        """`fn(*args)` on the phone, its time booked to the device; a phone that goes away is waited
        for, and the call made again once it is back. `unsure` marks a call that changes the phone
        (an action): if it may have reached the phone before the link broke it is not repeated, and
        `unsure` is returned in place of its result."""
        while True:
            t = time.perf_counter()
            try:
                return fn(*args)
            except DeviceDisconnected as err:
                if isinstance(err, DeviceLost):
                    raise
                gap = self.waiter.wait(err, getattr(fn, "__name__", "device"), self.gaps)  # DeviceLost: gone
                gap.retried = unsure is None or err.performed is False
                if not gap.retried:
                    return unsure
            finally:
                self.episode.timings.device_s += time.perf_counter() - t

    def _announce_wait(self, state: str, message: str) -> None:
        """The wait's news, as the observers hear every state: the device's message is the
        episode's `error` while it lasts."""
        self.episode.error = message if state == "disconnected" else None
        self.obs.on_state(self.episode, state)

    def _spent(self) -> dict[str, float]:
        """The episode's time so far in each bucket of `StepTimings`."""
        t = self.episode.timings
        return {"agent_s": t.agent_s, "person_s": t.person_s, "user_s": t.user_s, "device_s": t.device_s}

    def _context(self, obs: Observation) -> CheckContext:
        """What the live checks need, and no more: the app state and the parsed UI tree are
        fetched only while a milestone not yet reached looks at them."""
        waiting = [self._needs[mid] for mid in self._needs if mid not in self.tracker.reached]
        state = self.states.fetch(obs) if any("state" in w for w in waiting) else None
        ui = obs.ui if any("ui" in w for w in waiting) else None
        return CheckContext(ui=ui, app=obs.app, state=state, answer=self.answer)

    def _gate(self) -> bool:
        """Wait at the control's gate; True if the run was held (a real phone may have moved on)."""
        held = self.control.holds(self.label)
        if held:
            self.obs.on_state(self.episode, "paused")
        self.control.gate(self.label)
        if held:
            self.obs.on_state(self.episode, "running")
        return held

    def _seen(self, index: int, obs: Observation) -> None:
        """What the phone shows now, the screen step `index` will see (or the final one, numbered
        alike): the recorder writes its files while the step acts, so the step's line is all that is
        left when it ends (`Recorder.write_ahead`)."""
        if self.recorder is not None:
            self.recorder.write_ahead(index, obs.screenshot, obs.ui_xml)

    def _show(self, index: int, obs: Observation) -> None:
        """Tell the observers what the phone shows now; `index` is the step that will see it."""
        self.obs.on_screen(self.episode, index, obs.screenshot, obs.ui_xml)

    # -- the loop ---------------------------------------------------------------------------------
    def run(self) -> AttemptOutcome:
        spec, ep = self.spec, self.episode
        rec = Recorder(spec.directory, ep, reserve=self.reserve)  # StorageError: the run cannot go on
        self.recorder = rec
        self.states.submit = rec.later  # state files on the recorder's thread, when it has no line to write
        self.obs.on_attempt_started(ep)
        with acting_for(self.label):
            status, error = self._run()
        try:
            return self._finish(status, error, self.current)
        finally:  # the runner lives on in cycles until a full GC; its 8 MB final screen need not
            self.current = None

    def _run(self) -> tuple[str, str | None]:
        ep = self.episode
        status, error = "error", None
        try:
            self.agent.reset(agent_context(self, list(self._device_call(self.device.list_apps))))
            arm_anomalies(self)  # a run's --anomalies: the device draws them itself
            self.current = self._device_call(self.device.observe)
            self._seen(0, self.current)
            self._show(0, self.current)  # before the first gate: a run started paused shows its phone
            start = self.tracker.update(self._context(self.current), 0)
            status = self._loop([m.id for m in start])
        except Cancelled:
            status, error = "aborted", "cancelled"
        except KeyboardInterrupt:
            self.control.cancel()
            status, error = "aborted", "interrupted by the keyboard"
        except DeviceError as err:  # `DeviceLost`: the phone went away and did not come back
            self.lost = err if isinstance(err, DeviceLost) else None
            status, error = "error", f"device: {err}"
        except StorageError as err:  # the disk: nothing more can be recorded, here or in later attempts
            self.fault = err
            status, error = "error", f"recording stopped: {err}"
        except LLMError as err:  # the API outlasted its retries: the line says so, there is no bug to trace
            status, error = "error", str(err)
        except Exception as err:  # an agent or user bug ends this attempt, not the run
            status, error = "error", f"{type(err).__name__}: {err}"
            ep.error_detail = "".join(traceback.format_exception(err))[-4000:]
        return status, error

    def _loop(self, start_hits: list[str]) -> str:
        """Steps until the agent ends the attempt (`answer`/`finish`) or the budget runs out."""
        assert self.current is not None
        fb = Feedback()
        index = 0
        while True:
            if index >= self.spec.budget:
                return "timeout"
            held = self._gate()
            if apply_injections(self) or (held and getattr(self.device, "name", "") != "sim"):
                # an anomaly asked for is on the phone now, or a real phone moved on meanwhile
                self.current = self._device_call(self.device.observe)
                self._seen(index, self.current)
                self._show(index, self.current)
            terminal = self._step(index, fb, start_hits if index == 0 else [])
            if terminal is None:
                continue  # handed back without a move while paused: the agent waits at the gate
            index += 1
            if terminal:
                return "failure" if self.finish_status == "failure" else "success"  # `_finish` applies the rules

    def _step(self, index: int, fb: Feedback, start_hits: list[str]) -> bool | None:
        """One step: decide, validate, perform, check, record, report. True when it ends the attempt;
        None when there was no step after all (the person handed back while the run is paused)."""
        ep, rec, obs = self.episode, self.recorder, self.current
        assert rec is not None and obs is not None
        t_step = time.perf_counter()
        spent = self._spent()
        started = now()
        if self._announced != index:
            self._announced = index
            self.obs.on_step_started(ep, index)
        human = self.control.is_human(self.label)
        astep = self._human_action(obs, index) if human else None
        if human and astep is None and self.control.holds(self.label):
            return None
        if astep is None:
            human = False
            inp = StepInput(index=index, observation=obs, budget_left=self.spec.budget - index,
                            last_result=fb.result, last_error=fb.error, user_answer=fb.user_answer,
                            history=fb.history, questions_left=self.modes.questions_left(len(self.qa)))
            t = time.perf_counter()
            astep = self.agent.step(inp)
            if getattr(self.agent, "is_human", False):  # `--agent human`: a person decided, not an agent
                ep.timings.person_s += time.perf_counter() - t
            else:
                ep.timings.agent_s += time.perf_counter() - t
            self.memory = astep.memory
        step = Step(
            index=index, started_at=started, ended_at=started, app=obs.app, clock=obs.clock,
            thought=astep.thought, action_raw=jsonable(astep.action), action_description=astep.description,
            action_result=astep.action_result, memory=astep.memory, usage=astep.usage, llm_calls=astep.llm_calls,
            by="human" if human or getattr(self.agent, "is_human", False) else "agent",
        )
        state = self.states.record(index, obs)  # what the checks read of the screen this step saw
        if state is not None:
            step.state = state
        fb.result, fb.error, fb.user_answer = "", None, None
        t_rec = time.perf_counter()
        rec.wait_durable()  # never act more than one step ahead of the record: a kill loses at most this step
        self.record_s += time.perf_counter() - t_rec
        try:
            terminal, after = self._perform(step, astep, obs, fb)
            self._seen(index + 1, after)  # the same screen again (the phone left alone) is not encoded again
            hits = start_hits + [m.id for m in self.tracker.update(self._context(after), index)]
            step.anomalies = self.anomalies.note(obs, after)
        except DeviceLost as err:  # the phone is not coming back: keep what this step did and why it stopped
            self._record_lost(step, obs, err, spent)
            raise
        if astep.error and step.error is None:
            step.error = astep.error
        step.milestones = hits
        self._close_step(step, spent)
        with self._lock:
            if index == 0 and self._pending_notes:
                step.annotations += self._pending_notes
                self._pending_notes = []
            t_rec = time.perf_counter()
            rec.record_step(step, obs.screenshot, obs.ui_xml)
            self.record_s += time.perf_counter() - t_rec
            for note in step.annotations:
                self._mark_if_milestone(note, step)
        for mid in hits:
            ep.milestones.append(MilestoneHit(id=mid, step=index, text=self.tracker.task.milestone(mid).text))
        self.loop_s += (time.perf_counter() - t_step) - sum(self._spent().values()) + sum(spent.values())
        self.obs.on_step(ep, step)
        for mid in hits:
            self.obs.on_milestone(ep, mid, index)
        if after is not obs:  # the phone changed: show it now, not when the next step passes the gate
            self._show(index + 1, after)
        fb.history.append({
            "index": index, "by": step.by, "app": step.app, "action": step.action,
            "description": step.action_description, "target": step.target, "result": step.device_result,
            "error": step.error,
            "question": step.ask.question if step.ask else None, "answer": step.ask.answer if step.ask else None,
        })
        self.current = after
        return terminal

    def _close_step(self, step: Step, spent: dict[str, float]) -> None:
        """End `step` now: it takes the waits for the phone not yet recorded, and its share of each
        bucket of time (the totals now less `spent`, the totals when it started)."""
        step.gaps, self.gaps = self.gaps, []
        step.timings = StepTimings(**{k: round(v - spent[k], 4) for k, v in self._spent().items()})
        step.ended_at = now()

    def _record_lost(self, step: Step, obs: Observation, err: DeviceLost, spent: dict[str, float]) -> None:
        """The step the phone went away in for good: recorded with its gaps and the reason, so the
        episode keeps what the agent decided and the trace shows where the phone was lost."""
        assert self.recorder is not None
        step.error = f"device: {err}"
        self._close_step(step, spent)
        with self._lock:
            self.recorder.record_step(step, obs.screenshot, obs.ui_xml)
        self.obs.on_step(self.episode, step)

    def _perform(self, step: Step, astep: AgentStep, obs: Observation, fb: Feedback) -> tuple[bool, Observation]:
        """Validate and carry out the step's action; returns (ends the attempt, what the phone shows after)."""
        try:
            if astep.action is None:
                raise ActionError(astep.error or "the agent produced no action")
            action: Action = parse_action(astep.action, obs.size)
            action, target = resolve_action(action, obs)
        except ActionError as err:  # recorded as an error step; the agent is told at its next step
            step.error = fb.error = str(err)
            return False, obs
        step.action = action.model_dump(exclude_none=True)
        step.target = target
        step.action_description = step.action_description or action.describe()
        if isinstance(action, AskUser):
            refused = self.modes.refusal(len(self.qa))  # Passive mode, or the budget spent: not for the user
            if refused is not None:
                step.error = fb.error = refused
                return False, obs
            step.ask = self._ask(action.question, step.index)
            fb.user_answer = step.ask.answer
            fb.result = f"the user answered: {step.ask.answer}"
            return False, obs
        if isinstance(action, Answer):
            self.answer, fb.result = action.text, "answered"
            return True, obs
        if isinstance(action, Finish):
            self.finish_status, fb.result = action.status, f"finished ({action.status})"
            return True, obs
        try:
            step.device_result = fb.result = str(self._device_call(
                self.device.act, action, unsure="unknown: the phone went away while acting; not sent again"))
        except (ActionError, UnsupportedAction) as err:  # the phone refused it: the agent's to fix
            step.error = fb.error = str(err)
            return False, obs
        return False, self._device_call(self.device.observe)

    def _finish(self, status: str, error: str | None, obs: Observation | None) -> AttemptOutcome:
        outcome = close_attempt(self, status, error, obs)
        self.obs.on_state(outcome.episode, "finished")
        self.obs.on_attempt_finished(outcome.episode)
        return outcome
