"""Human baselines: a task written from what a person did and marked (AndroidLens' annotation workflow).

A person runs a task with `--agent human` (or takes over), marking milestones
with `m` as they reach them. `task_from_episode` turns that episode into a
scenario file holding one task whose reference solution is the person's
actions (written against element ids and texts found in the recorded UI trees,
never pixels, so the oracle agent and `guilens scenarios verify` can replay
it), whose `golden_steps` is the number of steps they took, and whose
milestones are their marks, each with the step it was reached at. Everything
else (instructions, user knowledge, setup, checks) comes from the task the
episode ran, when guilens can still find it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guilens.device.uitree import UINode, clickable_ancestor, find_nodes, parse_ui_xml
from guilens.episode import EpisodeReader, Step


class BaselineError(ValueError):
    """The episode cannot become a task; the message says which step or field."""


@dataclass
class Baseline:
    scenario: dict[str, Any]
    """The scenario file's content: validated, ready to dump as YAML."""
    skipped: list[str] = field(default_factory=list)
    """Steps that could not be written as reference steps, and why."""


def _slug(label: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_.-]+", "-", label.strip()).strip("-.").lower()
    return s or "milestone"


def _node_at(root: UINode, x: int, y: int) -> UINode | None:
    """The smallest node containing the point, preferring actionable ones (what a tap hits)."""
    best: UINode | None = None
    for node in root.iter():
        x1, y1, x2, y2 = node.bounds
        if x1 <= x < x2 and y1 <= y < y2 and node.area > 0 and (best is None or node.area <= best.area):
            best = node
    return best


def _selector(root: UINode | None, step: Step, x: int, y: int) -> Any:
    """An id or text selector that finds the tapped element again, checked against the same tree."""
    candidates: list[Any] = []
    t = step.target or {}
    if t.get("resource_id"):
        candidates.append({"id": str(t["resource_id"]).rpartition("/")[2]})
    if t.get("label"):
        candidates.append(str(t["label"]))
    if root is not None:
        node = _node_at(root, x, y)
        seen = set()
        while node is not None and id(node) not in seen:
            seen.add(id(node))
            if node.short_id:
                candidates.append({"id": node.short_id})
            if node.text:
                candidates.append(node.text)
            if node.content_desc:
                candidates.append({"desc": node.content_desc})
            node = node.parent
    for cand in candidates:
        if isinstance(cand, str) and ":" in cand:
            cand = {"text": cand}  # a bare `a:b` would read as a selector kind
        if root is None:
            return cand
        kind = next((k for k in ("id", "text", "desc") if isinstance(cand, dict) and k in cand), None)
        sel = f"{kind}:{cand[kind]}" if kind else cand
        hits = find_nodes(root, sel)
        # The selector must land on the element that was tapped (or its clickable parent).
        for i, hit in enumerate(hits):
            box = clickable_ancestor(hit).bounds
            if box[0] <= x < box[2] and box[1] <= y < box[3]:
                if i == 0:
                    return cand
                return {**(cand if isinstance(cand, dict) else {"text": cand}), "index": i}
    return None


def _swipe(a: dict[str, Any], size: tuple[int, int]) -> dict[str, Any]:
    dx, dy = a["x2"] - a["x1"], a["y2"] - a["y1"]
    w, h = size
    if abs(dy) >= abs(dx):
        direction, dist = ("up" if dy < 0 else "down"), abs(dy) / h
    else:
        direction, dist = ("left" if dx < 0 else "right"), abs(dx) / w
    dist = round(min(0.9, max(0.05, dist)), 2)
    return {"swipe": direction if abs(dist - 0.3) < 0.05 else {"direction": direction, "distance": dist}}


def reference_step(step: Step, root: UINode | None, size: tuple[int, int]) -> Any:
    """One reference step for a recorded step; raises BaselineError when it has no element to name."""
    a = step.action or {}
    kind = a.get("type")
    why = step.thought.strip()
    out: Any
    if kind in ("tap", "long_press"):
        sel = _selector(root, step, int(a["x"]), int(a["y"]))
        if sel is None:
            raise BaselineError(f"step {step.index}: no element with an id or text at ({a['x']}, {a['y']})")
        out = {"tap" if kind == "tap" else "long_press": sel}
    elif kind == "type":
        out = {"type": a["text"]}
    elif kind == "swipe":
        out = _swipe(a, size)
    elif kind == "key":
        out = a["key"]
    elif kind == "open_app":
        out = {"open": a["app"]}
    elif kind == "wait":
        out = {"wait": a.get("seconds", 1.0)}
    elif kind == "ask_user":
        out = {"ask": a["question"]}
    elif kind == "answer":
        out = {"answer": a["text"]}
    elif kind == "finish":
        out = "finish" if a.get("status", "success") == "success" else {"finish": "failure"}
    else:
        raise BaselineError(f"step {step.index}: {'no action' if not kind else f'action {kind!r}'} to replay")
    if why and isinstance(out, dict) and "remember" not in out:
        out["why"] = why
    return out


def task_from_episode(path: Path | str, *, task_id: str | None = None) -> Baseline:
    """Build the baseline scenario from an attempt directory (see the module docstring)."""
    from guilens.scenarios.loader import scenario_from_data

    reader = EpisodeReader(path)
    ep = reader.episode
    steps = [s for s in reader.steps if s.action is not None and not s.error]
    if not steps:
        raise BaselineError(f"{reader.dir}: no step with an action to learn from")
    size = tuple(ep.screen_size or (1080, 2400))
    reference: list[Any] = []
    skipped: list[str] = []
    marks: list[tuple[str, int]] = []
    for s in reader.steps:
        for label in s.annotations:
            marks.append((label, s.index))
    for s in steps:
        xml = reader.ui_xml(s.index)
        root = parse_ui_xml(xml) if xml else None
        try:
            reference.append(reference_step(s, root, size))  # type: ignore[arg-type]
        except BaselineError as err:
            skipped.append(str(err))
    if not reference:
        raise BaselineError(f"{reader.dir}: none of the steps could be written as reference steps: {skipped[0]}")
    golden = sum(1 for r in reference if not (isinstance(r, dict) and "remember" in r))

    original_scenario, original = _original(reader)
    by_id = {m.id: m for m in original.all_milestones()} if original is not None else {}
    milestones: list[dict[str, Any]] = []
    used: set[str] = set()
    position = {s.index: n for n, s in enumerate(steps, 1)}
    for label, index in marks:
        mid = label if label in by_id else _slug(label)
        base = mid
        n = 2
        while mid in used:
            mid, n = f"{base}-{n}", n + 1
        used.add(mid)
        reached = position.get(index, index + 1)
        if mid in by_id:
            m = by_id[mid].model_dump(mode="json", exclude_none=True)
            m["golden_step"] = reached
        else:
            m = {"id": mid, "text": label, "golden_step": reached}
        milestones.append(m)

    if original is not None:
        task = original.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
        task["id"] = task_id or f"{original.id}-human"
    else:
        apps = list(dict.fromkeys(s.app for s in reader.steps if s.app)) or ["unknown"]
        task = {"id": task_id or f"{ep.task}-human", "apps": apps, "instruction": {"L0": ep.instruction or ep.task},
                "difficulty": 1}
    task["reference"] = reference
    task["golden_steps"] = golden
    task.pop("max_steps", None)
    if milestones:
        task["milestones"] = milestones
        if all("check" not in m for m in milestones):
            rule = dict(task.get("success") or {})
            rule["milestones"] = "none"  # marks carry no checks: the judge reads them
            task["success"] = rule
    meta = dict(task.get("meta") or {})
    meta["baseline"] = {"episode": str(reader.dir), "by": "human" if any(s.by == "human" for s in steps) else ep.agent,
                        "steps": len(steps), "duration_s": ep.timings.duration_s}
    task["meta"] = meta
    scenario: dict[str, Any] = {
        "id": f"{ep.scenario or 'baseline'}-human",
        "title": f"Human baseline of {ep.scenario}:{ep.task}" if ep.scenario else f"Human baseline of {ep.task}",
        "description": f"Written by `guilens scenarios from-episode` from {reader.dir}.",
        "device": original_scenario.device if original_scenario is not None else "any",
        "tasks": [task],
    }
    if original_scenario is not None and original_scenario.setup:
        scenario["setup"] = original_scenario.setup
    try:
        scenario_from_data(scenario, file="<baseline>")
    except Exception as err:
        raise BaselineError(f"the task written from {reader.dir} does not validate: {err}") from None
    return Baseline(scenario, skipped)


def _original(reader: EpisodeReader) -> tuple[Any, Any]:
    try:
        from guilens.judge.pipeline import resolve_task

        scenario, task, _values, _origin = resolve_task(reader)
        return scenario, task
    except Exception:  # no copy and no built-in by that name: the baseline stands alone
        return None, None


def write_baseline(path: Path | str, out: Path | str, *, task_id: str | None = None) -> Baseline:
    import yaml

    b = task_from_episode(path, task_id=task_id)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump(b.scenario, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8")
    return b
