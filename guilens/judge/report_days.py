"""A persistent scenario's results by day: what a week's user reads first (ScenDroid's OmniLife).

A sequence over several days (`guilens/scenarios/builtin/week.yaml`) is reported
as a whole (SR, CAS, AS over every task) and here per day: the tasks of each day,
their SR, CAS and AS, the user turns, and how many were blocked by a prerequisite
that failed earlier (often on an earlier day). An episode's day is its task's day
in the scenario (`Scenario.day_of`); for an episode whose scenario cannot be read,
the date of its first step's clock.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from typing import Any

from guilens.judge.metrics_progress import CAS_ETA, average_steps, clarification_adjusted_success
from guilens.judge.records import EpisodeRecord, first_attempts

DAY_KEY = "day"
"""Where an episode's day (ISO date) is kept in `EpisodeRecord.extra`."""


def episode_day(scenario: Any, task: Any, first_clock: Any = None) -> str | None:
    """The ISO date an episode's task is on: from the sequence's schedule, else (the scenario unread)
    `first_clock`, the first step's clock of an episode of a sequence; None for independent tasks."""
    if scenario is not None and task is not None and getattr(scenario, "kind", None) == "sequence":
        return str(scenario.day_of(task).isoformat())
    if first_clock is not None and hasattr(first_clock, "date"):
        return str(first_clock.date().isoformat())
    return None


def by_day(records: list[EpisodeRecord], eta: float = CAS_ETA) -> dict[str, dict[str, Any]]:
    """Per day (in date order): tasks, SR, CAS, AS, user turns and blocked tasks over first attempts.

    Empty when no episode has a day (a pack of independent tasks).
    """
    days: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for r in first_attempts(records):
        day = r.extra.get(DAY_KEY)
        if day:
            days[str(day)].append(r)
    out: dict[str, dict[str, Any]] = {}
    for index, (day, rs) in enumerate(sorted(days.items())):
        decided = [r for r in rs if r.success is not None]
        succeeded = sum(1 for r in decided if r.success)
        out[day] = {
            "label": f"{date.fromisoformat(day):%a %b %-d}",
            "index": index,
            "tasks": len(rs),
            "succeeded": succeeded,
            "blocked": sum(1 for r in rs if r.status == "blocked"),
            "sr": {"value": succeeded / len(decided) if decided else None, "n": len(decided)},
            "cas": clarification_adjusted_success(rs, eta).to_json(),
            "as": average_steps(rs).to_json(),
            "user_turns": sum(r.user_turns for r in rs),
        }
    return out


def print_days(days: dict[str, dict[str, Any]], console: Any) -> None:
    """The per-day table of a text report (nothing for a run without days)."""
    if not days:
        return
    from rich.table import Table

    def pct(m: dict[str, Any]) -> str:
        return "n/a" if m.get("value") is None else f"{100 * m['value']:.1f}%"

    t = Table(title="By day")
    for col in ("day", "tasks", "succeeded", "blocked", "SR", "CAS", "AS", "asks"):
        t.add_column(col, justify="left" if col == "day" else "right")
    for row in days.values():
        steps = row["as"].get("value")
        t.add_row(row["label"], str(row["tasks"]), str(row["succeeded"]), str(row["blocked"]), pct(row["sr"]),
                  pct(row["cas"]), "n/a" if steps is None else f"{steps:.2f}", str(row["user_turns"]))
    console.print(t)
