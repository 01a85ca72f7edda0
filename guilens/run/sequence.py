"""A persistent day: the tasks of a sequence in order on one phone that keeps its state.

Kept apart from the runner's task and batch logic (`guilens.run.engine`): a day
plays the tasks before the first selected one from their references, sets the
virtual clock to each task's time, hands values on from task to task, and records
a task whose prerequisite failed as `blocked` rather than running it. `Runner`
mixes this in; the attributes and methods named under TYPE_CHECKING are the
runner's, declared so the type checker sees what these methods use.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from typing import TYPE_CHECKING, Any

from guilens.control import RunControl
from guilens.device.base import DeviceLost
from guilens.run.reconnect import GonePhones
from guilens.run.store import RunRecord
from guilens.run.types import TaskResult
from guilens.run.workers import Worker

if TYPE_CHECKING:
    from guilens.device.base import Device
    from guilens.run.plan import RunPlan
    from guilens.scenarios.model import Task
    from guilens.users import SimUser


class SequenceMixin:
    """`_run_sequence` and its parts, for `Runner`."""

    plan: RunPlan
    record: RunRecord | None
    control: RunControl
    phones: GonePhones
    _lock: threading.Lock
    _results: dict[str, TaskResult]
    _workers: list[Worker]

    if TYPE_CHECKING:
        def _ready(self, task: Task, n: int, total: int, values: dict[str, str] | None = None) -> bool: ...
        def _set_clock(self, device: Device, when: Any) -> None: ...
        def _run_task(self, worker: Worker, user: SimUser, task: Task, *, values: dict[str, str] | None = None,
                      sequence_index: int | None = None, stream: str | None = None,
                      prepared: bool = False) -> TaskResult: ...
        def _close_task(self, result: TaskResult) -> None: ...
        def _record_unrun(self, result: TaskResult, task: Task, n: int, status: str, error: str,
                          values: dict[str, str], index: int | None, device: str) -> None: ...

    def _run_sequence(self, worker: Worker, user: SimUser) -> None:
        from guilens.scenarios.checks import extract_value

        plan, device = self.plan, worker.device
        scenario = plan.scenario
        assert self.record is not None
        load = getattr(device, "load_setup", None)
        if callable(load):
            load(dict(scenario.setup))
        values: dict[str, str] = {}
        outcomes: dict[str, str] = {}
        if plan.prefix:
            values = self._replay_prefix(device, values)
            outcomes.update({t.id: "success" for t in plan.prefix})
        index0 = len(plan.prefix)
        for i, task in enumerate(plan.tasks):
            if self.control.cancelled:
                break
            failed = [d for d in task.depends_on if outcomes.get(d) != "success"]
            if failed:
                outcomes[task.id] = "blocked"
                self._record_blocked(task, failed, outcomes, values, index0 + i)
                # A task that did not run hands on what it would have when done right, as a failed one
                # does, so later instructions are still filled (their own prerequisites decide if they run).
                values.update({name: src.expected for name, src in task.outputs.items()})
                continue
            if not self._ready(task, i + 1, len(plan.tasks), values):
                outcomes[task.id] = "skipped"  # its dependents are blocked, as after a failure
                values.update({name: src.expected for name, src in task.outputs.items()})
                continue
            when = scenario.when(task)
            if when is not None and worker.label not in self.phones.lost:
                with contextlib.suppress(DeviceLost):  # then recorded as not run, by `_run_task`
                    self.phones.set_up(worker.device, worker.label, f"setting the clock for {task.id}",
                                       functools.partial(self._set_clock, device, when))
            result = self._run_task(worker, user, task, values=dict(values), sequence_index=index0 + i,
                                    stream=scenario.id, prepared=True)
            outcomes[task.id] = result.status
            last = result.last
            for name, src in task.outputs.items():
                got = extract_value(src, last.final_state, last.answer) if last is not None else None
                values[name] = got if got is not None else src.expected
                result.values[name] = values[name]
            if result.values:
                self.record.task_result(task.id, {**self.record.data["results"].get(task.id, {}),
                                                  "values": dict(result.values)})

    def _replay_prefix(self, device: Device, values: dict[str, str]) -> dict[str, str]:
        """Bring the day up to the first selected task by playing the earlier tasks' references."""
        from guilens.scenarios.checks import extract_value
        from guilens.scenarios.reference import run_reference

        assert self.record is not None
        scenario = self.plan.scenario
        for task in self.plan.prefix:
            when = scenario.when(task)
            if when is not None:
                self._set_clock(device, when)
            run = run_reference(task, device, "L0", values=dict(values))
            if not run.ok:
                self.record.warn(f"replaying earlier task {task.id!r}: {run.summary()}")
            state = device.state()
            for name, src in task.outputs.items():
                got = extract_value(src, state, run.answer)
                values[name] = got if got is not None else src.expected
        return values

    def _record_blocked(self, task: Task, failed: list[str], outcomes: dict[str, str],
                        values: dict[str, str], index: int) -> None:
        """A dependent of a failed prerequisite: recorded as `blocked`, not run."""
        why = ", ".join(f"{d} ({outcomes.get(d, 'not run')})" for d in failed)
        result = TaskResult(task.id, "blocked")
        with self._lock:
            self._results[task.id] = result
        self._record_unrun(result, task, 1, "blocked", f"prerequisite failed: {why}", values, index,
                           self._workers[0].label)
        self._close_task(result)
