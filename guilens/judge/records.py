"""What the run metrics read, and the few helpers they all share.

`EpisodeRecord` is one attempt as the metrics see it (outcome, task traits,
costs, time by who spent it); `Metric` is what each metric returns. Kept
apart from the metric formulas (`guilens.judge.metrics`, which re-exports
these) so that module holds the papers' definitions and nothing else.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any


@dataclass(frozen=True)
class MilestoneRecord:
    id: str
    reached: bool | None
    """None: no stage could tell."""
    agent_steps: int | None = None
    """Agent steps taken to reach it (the step whose action reached it, plus one)."""
    golden_step: int | None = None
    """Reference steps to reach it (MSR's denominator)."""
    flexible: bool = False
    depends_on: tuple[str, ...] = ()
    alternative: str | None = None
    """The alternatives node (PSPA's "choose one path" sub-task) whose path this milestone lies on."""
    path: str | None = None
    """Which path of that node."""


@dataclass(frozen=True)
class EpisodeRecord:
    """What the metrics need of one attempt: its outcome, its task's traits, its costs."""

    task: str
    attempt: int = 1
    success: bool | None = None
    scenario: str = ""
    difficulty: int | None = None
    apps: int = 1
    memory: bool = False
    golden_steps: int | None = None
    steps: int = 0
    human_steps: int = 0
    """Steps a person decided (a take-over, or `--agent human`); the rest are the agent's."""
    duration_s: float | None = None
    """Wall time, pauses and people included."""
    agent_s: float | None = None
    """The agent's own deciding time; None when not recorded."""
    person_s: float | None = None
    """A person's acting time; None when the episode predates the split (schema 1)."""
    user_s: float | None = None
    """The user's answering time; None when it cannot be told from a person's acting (schema 1)."""
    device_s: float | None = None
    agent_cost_usd: float = 0.0
    agent_tokens: int = 0
    judge_cost_usd: float = 0.0
    judge_tokens: int = 0
    judge_duration_s: float | None = None
    judged: bool = False
    """A verdict exists for this attempt (judge cost and time are known, possibly zero)."""
    user_turns: int = 0
    milestones: tuple[MilestoneRecord, ...] = ()
    irr: float | None = None
    """0..1; only meaningful for memory tasks."""
    irr_method: str | None = None
    """How `irr` was found: `rules` (the task's information items), `llm_analysis` (the IRR analyzer),
    `task_succeeded`, `blocked` (never ran: 0); None when there is no IRR."""
    path: str = ""
    status: str = ""
    decided_by: str | None = None
    failure_mode: str | None = None
    """MemGUI-Bench's failure mode of a failed attempt (the verdict's); None when not classified."""
    memory_kind: str = "none"
    """The task's memory kind (`cross-app`, `cross-temporal`, `none`): the failure modes' breakdown."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def key(self) -> tuple[str, str]:
        return (self.scenario, self.task)

    @property
    def agent_steps(self) -> int:
        """Steps the agent decided."""
        return max(0, self.steps - self.human_steps)


@dataclass(frozen=True)
class Metric:
    value: float | None
    n: int = 0
    """How many tasks or episodes the value is over."""
    note: str = ""

    @property
    def na(self) -> bool:
        return self.value is None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": None if self.value is None else round(self.value, 6), "n": self.n}
        if self.note:
            out["note"] = self.note
        return out


def na_metric(why: str, n: int = 0) -> Metric:
    return Metric(None, n, why)


# --- grouping ------------------------------------------------------------------------------------


def by_task(records: Iterable[EpisodeRecord]) -> dict[tuple[str, str], list[EpisodeRecord]]:
    """Each task's attempts, in attempt order."""
    out: dict[tuple[str, str], list[EpisodeRecord]] = defaultdict(list)
    for r in records:
        out[r.key].append(r)
    return {k: sorted(v, key=lambda r: r.attempt) for k, v in out.items()}


def first_attempts(records: Iterable[EpisodeRecord]) -> list[EpisodeRecord]:
    return [r for r in records if r.attempt == 1]


def max_attempt(records: Iterable[EpisodeRecord]) -> int:
    return max((r.attempt for r in records), default=0)


def first_success(attempts: Sequence[EpisodeRecord]) -> int | None:
    """The attempt number of a task's first success, or None."""
    for r in sorted(attempts, key=lambda r: r.attempt):
        if r.success is True:
            return r.attempt
    return None


def mean_metric(values: list[float], what: str, empty: str) -> Metric:
    if not values:
        return na_metric(empty)
    return Metric(fmean(values), len(values), what)
