"""Failed attempts counted by failure mode, overall and by task property (MemGUI-Bench, A.8).

MemGUI-Bench reports its failures by mode (Figures 14 and 15) and sets them
against task properties; the report does the same, by the task's memory kind
(cross-app, cross-temporal, or a standard task), difficulty and app count.
A failure counts under the mode its verdict records. Without a verdict, an
attempt whose status is `timeout` is still an execution timeout (the rule
needs nothing else); a task of a day that never ran (`blocked`) is counted
apart, as is any failure no stage classified (a rules-only judgement, a model
that gave no usable answer). Shares are over the classified failures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from guilens.judge.failure_mode import MODES
from guilens.judge.metrics import difficulty_name
from guilens.judge.records import EpisodeRecord

SHORT = {
    "execution_timeout": "timeout",
    "partial_memory_hallucination": "partial",
    "process_memory_hallucination": "process",
    "output_memory_hallucination": "output",
    "knowledge_deficiency": "knowledge",
    "intent_misunderstanding": "intent",
    "other": "other",
}
"""Column heads for the by-property tables, where the full names do not fit."""
BLOCKED, UNCLASSIFIED = "blocked", "unclassified"
APART_LABELS = {BLOCKED: "blocked (never ran)", UNCLASSIFIED: "not classified"}
PROPERTIES: dict[str, tuple[str, Callable[[EpisodeRecord], str]]] = {
    "by_memory": ("memory", lambda r: "standard" if r.memory_kind in ("none", "") else r.memory_kind),
    "by_difficulty": ("difficulty", lambda r: difficulty_name(r.difficulty)),
    "by_apps": ("apps", lambda r: str(r.apps)),
}


def mode_of(r: EpisodeRecord) -> str:
    """The failure's mode, or `blocked` / `unclassified`."""
    if r.failure_mode in MODES:
        return r.failure_mode
    if r.status == "blocked":
        return BLOCKED
    if r.status == "timeout":
        return "execution_timeout"
    return UNCLASSIFIED


def _counts(failed: list[EpisodeRecord]) -> dict[str, Any]:
    modes = dict.fromkeys(MODES, 0)
    apart = {BLOCKED: 0, UNCLASSIFIED: 0}
    for r in failed:
        m = mode_of(r)
        if m in modes:
            modes[m] += 1
        else:
            apart[m] += 1
    return {"failures": len(failed), "classified": sum(modes.values()), "modes": modes, "not_classified": apart}


def summarise(records: Iterable[EpisodeRecord]) -> dict[str, Any]:
    """Every failed attempt (all attempts, not only the first) by mode and by task property, as JSON."""
    failed = [r for r in records if r.success is False]
    out = _counts(failed)
    n = out["classified"]
    out["share"] = {m: (round(c / n, 6) if n else None) for m, c in out["modes"].items()}
    for key, (_, group_of) in PROPERTIES.items():
        groups: dict[str, list[EpisodeRecord]] = {}
        for r in failed:
            groups.setdefault(group_of(r), []).append(r)
        out[key] = {g: _counts(rs) for g, rs in sorted(groups.items())}
    return out


def print_failure_modes(summary: dict[str, Any], console: Any) -> None:
    """The terminal tables: failures by mode, then by each task property (nothing when none failed)."""
    from rich.table import Table

    if not summary["failures"]:
        return
    t = Table(title=f"Failure modes ({summary['failures']} failed attempts, {summary['classified']} classified)")
    t.add_column("mode")
    t.add_column("failures", justify="right")
    t.add_column("share", justify="right")
    for m, c in summary["modes"].items():
        share = summary["share"][m]
        t.add_row(m, str(c), "-" if share is None else f"{100 * share:.1f}%")
    for m, c in summary["not_classified"].items():
        if c:
            t.add_row(f"[dim]{APART_LABELS[m]}[/dim]", str(c), "")
    console.print(t)
    shown = [m for m in MODES if summary["modes"][m]]
    apart = [m for m, c in summary["not_classified"].items() if c]
    for key, (label, _) in PROPERTIES.items():
        g = Table(title=f"Failure modes by {label}")
        g.add_column(label)
        g.add_column("failures", justify="right")
        for m in shown:
            g.add_column(SHORT[m], justify="right")
        for m in apart:
            g.add_column(APART_LABELS[m], justify="right")
        for name, row in summary[key].items():
            g.add_row(name, str(row["failures"]), *(str(row["modes"][m]) for m in shown),
                      *(str(row["not_classified"][m]) for m in apart))
        console.print(g)
