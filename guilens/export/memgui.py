"""A run as a MemGUI-Bench leaderboard entry: the agent JSON its site reads (`docs/data/agents/*.json`).

The fields, as MemGUI-Bench's own exporter writes them (`leaderboard_export.py`)
and its site shows them; rates are percentages with one decimal:

- `name`: the agent (guilens' agent spec, with the model when there is one);
- `backbone`: the model the agent ran on (null for agents with none, e.g. oracle);
- `type`, `institution`, `paperLink`, `codeLink`, `trajFile`: about the agent's
  authors and their files; guilens cannot know them: null, for a person to fill;
- `date`: the day the run started (YYYY-MM-DD);
- `hasUITree`: whether the agent reads the UI tree; `hasLongTermMemory`: whether
  it carries memory across attempts. guilens sets `hasLongTermMemory` true when
  an attempt of the run was given lessons from an earlier one, and leaves both
  null otherwise (an agent may see the tree, or keep memory, in ways a run does
  not record);
- `crossApp.app1..app4`: tasks using 1, 2, 3 or 4 apps (5 and more count as 4):
  `p1` pass@1 (SR), `p3` pass@3, `irr` IRR (percent) over its memory tasks;
- `difficulty.easy|medium|hard`: the same by the task's difficulty (1, 2, 3),
  `irr` with two decimals as MemGUI-Bench writes it;
- `avg`: `p1` and `p3` over all tasks;
- `metrics.shortTerm` (pass@1): `irr` (average IRR over memory tasks, percent),
  `mtpr` (SR on memory tasks / SR on standard tasks), `stepRatio` (agent steps /
  golden steps over successful tasks), `timePerStep` (wall seconds per step),
  `costPerStep` (agent dollars per step);
- `metrics.longTerm` (pass@3): `frr` (Failure Recovery Rate, percent), and
  `stepRatio`, `timePerStep`, `costPerStep` over attempts 1..3.

Every number comes from guilens' own metrics (`guilens.judge.metrics`, the same
as `guilens report`), so the outcome of an attempt is its verdict where the
judge decided it. Where a number cannot be computed it is null, never a made-up
0: a group with no tasks (no 4-app task), IRR with no memory task or failures
the IRR analyzer did not see, MTPR with no standard task (or SR 0 on them),
step ratio with no success, cost for an agent whose price is unknown; and `p3`
and all of `longTerm` when the run gave tasks fewer than 3 attempts (`--attempts
3`), since pass@3 is not pass@1 by another name. MemGUI-Bench's code writes 0.0
in most of these places; a 0 from guilens is a measured 0.

A `guilens` block says what the numbers are over (run id, tasks, attempts,
undecided attempts) and why each null is null, so nobody has to guess.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from guilens.export.formats import ExportError, ExportOptions, ExportResult, Scope

PASS_K = 3
"""MemGUI-Bench's long-term protocol: pass@3."""


def _pct(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value * 100, digits)


def _num(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def leaderboard(report: Any) -> dict[str, Any]:
    """The leaderboard entry of a loaded run (`guilens.judge.report.load_report`)."""
    from guilens.judge import metrics as m

    records = report.records
    run = report.run
    k = report.k
    long_term = k >= PASS_K
    nulls: dict[str, str] = {}

    def value(path: str, metric: Any, convert: Any) -> float | None:
        if metric.na:
            nulls[path] = metric.note
            return None
        out: float | None = convert(metric.value)
        return out

    def p3(path: str, rs: list[Any]) -> float | None:
        if not long_term:
            nulls[path] = f"the run gave each task {k} attempt(s); pass@{PASS_K} needs {PASS_K}"
            return None
        return value(path, m.pass_at_k(rs, PASS_K), _pct)

    def group(path: str, rs: list[Any], irr_digits: int) -> dict[str, Any]:
        return {"p1": value(f"{path}.p1", m.success_rate(rs), _pct),
                "p3": p3(f"{path}.p3", rs),
                "irr": value(f"{path}.irr", m.information_retention(rs), lambda v: _pct(v, irr_digits))}

    cross = {f"app{n}": group(f"crossApp.app{n}", [r for r in records if min(max(r.apps, 1), 4) == n], 1)
             for n in (1, 2, 3, 4)}
    diff = {name: group(f"difficulty.{name}", [r for r in records if r.difficulty == d], 2)
            for d, name in m.DIFFICULTY.items()}

    def lt(path: str, metric: Any, convert: Any) -> float | None:
        if not long_term:
            nulls[path] = f"the run gave each task {k} attempt(s); the long-term protocol is pass@{PASS_K}"
            return None
        return value(path, metric, convert)

    agent = str(run.get("agent_spec") or run.get("agent") or (records[0].extra.get("agent") if records else "") or "")
    model = run.get("model")
    started = str(run.get("started_at") or "")
    lessons = any(r.extra.get("lessons") for r in records)
    entry: dict[str, Any] = {
        "name": f"{agent} ({model})" if model else agent or "unknown",
        "backbone": model or None,
        "type": None,
        "institution": None,
        "date": started[:10] or None,
        "paperLink": None,
        "codeLink": None,
        "trajFile": None,
        "hasUITree": None,
        "hasLongTermMemory": True if lessons else None,
        "crossApp": cross,
        "difficulty": diff,
        "avg": {"p1": value("avg.p1", m.success_rate(records), _pct), "p3": p3("avg.p3", records)},
        "metrics": {
            "shortTerm": {
                "irr": value("metrics.shortTerm.irr", m.information_retention(records), _pct),
                "mtpr": value("metrics.shortTerm.mtpr", m.mtpr(records), lambda v: _num(v, 2)),
                "stepRatio": value("metrics.shortTerm.stepRatio", m.step_ratio(records, 1), lambda v: _num(v, 2)),
                "timePerStep": value("metrics.shortTerm.timePerStep", m.time_per_step(records, 1),
                                     lambda v: _num(v, 1)),
                "costPerStep": value("metrics.shortTerm.costPerStep", m.cost_per_step(records, 1),
                                     lambda v: _num(v, 4)),
            },
            "longTerm": {
                "frr": lt("metrics.longTerm.frr", m.frr(records, PASS_K), _pct),
                "stepRatio": lt("metrics.longTerm.stepRatio", m.step_ratio(records, PASS_K), lambda v: _num(v, 2)),
                "timePerStep": lt("metrics.longTerm.timePerStep", m.time_per_step(records, PASS_K),
                                  lambda v: _num(v, 1)),
                "costPerStep": lt("metrics.longTerm.costPerStep", m.cost_per_step(records, PASS_K),
                                  lambda v: _num(v, 4)),
            },
        },
    }
    for key in ("type", "institution", "paperLink", "codeLink", "trajFile"):
        nulls[key] = "not recorded by a run: fill in by hand"
    if entry["backbone"] is None:
        nulls["backbone"] = f"the run names no model: agent {agent or 'unknown'!r} runs on none"
    if entry["hasUITree"] is None:
        nulls["hasUITree"] = "whether the agent reads the UI tree is not recorded by a run"
    if entry["hasLongTermMemory"] is None:
        nulls["hasLongTermMemory"] = "no attempt of the run was given lessons from an earlier one"
    by_task = m.by_task(records)
    entry["guilens"] = {
        "run_id": run.get("run_id") or report.root.name,
        "scenario": run.get("scenario"),
        "tasks": len(by_task),
        "memory_tasks": sum(1 for a in by_task.values() if a[0].memory),
        "standard_tasks": sum(1 for a in by_task.values() if not a[0].memory),
        "episodes": len(records),
        "attempts_per_task": k,
        "undecided_attempts": sum(1 for r in records if r.success is None),
        "judged_attempts": sum(1 for r in records if r.judged),
        "null_because": nulls,
    }
    return entry


class MemguiExporter:
    """A run's MemGUI-Bench leaderboard JSON (see the module docstring for each field)."""

    name = "memgui"
    scope: Scope = "run"
    suffix = ".json"
    description = "a run as a MemGUI-Bench leaderboard entry (agent JSON)"

    def check(self) -> None:
        return None

    def export(self, source: Path, out: Path, options: ExportOptions) -> ExportResult:
        from dataclasses import replace

        from guilens.judge.report import load_report
        from guilens.storage import write_atomic

        report = load_report(source)
        if not report.rows:
            raise ExportError(f"{source}: no readable episode under it" +
                              (f" ({report.problems[0]})" if report.problems else ""))
        for row in report.rows:  # what the metrics records do not carry: the agent, lessons given
            lessons = row.episode is not None and bool(row.episode.lessons)
            row.record = replace(row.record, extra={"agent": row.agent, "lessons": lessons})
        entry = leaderboard(report)
        write_atomic(out, json.dumps(entry, indent=2, ensure_ascii=False) + "\n")
        g = entry["guilens"]
        warnings = [f"left out (unreadable): {p}" for p in report.problems]
        if g["undecided_attempts"]:
            warnings.append(f"{g['undecided_attempts']} attempt(s) undecided (not judged, aborted): left out of "
                            "the rates; `guilens judge` the run first")
        return ExportResult(out, f"{g['tasks']} tasks, {g['episodes']} episodes, SR {entry['avg']['p1']}%, "
                                 f"{len(g['null_because'])} field(s) null", warnings)
