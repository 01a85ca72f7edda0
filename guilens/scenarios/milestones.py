"""Milestones reached along a run, and whether the task succeeded.

The runner feeds the tracker one context per step (live), the judge the
contexts it rebuilds from a recorded episode (replay); both get the same answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from guilens.scenarios.checks import CheckContext, CheckResult, answer_meets, combine, evaluate

if TYPE_CHECKING:
    from guilens.scenarios.model import Milestone, Task


@dataclass
class MilestoneStatus:
    """One line of the milestone checklist (TUI, report)."""

    milestone: Milestone
    reached_at: int | None
    available: bool
    """Its predecessors and dependencies are reached, so it can be reached now."""
    group: int
    """Position of its item in the task's milestone list (members of a group share it)."""
    unordered: bool
    last: CheckResult | None
    """The last evaluation of its check, if any."""
    by: str = "rules"


@dataclass
class MilestoneTracker:
    """Which milestones a run has reached, and at which step.

    Feed it one context per step with `update`; it evaluates only milestones
    whose predecessors (the previous item of the list: a milestone, or a whole
    unordered group) and `depends_on` are reached, so an ordered milestone seen
    before its time does not count. Several can be reached at the same step.
    Milestones without a check are left to the LLM judge (or a person: `mark`).
    """

    task: Task
    values: dict[str, str] = field(default_factory=dict)
    reached: dict[str, int] = field(default_factory=dict)
    marked_by: dict[str, str] = field(default_factory=dict)
    last: dict[str, CheckResult] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from guilens.scenarios.model import MilestoneGroup

        # Checks compare against the L0 intent: the user's slots, and values from earlier tasks.
        env = {**self.task.user.values, **self.values}
        self._task = self.task.filled(env) if env else self.task
        self._items: list[list[Milestone]] = [
            list(it.unordered) if isinstance(it, MilestoneGroup) else [it] for it in self._task.milestones
        ]
        self._unordered = [isinstance(it, MilestoneGroup) for it in self._task.milestones]

    @property
    def milestones(self) -> list[Milestone]:
        return [m for item in self._items for m in item]

    @property
    def total(self) -> int:
        return sum(len(i) for i in self._items)

    @property
    def done(self) -> int:
        return len(self.reached)

    @property
    def all_reached(self) -> bool:
        return self.done == self.total

    @property
    def fraction(self) -> float:
        """Share of milestones reached (AndroidLens' per-task ATP term); 1.0 for a task without any."""
        return self.done / self.total if self.total else 1.0

    def _deps_ok(self, m: Milestone) -> bool:
        return all(d in self.reached for d in m.depends_on)

    def update(self, ctx: CheckContext, step: int) -> list[Milestone]:
        """Evaluate the milestones that can be reached now; return those reached at `step`, in order."""
        new: list[Milestone] = []
        for item in self._items:
            changed = True
            while changed:
                changed = False
                for m in item:
                    if m.id in self.reached or m.check is None or not self._deps_ok(m):
                        continue
                    r = evaluate(m.check, ctx)
                    self.last[m.id] = r
                    if r.ok:
                        self.reached[m.id] = step
                        self.marked_by[m.id] = "rules"
                        new.append(m)
                        changed = True
            if not all(m.id in self.reached for m in item):
                break
        return new

    def mark(self, mid: str, step: int, by: str = "human") -> Milestone:
        """Record a milestone as reached by someone other than the rules (a person, the LLM judge)."""
        m = self._task.milestone(mid)
        self.reached.setdefault(mid, step)
        self.marked_by.setdefault(mid, by)
        return m

    def status(self) -> list[MilestoneStatus]:
        out: list[MilestoneStatus] = []
        open_before = False
        for gi, item in enumerate(self._items):
            for m in item:
                out.append(MilestoneStatus(
                    milestone=m,
                    reached_at=self.reached.get(m.id),
                    available=not open_before and self._deps_ok(m),
                    group=gi,
                    unordered=self._unordered[gi],
                    last=self.last.get(m.id),
                    by=self.marked_by.get(m.id, "rules"),
                ))
            open_before = open_before or not all(m.id in self.reached for m in item)
        return out

    def undecided(self) -> list[Milestone]:
        """Milestones not reached that the rules cannot rule out: no check, a check undecidable
        here, or waiting behind such a milestone. The judge's LLM stage looks at these."""
        out: list[Milestone] = []
        blocked_by_unknown = False
        for item in self._items:
            item_unknown = False
            for m in item:
                if m.id in self.reached:
                    continue
                last = self.last.get(m.id)
                unknown = m.check is None or (last is not None and last.ok is None) or (
                    blocked_by_unknown or (last is None and any(
                        d not in self.reached and self._is_unknown(d) for d in m.depends_on)))
                if unknown:
                    out.append(m)
                    item_unknown = True
            blocked_by_unknown = blocked_by_unknown or item_unknown
        return out

    def _is_unknown(self, mid: str) -> bool:
        m = self._task.milestone(mid)
        last = self.last.get(mid)
        return m.check is None or (last is not None and last.ok is None)


def success(task: Task, tracker: MilestoneTracker, final: CheckContext, values: dict[str, str] | None = None) -> CheckResult:
    """Whether the task succeeded, by its success rule; None when only the LLM judge can tell.

    Default rule: every milestone reached. The rule's own `check` and the task's
    answer expectation must also hold on the final context.
    """
    env = {**task.user.values, **(values if values is not None else tracker.values)}
    t = task.filled(env) if env else task
    parts: list[CheckResult] = []
    rule = t.success
    wanted = (
        [m.id for m in t.all_milestones()] if rule.milestones == "all"
        else [] if rule.milestones == "none" else list(rule.milestones)
    )
    missing = [mid for mid in wanted if mid not in tracker.reached]
    if missing:
        unknown = {m.id for m in tracker.undecided()}
        if all(mid in unknown for mid in missing):
            parts.append(CheckResult(None, f"milestones {', '.join(missing)} need the judge"))
        else:
            parts.append(CheckResult(False, f"milestones not reached: {', '.join(missing)}"))
    elif wanted:
        parts.append(CheckResult(True, f"all {len(wanted)} milestones reached"))
    if rule.check is not None:
        parts.append(evaluate(rule.check, final))
    if t.answer is not None:
        parts.append(answer_meets(t.answer, final.answer))
    if not parts:
        return CheckResult(None, "no rule decides this task")
    return combine(parts, need_all=True)


def run_checks(task: Task, contexts: Iterable[CheckContext], values: dict[str, str] | None = None) -> tuple[
    MilestoneTracker, CheckResult
]:
    """Replay: feed every context in order (the last is the final one) and decide success."""
    tracker = MilestoneTracker(task, dict(values or {}))
    last = CheckContext()
    for i, ctx in enumerate(contexts):
        tracker.update(ctx, i)
        last = ctx
    return tracker, success(task, tracker, last)
