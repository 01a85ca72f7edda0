"""The runner: tasks onto devices, attempts (pass@k), persistent sequences, the run directory.

One `Runner.run()` serves a single task, k attempts, a batch over several
devices and a persistent day. With one device it runs on the caller's thread
(the TUI's worker); a batch starts one thread per device, each taking the next
task, one task per device at a time. `RunControl` is shared: pause, single
step and cancel reach every attempt (a single step, a take-over and a mark
may name one device); a cancelled run stops taking tasks and every attempt it
cut short is recorded `aborted`.

Each device runs under a label (`guilens.run.workers`): `sim`, or `sim-1` and
`sim-2` when two sims share a run. It is the episode's `device`, so observers
tell the devices' events apart and the record says which phone ran what.

A phone that goes away is waited for up to `disconnect_wait_s` (the plan's setting
unless given), mid-episode (`guilens.run.attempt`) and while a task is set up
alike (`guilens.run.reconnect`). One that does not come back is `lost` (so is a
hosted device whose process, Ray actor or node died: at once). In a batch with
another phone still going, the attempt it cut is re-run there under the same
number and recorded once, the cut one kept aside and noted (`guilens.run.rerun`).
Otherwise its attempt ends `error`, the tasks left for it are recorded `error`
without running, run.json's warnings say which phone and why, and the run ends
`error`.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guilens.control import Cancelled, ObserverList, QuestionChannel, RunControl
from guilens.device.base import DeviceDisconnected, DeviceError, DeviceLost
from guilens.episode import Episode, Recorder, Timings, now
from guilens.run.attempt import AttemptRunner
from guilens.run.modes import RunModes, earlier_tasks
from guilens.run.reconnect import GonePhones
from guilens.run.rerun import RerunMixin, WorkQueue
from guilens.run.sequence import SequenceMixin
from guilens.run.store import MemoryStore, RunFiles, RunRecord
from guilens.run.types import (
    AttemptOutcome,
    AttemptSpec,
    RunResult,
    TaskResult,
    instruction_for,
    template_values,
)
from guilens.run.workers import Worker, close_workers, open_workers
from guilens.storage import Reserve, StorageError

if TYPE_CHECKING:
    from guilens.device.base import Device
    from guilens.run.plan import RunPlan
    from guilens.scenarios.model import Task
    from guilens.users import SimUser


class Runner(SequenceMixin, RerunMixin):
    """Runs a `RunPlan`. The TUI gives its own observer, control and channel."""

    def __init__(
        self,
        plan: RunPlan,
        *,
        observers: list[Any] | None = None,
        control: RunControl | None = None,
        channel: QuestionChannel | None = None,
        disconnect_wait_s: float | None = None,
    ) -> None:
        self.plan = plan
        self.observers = ObserverList(observers)
        self.control = control if control is not None else RunControl()
        self.channel = channel if channel is not None else QuestionChannel()
        self.wait_s = plan.settings.disconnect_wait_s if disconnect_wait_s is None else disconnect_wait_s
        """How long a phone that went away is waited for (`Settings.disconnect_wait_s`)."""
        self.phones = GonePhones(self.control, self.wait_s)
        self.modes = RunModes.of_settings(plan.settings)
        """ScenDroid's modes, handed to every attempt (`AttemptSpec.modes`)."""
        """Waits for phones gone while a task is set up; knows those that did not come back."""
        self.run_dir: Path | None = None
        self.record: RunRecord | None = None
        self.memory: MemoryStore | None = None
        self.reserve: Reserve | None = None
        self.fault: StorageError | None = None
        """The write that stopped the run (a full or read-only disk), if one did."""
        self.unmarked: list[StorageError] = []
        """Ends that could not be written: an episode.json or run.json left saying `running`."""
        self._workers: list[Worker] = []
        self._active: AttemptRunner | None = None
        self._lock = threading.Lock()
        self._results: dict[str, TaskResult] = {}
        self._interrupted = False
        self._todo: WorkQueue | None = None
        """A batch's queue, where a task cut by a lost phone goes back (`guilens.run.rerun`)."""
        self._lost_attempts: dict[str, list[dict[str, Any]]] = {}
        """Per task: the attempts a lost phone cut and another phone re-ran (run.json's `lost`)."""
        self._gave_up = False
        """A lost phone left work unrun or cut short with no phone to re-run it: the run ends `error`."""
        self._stopped: set[str] = set()
        """Phones whose thread stopped on an unexpected error: they take no re-run either."""

    # -- for the TUI -----------------------------------------------------------------------------
    @property
    def current(self) -> AttemptRunner | None:
        """The attempt that most recently started (the one a person is watching)."""
        return self._active

    @property
    def devices(self) -> dict[str, Device]:
        """The run's open devices by label (empty before the run opens them)."""
        return {w.label: w.device for w in self._workers}

    def annotate(self, label: str, device: str | None = None) -> bool:
        """Mark the current step of the current attempt with a label (`m` in the TUI): the attempt
        on `device` (a label) when given, else the one that started last."""
        if device is not None:
            worker = next((w for w in self._workers if w.label == device), None)
            active = worker.current if worker is not None else None
        else:
            active = self._active
        return active.annotate(label) if active is not None else False

    # -- the run ---------------------------------------------------------------------------------
    def run(self) -> RunResult:
        """Run the plan to the end (or until cancelled). Raises `DeviceError` if a device cannot be opened,
        `StorageError` if the run cannot be recorded (the run stops at the first write that fails)."""
        plan = self.plan
        user = plan.make_user(channel=self.channel, control=self.control)
        self._workers = open_workers(plan, channel=self.channel, control=self.control)  # before the run directory: an unusable device leaves nothing
        try:
            files = RunFiles(plan)
        except BaseException:
            close_workers(self._workers)
            raise
        self.run_dir, self.record, self.memory, self.reserve = files.dir, files.record, files.memory, files.reserve
        self.phones.record = self.record
        self.observers.on_run_started(self.run_dir, len(plan.tasks))
        self.observers.on_devices([w.label for w in self._workers])
        status = "completed"
        try:
            if plan.sequence:
                self._run_sequence(self._workers[0], user)
            elif len(self._workers) == 1:
                for n, task in enumerate(plan.tasks, 1):
                    if self.control.cancelled:
                        break
                    if self._ready(task, n, len(plan.tasks)):
                        self._run_task(self._workers[0], user, task)
            else:
                self._run_batch(user)
            if self.control.cancelled:
                status = "cancelled"
            elif self._gave_up:
                status = "error"  # tasks were left unrun: run.json's warnings say which phone and why
        except BaseException as err:
            status = "interrupted" if isinstance(err, KeyboardInterrupt) else "error"
            if isinstance(err, StorageError):
                self.fault = err
                self.record.try_warn(f"run stopped: {err}")
            elif not isinstance(err, KeyboardInterrupt):
                self.record.try_warn(f"run stopped: {type(err).__name__}: {err}")
            raise
        finally:
            self.channel.withdraw_all()
            close_workers(self._workers)
            model = next((w.agent.model for w in self._workers if getattr(w.agent, "model", None)), None)
            unmarked = files.close(status if not self._interrupted else "interrupted", model=model)
            if unmarked is not None:
                self.unmarked.append(unmarked)
            self.observers.on_run_finished([ep for r in self._results.values() for ep in r.attempts])
        return RunResult(self.run_dir, dict(self._results), cancelled=self.control.cancelled,
                         interrupted=self._interrupted)

    def _ready(self, task: Task, n: int, total: int, values: dict[str, str] | None = None) -> bool:
        """A baseline session's pause between tasks (`plan.intermission`): the person reads the next
        task and starts it, skips it, or ends the session, through a `start` request on the channel
        (a modal in the TUI, a prompt headless). True to run the task."""
        if not self.plan.intermission:
            return True
        plan = self.plan
        instruction = instruction_for(task, plan.level, values or {})
        text = (f"Next: task {n} of {total}, {task.id} ({plan.level}): {instruction}\n"
                "Enter starts it (your time starts then) · skip · stop ends the session")
        try:
            word = self.channel.ask("start", text, control=self.control, context={
                "task": task.id, "index": n, "total": total, "level": plan.level, "instruction": instruction,
            }).strip().lower()
        except Cancelled:  # the run was cancelled (q, Ctrl-C) while the person read the task
            return False
        if word in ("stop", "q", "quit", "end"):
            self.control.cancel()
            return False
        if word in ("skip", "s"):
            assert self.record is not None
            self.record.warn(f"{task.id}: skipped by the person")
            self.observers.on_task_finished(task.id, "skipped")
            return False
        return True

    # -- one task, k attempts ------------------------------------------------------------------------
    def _prepare(self, device: Device, task: Task) -> None:
        """A fresh phone for an independent task: the sim loads its setup, a real phone runs its reset steps."""
        scenario = self.plan.scenario
        load = getattr(device, "load_setup", None)
        if callable(load):
            load(scenario.setup_for(task))
        else:
            device.reset(list(task.reset))
        when = scenario.when(task)
        if when is not None:
            self._set_clock(device, when)

    def _set_clock(self, device: Device, when: Any) -> None:
        try:
            device.set_clock(when)
        except DeviceDisconnected:
            raise  # waited for by `GonePhones.set_up`
        except DeviceError as err:
            assert self.record is not None
            label = next((w.label for w in self._workers if w.device is device), getattr(device, "name", "device"))
            self.record.warn(f"{label}: could not set the clock to {when}: {err}")

    def _attempt_dir(self, task: Task, n: int) -> Path:
        assert self.run_dir is not None
        return self.run_dir / task.id / f"attempt-{n}"

    def _run_task(self, worker: Worker, user: SimUser, task: Task, *, values: dict[str, str] | None = None,
                  sequence_index: int | None = None, stream: str | None = None,
                  prepared: bool = False, start: int = 1, result: TaskResult | None = None) -> TaskResult:
        """Attempts `start`.. of `task` on `worker` (`start` > 1 and `result`: a task another phone
        began, whose attempt `start` was cut when that phone was lost)."""
        plan, device = self.plan, worker.device
        assert self.memory is not None and self.record is not None
        stream = stream or task.id
        lesson_streams = [stream] + ([task.mirror_of] if task.mirror_of else []) + [
            t.id for t in plan.scenario.tasks if t.mirror_of == task.id]
        result = result if result is not None else TaskResult(task.id, "running")
        with self._lock:
            self._results[task.id] = result
        lost = self.phones.lost.get(worker.label)
        if lost is not None:  # the phone went away for good earlier in the run
            self._gave_up = True
            self._record_unrun(result, task, start, "error", f"device: not run, the phone is gone ({lost})",
                               values or {}, sequence_index, worker.label)
            self._close_task(result)
            return result
        snap = None
        for n in range(start, plan.attempts + 1):
            if self.control.cancelled:
                break

            def set_up(n: int = n) -> None:
                nonlocal snap
                if n == start and not prepared:
                    self._prepare(device, task)
                if n == start and plan.attempts > n:
                    snap = device.snapshot()
                if n > start:
                    if snap is not None:
                        device.restore(snap)
                    else:
                        self._prepare(device, task)

            try:  # a phone that cannot be set up fails this task, not the run
                self.phones.set_up(device, worker.label, f"setting up {task.id}", set_up)
            except DeviceLost as err:  # a host gone at once (no wait marked it): it takes no more tasks
                self.phones.mark_lost(worker.label, err)
                if self._move(worker, task, n, result, err, recorded=False):
                    return result
                self._gave_up = True
                self._record_unrun(result, task, n, "error", f"device: setting up the task failed: {err}",
                                   values or {}, sequence_index, worker.label)
                break
            except DeviceError as err:
                self._record_unrun(result, task, n, "error", f"device: setting up the task failed: {err}",
                                   values or {}, sequence_index, worker.label)
                break
            more = n < plan.attempts
            spec = AttemptSpec(
                scenario=plan.scenario, task=task, level=plan.level, attempt=n, attempts=plan.attempts,
                budget=plan.budget(task), directory=self._attempt_dir(task, n), run_id=self.record.data["run_id"],
                values=dict(values or {}), lessons=self.memory.lessons(*lesson_streams), ltm=self.memory.ltm(stream),
                sequence_index=sequence_index, seed=plan.seed, want_lessons=more, modes=self.modes,
                earlier=(earlier_tasks(self.run_dir, plan.scenario, sequence_index, self.record.data)
                         if self.modes.context == "augmented" and self.run_dir is not None else []),
            )
            runner = AttemptRunner(spec, device=device, agent=worker.agent, user=user, observers=self.observers,
                                   control=self.control, channel=self.channel, disconnect_wait_s=self.wait_s,
                                   label=worker.label, reserve=self.reserve)
            worker.current = runner
            self._active = runner
            outcome = runner.run()
            if runner.recorder is not None and runner.recorder.unmarked is not None:
                self.unmarked.append(runner.recorder.unmarked)
            if runner.fault is not None:  # the disk failed: no lessons or memory to write, the run stops
                result.attempts.append(outcome.episode)
                with contextlib.suppress(StorageError):  # run.json's end is written again as the run stops
                    self._close_task(result)
                raise runner.fault
            if runner.lost is not None:
                self.phones.mark_lost(worker.label, runner.lost)
                if self._move(worker, task, n, result, runner.lost, recorded=True):
                    return result  # not closed: the phone that takes it up closes it
                self._gave_up = True
                self._after_attempt(result, outcome, stream, n)
                break
            self._after_attempt(result, outcome, stream, n)
            if outcome.status == "aborted":
                if "keyboard" in (outcome.episode.error or ""):
                    self._interrupted = True
                break
            if outcome.status == "success" and not plan.all_attempts:
                break
        self._close_task(result)
        return result

    def _after_attempt(self, result: TaskResult, outcome: AttemptOutcome, stream: str, n: int) -> None:
        assert self.memory is not None
        ep = outcome.episode
        result.attempts.append(ep)
        if ep.status == "success" and result.first_success is None:
            result.first_success = n
        self.memory.update(stream, ltm=outcome.memory.ltm, lessons=outcome.lessons, attempt=n, task=result.task)
        result.last = outcome

    def _close_task(self, result: TaskResult) -> None:
        assert self.record is not None
        if result.first_success is not None:
            result.status = "success"
        elif result.attempts:
            result.status = result.attempts[-1].status
        else:
            result.status = "aborted"
        self.record.task_result(result.task, {
            "status": result.status,
            "attempts": len(result.attempts),
            "first_success": result.first_success,
            "statuses": [ep.status for ep in result.attempts],
            **({"values": result.values} if result.values else {}),
            **({"lost": list(self._lost_attempts[result.task])} if result.task in self._lost_attempts else {}),
        })
        self.observers.on_task_finished(result.task, result.status)

    def _record_unrun(self, result: TaskResult, task: Task, n: int, status: str, error: str,
                      values: dict[str, str], index: int | None, device: str) -> None:
        """An attempt that could not start (blocked, or the phone could not be set up): an episode with no steps."""
        plan = self.plan
        assert self.record is not None
        ep = Episode(
            run_id=self.record.data["run_id"], task=task.id, scenario=plan.scenario.id, sequence_index=index,
            instruction=instruction_for(task, plan.level, values), level=plan.level,  # type: ignore[arg-type]
            attempt=n, attempts=plan.attempts, agent=plan.agent_name, model=plan.model, user=plan.user,
            device=device, budget=plan.budget(task), milestones_total=len(task.all_milestones()),
            timings=Timings(started_at=now()),
        )
        ep.values = template_values(task, values)
        rec = Recorder(self._attempt_dir(task, n), ep, reserve=self.reserve)
        ep = rec.finish(status, error=error)  # type: ignore[arg-type]
        if rec.unmarked is not None:
            raise rec.unmarked
        result.attempts.append(ep)
        self.observers.on_attempt_finished(ep)
