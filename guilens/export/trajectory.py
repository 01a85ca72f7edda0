"""Trajectories as JSON Lines, for people who train on them: one line per step, the action in the
papers' common form.

Each line is one step of one episode, in episode order then step order:

- `task_id`, `scenario`, `episode` (`<task>/attempt-<n>`, or `.` for a lone
  episode), `attempt`, `level` (L0/L1/L2), `instruction` (what the agent was
  told, at that level);
- `step_index` (0-based, as in `screens/0000.png`), `num_steps`, `is_last`;
- `screen`: the screen the agent saw before acting, and `screen_after`: the
  screen its action led to (the next step's, or the final screen), both paths
  relative to the directory that was exported; `screen_size` [w, h];
- `app` (the foreground package), `thought`, `action_description`;
- `action`: the common form below; `action_guilens`: the action as guilens
  recorded it (device pixels, `guilens schema step`);
- `by` (`agent` or `human`), `error` (why the phone refused the action) or null,
  `ask` ({`question`, `answer`}) or null, `milestones` reached by this action;
- `outcome`, the same on every line so a filter needs no look-ahead:
  `status` (success, failure, timeout, ...), `success` (the judge's decision
  where a verdict exists, else the runner's; null when nobody decided),
  `decided_by`, `final_answer`.

The common form is AndroidWorld's JSON action (also AndroidControl's and, with
`coordinate`, Qwen's mobile_use), with pixel points as `coordinate: [x, y]`:

| guilens              | action_type      | other fields                                     |
|----------------------|------------------|--------------------------------------------------|
| tap                  | click            | coordinate                                       |
| long_press           | long_press       | coordinate, duration_ms                          |
| swipe                | swipe            | coordinate (start), coordinate2 (end), duration_ms |
| scroll               | scroll           | direction (the content's: down shows what is below), coordinate when aimed |
| type                 | type             | text; clear: true when the field was emptied first |
| key back / home      | navigate_back / navigate_home |                                     |
| key enter            | keyboard_enter   |                                                  |
| key delete/menu/recent | key            | key                                              |
| open_app             | open_app         | app_name                                         |
| wait                 | wait             | seconds                                          |
| ask_user             | ask_user         | text (the question)                              |
| answer               | answer           | text                                             |
| finish               | status           | goal_status: complete or infeasible              |

A tap recorded without pixels (an element the runner could not resolve) keeps
`element`/`target` instead of `coordinate`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from guilens.export.formats import ExportError, ExportOptions, ExportResult, Scope

_KEYS = {"back": "navigate_back", "home": "navigate_home", "enter": "keyboard_enter"}


def _point(action: dict[str, Any]) -> dict[str, Any]:
    if action.get("x") is not None and action.get("y") is not None:
        return {"coordinate": [action["x"], action["y"]]}
    return {k: action[k] for k in ("element", "target") if action.get(k) is not None}


def common_action(action: dict[str, Any] | None) -> dict[str, Any] | None:
    """A guilens action (its JSON form) in the common form of the module docstring; None stays None."""
    if action is None:
        return None
    kind = action.get("type")
    match kind:
        case "tap":
            return {"action_type": "click", **_point(action)}
        case "long_press":
            return {"action_type": "long_press", **_point(action), "duration_ms": action.get("duration_ms", 800)}
        case "swipe":
            return {"action_type": "swipe", "coordinate": [action.get("x1"), action.get("y1")],
                    "coordinate2": [action.get("x2"), action.get("y2")], "duration_ms": action.get("duration_ms", 300)}
        case "scroll":
            return {"action_type": "scroll", "direction": action.get("direction"), **_point(action)}
        case "type":
            out: dict[str, Any] = {"action_type": "type", "text": action.get("text", "")}
            if action.get("clear"):
                out["clear"] = True
            return out
        case "key":
            key = str(action.get("key"))
            return {"action_type": _KEYS[key]} if key in _KEYS else {"action_type": "key", "key": key}
        case "open_app":
            return {"action_type": "open_app", "app_name": action.get("app")}
        case "wait":
            return {"action_type": "wait", "seconds": action.get("seconds", 1.0)}
        case "ask_user":
            return {"action_type": "ask_user", "text": action.get("question", "")}
        case "answer":
            return {"action_type": "answer", "text": action.get("text", "")}
        case "finish":
            status = action.get("status", "success")
            return {"action_type": "status", "goal_status": "complete" if status == "success" else "infeasible"}
    return {"action_type": "unknown", "raw": action}


STATUS_SUCCESS = {"success": True, "failure": False, "timeout": False, "blocked": False}


def _outcome(reader: Any) -> dict[str, Any]:
    ep = reader.episode
    verdict = reader.verdict() or {}
    decision = verdict.get("decision")
    if decision in ("success", "failure"):
        success: bool | None = decision == "success"
        decided_by = f"judge:{verdict.get('decided_by')}"
    else:
        success, decided_by = STATUS_SUCCESS.get(ep.status), f"status:{ep.status}"
    return {"status": ep.status, "success": success, "decided_by": decided_by, "final_answer": ep.final_answer}


def episode_lines(directory: Path, root: Path) -> list[dict[str, Any]]:
    """The lines of the episode at `directory`, with paths relative to `root` (the exported directory)."""
    from guilens.episode import EpisodeError, EpisodeReader

    try:
        reader = EpisodeReader(directory)
        steps = reader.steps
    except EpisodeError as err:
        raise ExportError(str(err)) from None
    ep = reader.episode
    rel = directory.resolve().relative_to(root.resolve())
    where = rel.as_posix()

    def path(p: str | None) -> str | None:
        return None if p is None else (rel / p).as_posix()

    outcome = _outcome(reader)
    lines = []
    for i, s in enumerate(steps):
        after = steps[i + 1].screen if i + 1 < len(steps) else ep.final_screen
        lines.append({
            "task_id": ep.task, "scenario": ep.scenario, "episode": where, "attempt": ep.attempt,
            "level": ep.level, "instruction": ep.instruction,
            "step_index": s.index, "num_steps": len(steps), "is_last": i == len(steps) - 1,
            "screen": path(s.screen), "screen_after": path(after),
            "screen_size": list(ep.screen_size) if ep.screen_size else None,
            "app": s.app, "thought": s.thought, "action_description": s.action_description,
            "action": common_action(s.action), "action_guilens": s.action,
            "by": s.by, "error": s.error,
            "ask": {"question": s.ask.question, "answer": s.ask.answer} if s.ask is not None else None,
            "milestones": s.milestones,
            "outcome": outcome,
        })
    return lines


class JsonlExporter:
    """An episode or a whole run as trajectory lines (see the module docstring for the fields)."""

    name = "jsonl"
    scope: Scope = "either"
    suffix = ".jsonl"
    description = "an episode or a run as JSON Lines, one step a line, actions in AndroidWorld's form"

    def check(self) -> None:
        return None

    def export(self, source: Path, out: Path, options: ExportOptions) -> ExportResult:
        from guilens.episode import find_episodes
        from guilens.storage import write_atomic

        episodes = find_episodes(source)
        lines: list[dict[str, Any]] = []
        warnings = []
        for d in episodes:
            try:
                lines.extend(episode_lines(d, source))
            except ExportError as err:
                if len(episodes) == 1:
                    raise
                warnings.append(f"left out: {err}")
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        size = write_atomic(out, text)
        return ExportResult(out, f"{len(lines)} steps of {len(episodes) - len(warnings)} episode(s), "
                                 f"{size / 1024:.0f} kB", warnings)
