"""Verifying a task's alternative paths: every path of every alternatives node has a reference that
takes it, and that reference completes the task by that path.

A path's own `reference` (a whole solution, sharing stretches with the task's by YAML aliases) is
played from the task's start state; a path without one must be the path the task's reference takes.
Kept apart from `guilens.scenarios.verify` so the task graph's rules live in one place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from guilens.scenarios.reference import ReferenceRun, run_reference

if TYPE_CHECKING:
    from guilens.device.base import Device
    from guilens.scenarios.model import Task


class Findings(Protocol):
    def add(self, name: str, ok: bool, detail: str = "") -> None: ...


def _path_finding(v: Findings, task: Task, run: ReferenceRun, node: str, path: str, whose: str) -> None:
    took = run.tracker.chosen.get(node)
    ok = run.ok and took == path
    if ok:
        detail = f"{whose} completes {node!r} by {path!r}: {run.summary()}"
    elif took is not None and took != path:
        detail = f"{whose} completes {node!r} by {took!r}, not by {path!r}: {run.summary()}"
    else:
        detail = f"{whose} does not complete the task by {path!r}: {run.summary()}"
    v.add(f"path {node}/{path}", ok, detail)


def verify_own_paths(v: Findings, task: Task, device: Device, values: dict[str, str]) -> None:
    """Play each path's own reference on a fresh copy of the start state (the caller restores it)."""
    snap = device.snapshot()
    for alt in task.alternatives():
        for p in alt.any_of:
            if not p.reference:
                continue
            device.restore(snap)
            player = task.model_copy(update={"reference": list(p.reference)})
            run = run_reference(task, device, "L0", values=values, steps_of=player)
            _path_finding(v, task, run, alt.id, p.id, f"path {p.id!r}'s reference")
    device.restore(snap)


def verify_main_path(v: Findings, task: Task, run: ReferenceRun) -> None:
    """The paths without a reference of their own: the task's reference must take them."""
    for alt in task.alternatives():
        bare = [p.id for p in alt.any_of if not p.reference]
        if len(bare) > 1:
            v.add(f"paths of {alt.id}", False, f"paths {', '.join(bare)} have no reference of their own, and the "
                  "task's reference can take only one: give the others a `reference`")
            continue
        if bare:
            _path_finding(v, task, run, alt.id, bare[0], "the task's reference")
