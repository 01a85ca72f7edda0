"""The run directory's own files: `run.json`, `scenario.json` and the long-term memory in `ltm/`.

`run.json` says what was run (command, agent, model, devices, level, k, ScenDroid's modes:
`ask`, `max_questions`, `context`, see `guilens.run.modes`) and,
as tasks end, how each went; it is rewritten atomically at every change, so a
run killed at any point leaves a readable one. Every write goes through
`guilens.storage`: a full or read-only disk is a `StorageError` naming the file. `ltm/` holds what an agent
carries from attempt to attempt and from task to task: its app-tagged LTM
entries and the lessons it drew from failures (pass@k), one JSON file per
memory stream (a task, or a whole sequence). `scenario.json` is the scenario
exactly as run: the judge reads it (`guilens.judge.inputs`) rather than the
built-in pack or the scenario file, which may have been edited since.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guilens.episode import LTMEntry
from guilens.run.modes import RunModes
from guilens.storage import RESERVE_NAME, Reserve, StorageError, write_atomic

if TYPE_CHECKING:
    from guilens.run.plan import RunPlan

RUN_SCHEMA_VERSION = 1
SCENARIO_COPY = "scenario.json"
"""The run's copy of its scenario, at the run root (`guilens.judge.inputs` looks for it there)."""


def _atomic_json(path: Path, data: Any, reserve: Reserve | None = None) -> None:
    write_atomic(path, json.dumps(data, indent=2, default=str), reserve=reserve)


def make_run_dir(out: Path, run_id: str) -> Path:
    """`<out>/<run-id>`, with `-2`, `-3`, ... when a run of that name exists (same second).
    Raises `StorageError` naming the folder that could not be made."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StorageError.of(out, err) from None
    for n in range(1, 1000):
        path = out / (run_id if n == 1 else f"{run_id}-{n}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        except OSError as err:
            raise StorageError.of(path, err) from None
        return path
    raise StorageError(out, f"cannot make a run directory for {run_id}: 999 of that name exist")


def save_scenario(run_dir: Path, scenario: Any) -> Path:
    """Write `<run>/scenario.json`: the whole scenario (a sequence's earlier tasks too), validated
    on reading by the same model, so templates, checks and user slots stay as they were run."""
    path = run_dir / SCENARIO_COPY
    # pydantic's own encoder: a few ms for the largest built-in pack, where json.dumps takes four times that
    write_atomic(path, scenario.model_dump_json(by_alias=True, exclude_none=True, indent=1))
    return path


class RunRecord:
    """`run.json`: thread-safe, rewritten whole on every change. A write that fails raises
    `StorageError` mid-run; at the end (`finish`, `try_warn`) it is kept in `unmarked` instead,
    for the command to report, after the run's `reserve` was given up for it on a full disk."""

    def __init__(self, run_dir: Path, plan: RunPlan, *, reserve: Reserve | None = None) -> None:
        from guilens import __version__

        self.path = run_dir / "run.json"
        self.reserve = reserve
        self.unmarked: StorageError | None = None
        """Why the last write of run.json failed, if it did (the run's end is not on disk)."""
        self._lock = threading.Lock()
        self.data: dict[str, Any] = {
            "schema_version": RUN_SCHEMA_VERSION,
            "run_id": run_dir.name,
            "command": plan.command,
            "target": plan.target,
            "scenario": plan.scenario.id,
            "sequence": plan.sequence,
            "tasks": [t.id for t in plan.tasks],
            "prefix": [t.id for t in plan.prefix],
            "agent": plan.agent_name,
            "agent_spec": plan.agent if isinstance(plan.agent, str) else plan.agent_name,
            "model": plan.model,
            "devices": [d if isinstance(d, str) else getattr(d, "name", "device") for d in plan.devices],
            "user": plan.user,
            "level": plan.level,
            "k": plan.attempts,
            "all_attempts": plan.all_attempts,
            "max_steps": plan.max_steps,
            "seed": plan.seed,
            **_variants_record(plan),
            **RunModes.of_settings(plan.settings).record(),
            "scenario_copy": SCENARIO_COPY,
            "status": "running",
            "started_at": datetime.now().astimezone().isoformat(),
            "ended_at": None,
            "results": {},
            "warnings": [],
            "guilens_version": __version__,
            "pid": os.getpid(),
            "host": socket.gethostname(),
        }
        self.write()

    def write(self) -> None:
        with self._lock:
            _atomic_json(self.path, self.data, self.reserve)

    def _save(self) -> None:
        """`write` that keeps a failure in `unmarked` rather than raising it (the end of a run)."""
        try:
            self.write()
        except StorageError as err:
            self.unmarked = err
        else:
            self.unmarked = None

    def try_warn(self, text: str) -> None:
        """`warn` for a run that is stopping: a failure to write is kept in `unmarked`, not raised."""
        with self._lock:
            self.data["warnings"].append(text)
        self._save()

    def set(self, **fields: Any) -> None:
        with self._lock:
            self.data.update(fields)
        self.write()

    def warn(self, text: str) -> None:
        with self._lock:
            self.data["warnings"].append(text)
        self.write()

    def task_result(self, task: str, result: dict[str, Any]) -> None:
        with self._lock:
            self.data["results"][task] = result
        self.write()

    def finish(self, status: str, *, model: str | None = None) -> None:
        with self._lock:
            self.data["status"] = status
            self.data["ended_at"] = datetime.now().astimezone().isoformat()
            if model and not self.data.get("model"):
                self.data["model"] = model
            self.data["pid"] = None
        self._save()


def _variants_record(plan: RunPlan) -> dict[str, Any]:
    """`variants` in run.json: how the run drew its task templates (`guilens.scenarios.params`)."""
    drawn = sorted({str(t.meta["template"]) for t in plan.tasks if "template" in t.meta})
    if not drawn:
        return {}
    return {"variants": {"count": plan.settings.variants or 1, "seed": plan.seed or 0, "templates": drawn}}


class RunFiles:
    """The run directory and its own files, made together at the start and closed together at the end.

    Made after the devices opened, so an unusable device leaves nothing; a folder that cannot be
    made, or a scenario copy or `run.json` that cannot be written, is a `StorageError` with nothing
    half made left to mark. The `reserve` is room kept back on the run's disk (`guilens.storage`).
    """

    def __init__(self, plan: RunPlan) -> None:
        self.dir = make_run_dir(plan.out, plan.run_id)
        self.reserve = Reserve(self.dir / RESERVE_NAME)
        try:
            save_scenario(self.dir, plan.scenario)  # the judge reads this copy, not a pack edited since
            self.record = RunRecord(self.dir, plan, reserve=self.reserve)
            self.memory = MemoryStore(self.dir / "ltm")
        except BaseException:
            self.reserve.release()
            raise

    def close(self, status: str, *, model: str | None = None) -> StorageError | None:
        """Mark `run.json` ended with `status` and give the reserve back; the write that failed, if one did."""
        self.record.finish(status, model=model)
        self.reserve.release()
        return self.record.unmarked


class MemoryStore:
    """Long-term memory and lessons per stream (a task id, or a sequence's scenario id).

    Thread-safe: batch workers on several devices read and write it.
    """

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StorageError.of(directory, err) from None
        self._lock = threading.Lock()
        self._ltm: dict[str, list[LTMEntry]] = {}
        self._lessons: dict[str, list[str]] = {}

    def ltm(self, stream: str) -> list[LTMEntry]:
        with self._lock:
            return [e.model_copy() for e in self._ltm.get(stream, [])]

    def lessons(self, *streams: str) -> list[str]:
        with self._lock:
            out: list[str] = []
            for s in streams:
                for lesson in self._lessons.get(s, []):
                    if lesson not in out:
                        out.append(lesson)
            return out

    def update(self, stream: str, *, ltm: list[LTMEntry] | None = None, lessons: list[str] | None = None,
               attempt: int | None = None, task: str | None = None) -> None:
        with self._lock:
            if ltm is not None:
                self._ltm[stream] = [e.model_copy() for e in ltm]
            if lessons:
                have = self._lessons.setdefault(stream, [])
                have += [x for x in lessons if x not in have]
            data = {
                "stream": stream,
                "updated_at": datetime.now().astimezone().isoformat(),
                "after": {"task": task, "attempt": attempt},
                "ltm": [e.model_dump(mode="json") for e in self._ltm.get(stream, [])],
                "lessons": list(self._lessons.get(stream, [])),
            }
            _atomic_json(self.dir / f"{_safe(stream)}.json", data)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "stream"
