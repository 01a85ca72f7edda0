"""Runs side by side (`guilens compare`): per-task outcomes, metric deltas, and McNemar's test.

Each run is read with the report's own loader (`report.load_report`) and measured with the
report's own metrics (`RunReport.metrics`), so a figure here is the figure `guilens report`
prints for that run; an outcome is the verdict's decision where the judge decided, else what the
runner recorded, by the same rule. The first run is the baseline: every other run gets its deltas
against it, and a paired test on the tasks both decided on their first attempt.

The test is McNemar's exact form: of the shared tasks, b succeeded in the baseline and failed in
the other run, c the reverse; under "no difference" each discordant task goes either way with
probability 1/2, so the two-sided p is twice the binomial tail of min(b, c) out of b + c, capped at
1. It is a dozen lines with `math.comb`; scipy or statsmodels would give the same number at the
price of a heavy dependency (and a slow import) for one binomial tail.

The terminal tables are printed by the command (`guilens/commands/compare.py`), the page by
`compare_html`; both format with the helpers at the end of this module.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guilens.judge.records import EpisodeRecord
from guilens.judge.report import RunReport, load_report


class CompareError(ValueError):
    """A path or option `compare` cannot use: said in one line naming it."""


# --- finding the runs -------------------------------------------------------------------------------


def _read_run_json(path: Path) -> dict[str, Any]:
    """A run.json, or a `CompareError` naming it: the report reads a damaged one as empty, but a
    comparison must know which agent and model a column is."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise CompareError(f"{path}: unreadable: {err.strerror or err}") from None
    except ValueError as err:
        raise CompareError(f"{path}: unreadable: not JSON ({err})") from None
    if not isinstance(data, dict):
        raise CompareError(f"{path}: unreadable: not a JSON object")
    return data


def find_runs(paths: list[Path]) -> list[Path]:
    """The run directories the arguments name, in order: a folder with a run.json is a run; a folder
    whose children have run.json holds runs (each compared, in name order); a folder laid out as a run
    (<task>/attempt-<n>/episode.json) without a run.json is a run too (a hand-made or copied one). Only
    these two levels are looked at: a folder such as /tmp is not searched through for episodes."""
    found: list[Path] = []
    for path in paths:
        if not path.exists():
            raise CompareError(f"{path}: no such file or directory")
        if not path.is_dir():
            raise CompareError(f"{path}: not a folder; give a run directory or a folder of runs")
        if (path / "run.json").is_file():
            _read_run_json(path / "run.json")
            found.append(path)
            continue
        children = sorted(c for c in path.iterdir() if c.is_dir() and (c / "run.json").is_file())
        if children:
            for child in children:
                _read_run_json(child / "run.json")
            found.extend(children)
        elif next(path.glob("*/attempt-*/episode.json"), None) is not None:
            found.append(path)  # laid out as a run (<task>/attempt-<n>/), only without its run.json
        else:
            raise CompareError(f"{path}: no run here (no run.json in it or in its folders, and no "
                               "<task>/attempt-<n>/episode.json)")
    unique = list(dict.fromkeys(p.resolve() for p in found))
    if len(unique) < 2:
        what = f"only one run: {found[0]}" if found else "no run"
        raise CompareError(f"compare needs two runs or more; got {what}")
    return [next(p for p in found if p.resolve() == u) for u in unique]


# --- the model ----------------------------------------------------------------------------------------


@dataclass
class Side:
    """One run as a column: its report, the metrics the report computes, and the name a reader sees."""

    report: RunReport
    label: str
    """The run id (the folder's name when run.json has none): unique among the runs compared."""
    metrics: dict[str, Any]

    @property
    def name(self) -> str:
        """The label with the agent and model, so a reader knows which column is which."""
        run = self.report.run
        bits = [str(run[k]) for k in ("agent", "model") if run.get(k)]
        return f"{self.label} ({', '.join(bits)})" if bits else self.label


@dataclass
class Cell:
    """A task's outcome in one run: each attempt's success (None: undecided), in attempt order."""

    outcomes: list[bool | None]
    steps: list[int]
    golden_steps: int | None
    paths: list[str]

    @property
    def first(self) -> bool | None:
        return self.outcomes[0] if self.outcomes else None

    @property
    def marks(self) -> str:
        """✓ success, ✗ failure, ? undecided, one per attempt."""
        return "".join({True: "✓", False: "✗", None: "?"}[o] for o in self.outcomes)

    @property
    def tally(self) -> str:
        """Successes over decided attempts, e.g. "1/2"."""
        decided = [o for o in self.outcomes if o is not None]
        return f"{sum(decided)}/{len(decided)}"

    def to_json(self) -> dict[str, Any]:
        return {"outcomes": self.outcomes, "first": self.first, "successes": sum(1 for o in self.outcomes if o),
                "decided": sum(1 for o in self.outcomes if o is not None), "steps": self.steps,
                "golden_steps": self.golden_steps, "paths": self.paths}


@dataclass
class TaskRow:
    scenario: str
    task: str
    cells: list[Cell | None]
    """One per run, None where the run has no such task."""


@dataclass
class MetricRow:
    """One metric across the runs: each run's value (from its report) and its delta to the baseline."""

    key: str
    label: str
    kind: str
    """How to show it: pct, ratio or usd (as the report's `fmt_metric`)."""
    better: int
    """+1 where higher is better (SR), -1 where lower is (cost, step ratio): the deltas' colour."""
    values: list[dict[str, Any]]
    """Each run's metric as the report gives it: {"value", "n", "note"}."""

    @property
    def deltas(self) -> list[float | None]:
        base = self.values[0].get("value")
        return [None if i == 0 or base is None or v.get("value") is None else v["value"] - base
                for i, v in enumerate(self.values)]

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "kind": self.kind, "higher_is_better": self.better > 0,
                "values": self.values, "deltas": self.deltas}


@dataclass
class McNemar:
    """McNemar's exact test on first-attempt success, for the tasks both runs decided."""

    baseline: str
    run: str
    n: int
    """Shared tasks decided in both runs' first attempts."""
    b: int
    """Succeeded in the baseline, failed in the run."""
    c: int
    """Failed in the baseline, succeeded in the run."""
    left_out: int = 0
    """Shared tasks whose first attempt is undecided in either run."""

    @property
    def p_value(self) -> float | None:
        """None with no shared decided task: there is nothing to test, not "no difference"."""
        return mcnemar_exact(self.b, self.c) if self.n else None

    def to_json(self) -> dict[str, Any]:
        return {"baseline": self.baseline, "run": self.run, "n_shared": self.n, "b": self.b, "c": self.c,
                "p_value": self.p_value, "left_out": self.left_out}


@dataclass
class Comparison:
    sides: list[Side]
    k: int
    tasks: list[TaskRow]
    metrics: list[MetricRow]
    tests: list[McNemar]
    problems: list[str] = field(default_factory=list)

    @property
    def one_scenario(self) -> bool:
        return len({t.scenario for t in self.tasks}) <= 1

    def task_name(self, row: TaskRow) -> str:
        return row.task if self.one_scenario or not row.scenario else f"{row.scenario}:{row.task}"

    def to_json(self) -> dict[str, Any]:
        return {
            "baseline": self.sides[0].label,
            "k": self.k,
            "runs": [{"label": s.label, "name": s.name, "path": str(s.report.root), "run_id": s.report.run.get("run_id"),
                      "agent": s.report.run.get("agent"), "model": s.report.run.get("model"), "k": s.report.k,
                      "episodes": s.metrics["episodes"], "tasks": s.metrics["tasks"],
                      "undecided": s.metrics["undecided"]} for s in self.sides],
            "tasks": [{"scenario": t.scenario, "task": t.task,
                       "cells": [c.to_json() if c is not None else None for c in t.cells]} for t in self.tasks],
            "metrics": [m.to_json() for m in self.metrics],
            "mcnemar": [t.to_json() for t in self.tests],
            "problems": self.problems,
        }


# --- the test -------------------------------------------------------------------------------------------


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p: 2 * P(X <= min(b, c)) for X ~ Binomial(b + c, 1/2), at most 1;
    1 when no task is discordant (nothing speaks against "no difference")."""
    if b < 0 or c < 0:
        raise ValueError("b and c are counts")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    return min(1.0, 2 * tail / 2**n)


def _firsts(side: Side) -> dict[tuple[str, str], bool | None]:
    return {r.key: r.success for r in side.report.records if r.attempt == 1}


def mcnemar(base: Side, other: Side) -> McNemar:
    a, o = _firsts(base), _firsts(other)
    shared = [key for key in a if key in o]
    decided = [key for key in shared if a[key] is not None and o[key] is not None]
    b = sum(1 for key in decided if a[key] and not o[key])
    c = sum(1 for key in decided if not a[key] and o[key])
    return McNemar(base.label, other.label, len(decided), b, c, left_out=len(shared) - len(decided))


# --- building it --------------------------------------------------------------------------------------------


def _labels(reports: list[RunReport]) -> list[str]:
    """Run ids, made unique with the folder's path where two runs share one (copies of a run)."""
    ids = [str(r.run.get("run_id") or r.run.get("id") or r.root.name) for r in reports]
    return [i if ids.count(i) == 1 else f"{i} [{r.root}]" for i, r in zip(ids, reports, strict=True)]


def _cells(report: RunReport) -> dict[tuple[str, str], Cell]:
    by: dict[tuple[str, str], list[EpisodeRecord]] = {}
    for r in report.records:
        by.setdefault(r.key, []).append(r)
    return {key: Cell([r.success for r in rs], [r.steps for r in rs], rs[0].golden_steps, [r.path for r in rs])
            for key, rs in ((key, sorted(rs, key=lambda r: r.attempt)) for key, rs in by.items())}


def _pass_at(side: Side, k: int) -> dict[str, Any]:
    """The report's pass@k. A run that gave its tasks fewer than k attempts never retried a failure
    that often: its pass@k is n/a, unless every task succeeded within the attempts it had."""
    if side.report.k >= k:
        return dict(side.metrics["pass_at_k"][str(k)])
    own = side.metrics["pass_at_k"].get(str(side.report.k))
    if own is not None and own.get("value") == 1.0:  # every task succeeded within its attempts: so within k
        return {**own, "note": f"{own.get('note', '')}; all succeeded within the run's {side.report.k} attempt(s)"}
    return {"value": None, "n": 0, "note": f"the run gave each task {side.report.k} attempt(s), not {k}"}


def _cost_per_task(m: dict[str, Any]) -> dict[str, Any]:
    """The agent's dollars over the run's tasks (all attempts): the report's total over its task count."""
    if not m["tasks"]:
        return {"value": None, "n": 0, "note": "no tasks"}
    return {"value": m["agent_cost_usd"] / m["tasks"], "n": m["tasks"], "note": "agent $, all attempts, per task"}


def _metric_rows(sides: list[Side], k: int) -> list[MetricRow]:
    rows = [MetricRow("sr", "SR (pass@1)", "pct", 1, [dict(s.metrics["sr"]) for s in sides])]
    if k > 1:
        rows.append(MetricRow(f"pass@{k}", f"pass@{k}", "pct", 1, [_pass_at(s, k) for s in sides]))
    rows += [
        MetricRow("irr", "IRR (memory tasks)", "pct", 1, [dict(s.metrics["irr"]) for s in sides]),
        MetricRow("step_ratio", "Step ratio (successes)", "ratio", -1, [dict(s.metrics["step_ratio"]) for s in sides]),
        MetricRow("cost_per_task_usd", "Agent $/task", "usd", -1, [_cost_per_task(s.metrics) for s in sides]),
        MetricRow("cost_per_step_usd", "Agent $/step", "usd", -1, [dict(s.metrics["cost_per_step_usd"]) for s in sides]),
    ]
    return rows


def build(reports: list[RunReport], k: int | None = None) -> Comparison:
    """Compare loaded runs, the first as the baseline. `k`: the pass@k shown (default: the most
    attempts any of the runs gave its tasks)."""
    if k is not None and k < 1:
        raise CompareError(f"--k {k}: must be 1 or more")
    sides = [Side(r, label, r.metrics()) for r, label in zip(reports, _labels(reports), strict=True)]
    kk = k if k is not None else max(r.k for r in reports)
    cells = [_cells(r) for r in reports]
    order = list(dict.fromkeys(key for c in cells for key in c))  # the baseline's order, then what others add
    tasks = [TaskRow(scenario, task, [c.get((scenario, task)) for c in cells]) for scenario, task in order]
    problems = [f"{s.label}: {p}" for s in sides for p in s.report.problems]
    return Comparison(sides, kk, tasks, _metric_rows(sides, kk), [mcnemar(sides[0], s) for s in sides[1:]], problems)


def compare_paths(paths: list[Path], k: int | None = None) -> Comparison:
    """Find the runs the paths name, load each with the report's loader, and compare them."""
    reports = []
    for run in find_runs(paths):
        rep = load_report(run)
        if not rep.rows:
            raise CompareError(f"{run}: no episodes here (no episode.json under it)")
        reports.append(rep)
    return build(reports, k)


# --- showing it -----------------------------------------------------------------------------------------------


def fmt_delta(d: float | None, kind: str) -> str:
    """A delta with its sign: percentage points for rates, dollars for costs."""
    if d is None:
        return "-"
    if kind == "pct":
        return f"{100 * d:+.1f} pp"
    if kind == "usd":
        return f"{'+' if d >= 0 else '-'}${abs(d):.4f}"
    return f"{d:+.2f}"


def verdict_of(d: float | None, better: int) -> str:
    """"better", "worse" or "same" for a delta, by the metric's direction: what the colour says."""
    if d is None or abs(d) < 1e-12:
        return "same"
    return "better" if d * better > 0 else "worse"


def cell_text(cell: Cell | None) -> str:
    """A task's cell: the attempts' marks, the tally when there are several, the first attempt's steps."""
    if cell is None:
        return "missing"
    steps = f"{cell.steps[0]}" + (f"/{cell.golden_steps}" if cell.golden_steps else "") if cell.steps else "-"
    tally = f" {cell.tally}" if len(cell.outcomes) > 1 else ""
    return f"{cell.marks}{tally} · {steps} steps"


def fmt_p(p: float | None) -> str:
    if p is None:
        return "n/a (no shared task decided in both)"
    return f"{p:.3g}" if p >= 0.001 else f"{p:.1e}"


def change(base: Cell | None, cell: Cell | None) -> str:
    """How a task's first attempt moved against the baseline: gained, lost, or "" (same, or unknown)."""
    if base is None or cell is None or base.first is None or cell.first is None or base.first == cell.first:
        return ""
    return "gained" if cell.first else "lost"
