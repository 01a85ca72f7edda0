"""A batch's shared queue of work, and the attempts a lost phone cut short that another phone re-runs.

A phone can be lost for good mid-attempt: an adb device that did not come back
within the run's wait, a sim whose child process died, a Ray actor or the node
under it killed (`DeviceLost`, from `guilens.device.hosted` hosts at once). When
the batch has another phone still going, the cut attempt is not a result of the
agent: it is *re-run* there, as the same attempt number, and recorded once.

- The cut attempt's directory is kept aside, not deleted (it shows where the phone
  died): `attempt-N` becomes `attempt-N.lost-<label>`, and its `episode.json` is
  renamed `episode.lost.json`, so no reader (judge, metrics, replay, export: they
  all look for `episode.json`) counts it as an episode of the run.
- run.json's warnings say which task, which attempt, which phone and why; the
  task's result in run.json lists it under `lost`.
- The task goes back on the queue with its attempt number and the result so far
  (earlier attempts, finished on the lost phone, stay: they were complete), and
  the next free phone runs it from a fresh set-up.

A sequence (a persistent day) is never moved: its state lives on its one phone.

`WorkQueue` is why a finished phone does not walk away too early: a phone asks
for work while another is still mid-task, and that task may come back (its
phone lost). So a phone waits while any task is in flight and leaves only when
the queue is empty and nothing is running.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guilens.control import RunControl
from guilens.device.base import DeviceLost
from guilens.run.reconnect import GonePhones, message_of
from guilens.run.store import RunRecord
from guilens.run.types import TaskResult
from guilens.run.workers import Worker
from guilens.storage import StorageError

if TYPE_CHECKING:
    from guilens.run.plan import RunPlan
    from guilens.scenarios.model import Task
    from guilens.users import SimUser

LOST_EPISODE = "episode.lost.json"


@dataclass
class Work:
    """A task to run, from attempt `start` (1, or the attempt a lost phone cut), continuing `result`."""

    task: Task
    start: int = 1
    result: TaskResult | None = None


class WorkQueue:
    """The batch's tasks; `take()` blocks while tasks are in flight that may come back."""

    def __init__(self, tasks: list[Task]) -> None:
        self._items: deque[Work] = deque(Work(t) for t in tasks)
        self._busy = 0
        self._cond = threading.Condition()
        self._closed = False

    def take(self) -> Work | None:
        """The next work, counted in flight until `done()`; None when there is none and none can come."""
        with self._cond:
            while True:
                if self._closed:
                    return None
                if self._items:
                    self._busy += 1
                    return self._items.popleft()
                if self._busy == 0:
                    return None
                self._cond.wait(0.2)

    def put_back(self, work: Work) -> None:
        """A task cut short: the next phone to ask takes it first."""
        with self._cond:
            self._items.appendleft(work)
            self._cond.notify_all()

    def done(self) -> None:
        with self._cond:
            self._busy -= 1
            self._cond.notify_all()

    def close(self) -> None:
        """Stop handing out work (a cancelled run, a failed disk)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def left(self) -> list[Work]:
        """What no phone took (every phone was lost): the caller records it."""
        with self._cond:
            items, self._items = list(self._items), deque()
            return items


def set_aside(directory: Path, label: str) -> Path:
    """Move a cut attempt's directory out of the run's episodes (see the module docstring); return
    where it went. `OSError` if it cannot be moved (then it is not re-run: the number is taken)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in label)
    target = directory.with_name(f"{directory.name}.lost-{safe}")
    n = 1
    while target.exists():
        n += 1
        target = directory.with_name(f"{directory.name}.lost-{safe}-{n}")
    if directory.exists():
        directory.rename(target)
        episode = target / "episode.json"
        if episode.exists():
            episode.rename(target / LOST_EPISODE)
    return target


class RerunMixin:
    """A batch over several phones (`_run_batch`: one thread per phone taking work from the queue),
    and moving a cut attempt to another phone (`_can_move`, `_move`), for `Runner` (its attributes,
    declared for the type checker)."""

    plan: RunPlan
    record: RunRecord | None
    control: RunControl
    phones: GonePhones
    _lock: threading.Lock
    _workers: list[Worker]
    _todo: WorkQueue | None
    _lost_attempts: dict[str, list[dict[str, Any]]]
    _stopped: set[str]

    _results: dict[str, TaskResult]
    _interrupted: bool

    if TYPE_CHECKING:
        def _attempt_dir(self, task: Task, n: int) -> Path: ...
        def _run_task(self, worker: Worker, user: SimUser, task: Task, *, values: dict[str, str] | None = None,
                      sequence_index: int | None = None, stream: str | None = None, prepared: bool = False,
                      start: int = 1, result: TaskResult | None = None) -> TaskResult: ...
        def _close_task(self, result: TaskResult) -> None: ...


    def _can_move(self, worker: Worker) -> bool:
        """Whether a task cut on `worker`'s lost phone can be re-run on another (`guilens.run.rerun`)."""
        return (self._todo is not None and not self.plan.sequence and not self.control.cancelled
                and any(w is not worker and w.label not in self.phones.lost and w.label not in self._stopped
                        for w in self._workers))

    def _move(self, worker: Worker, task: Task, n: int, result: TaskResult, lost: DeviceLost,
              recorded: bool) -> bool:
        """Hand attempt `n` of `task`, cut by `worker`'s lost phone, to another phone: what it recorded
        is set aside (`recorded`), run.json notes it. False if it cannot be (then it stays the result)."""
        if not self._can_move(worker):
            return False
        assert self.record is not None and self._todo is not None
        kept = ""
        if recorded:
            try:
                kept = set_aside(self._attempt_dir(task, n), worker.label).name
            except OSError as err:
                self.record.try_warn(f"{task.id}: attempt {n} was cut on {worker.label}, and could not be set "
                                     f"aside to re-run it ({err}): it stays the attempt's result")
                return False
        why = message_of(lost)
        note = {"attempt": n, "device": worker.label, "error": why, **({"kept": kept} if kept else {})}
        with self._lock:
            self._lost_attempts.setdefault(task.id, []).append(note)
        self.record.warn(f"{task.id}: attempt {n} was cut on {worker.label} ({why}); it is re-run on another "
                         f"device" + (f", and what it recorded is kept in {task.id}/{kept}" if kept else ""))
        self._todo.put_back(Work(task, n, result))
        return True

    def _run_batch(self, user: SimUser) -> None:
        todo = WorkQueue(list(self.plan.tasks))
        self._todo = todo
        errors: list[BaseException] = []

        def work(worker: Worker) -> None:
            while not self.control.cancelled:
                item = todo.take()
                if item is None:
                    return
                try:
                    self._run_task(worker, user, item.task, start=item.start, result=item.result)
                    if worker.label in self.phones.lost:
                        return  # the other phones take the tasks left
                except StorageError as err:  # the disk: every device stops
                    errors.append(err)
                    self.control.cancel()
                    todo.close()
                    return
                except BaseException as err:  # a device that died: record it, let the others go on
                    errors.append(err)
                    assert self.record is not None
                    self.record.try_warn(f"{worker.label}: {type(err).__name__}: {err}")
                    self._stopped.add(worker.label)
                    return
                finally:
                    todo.done()

        threads = [threading.Thread(target=work, args=(w,), name=f"run-{i}-{w.device.name}", daemon=True)
                   for i, w in enumerate(self._workers, 1)]
        for th in threads:
            th.start()
        try:
            for th in threads:
                while th.is_alive():
                    th.join(0.2)  # short joins keep Ctrl-C deliverable on this thread
        except KeyboardInterrupt:
            self._interrupted = True
            self.control.cancel()  # every worker stops within a step and records its attempt as aborted
            todo.close()
            for th in threads:
                th.join()
        fault = next((e for e in errors if isinstance(e, StorageError)), None)
        if fault is not None:
            raise fault
        lost = next((w for w in self._workers if w.label in self.phones.lost), None)
        for item in todo.left():  # every phone is gone: what is left is recorded as not run
            if lost is not None and not self.control.cancelled:
                self._run_task(lost, user, item.task, start=item.start, result=item.result)
            elif item.result is not None:  # a cut attempt nobody took up (the run was cancelled)
                self._close_task(item.result)
        if errors and not self._results:
            raise errors[0]
