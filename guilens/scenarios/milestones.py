"""Milestones reached along a run, and whether the task succeeded.

The runner feeds the tracker one context per step (live), the judge the
contexts it rebuilds from a recorded episode (replay); both get the same answer.

A task's checklist is its milestone list with alternatives (PSPA-Bench's "choose one path" nodes)
counted as one sub-task each: complete when every milestone of any one path is. `checklist` and
`sub_task_reached` give that reading to everyone who decides "all milestones" (the tracker, the
success rule, the judge's milestone stage and the metrics), so none of them asks for the milestones
of a path the agent had no reason to take.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from guilens.scenarios.checks import CheckContext, CheckResult, answer_meets, combine, evaluate

if TYPE_CHECKING:
    from guilens.scenarios.model import Milestone, MilestoneAlternatives, MilestonePath, Task


@dataclass(frozen=True)
class SubTask:
    """One entry of a task's checklist: a milestone (`paths` empty), or an alternatives node whose
    `paths` map each path id to its milestone ids, in order."""

    id: str
    paths: dict[str, tuple[str, ...]] = field(default_factory=dict)


def checklist(task: Task) -> list[SubTask]:
    """The task's sub-tasks in order: each milestone, and each alternatives node as one."""
    from guilens.scenarios.model import MilestoneAlternatives, MilestoneGroup

    out: list[SubTask] = []
    for item in task.milestones:
        if isinstance(item, MilestoneGroup):
            out += [SubTask(m.id) for m in item.unordered]
        elif isinstance(item, MilestoneAlternatives):
            out.append(SubTask(item.id, {p.id: tuple(m.id for m in p.milestones) for p in item.any_of}))
        else:
            out.append(SubTask(item.id))
    return out


def sub_task_reached(sub: SubTask, reached: Callable[[str], bool | None]) -> bool | None:
    """Whether a sub-task is complete given each milestone's state (True, False, or None: unknown).

    An alternatives node is complete when one path is; not complete when every path has a milestone
    not reached; unknown otherwise."""
    if not sub.paths:
        return reached(sub.id)
    states = [[reached(m) for m in ms] for ms in sub.paths.values()]
    if any(all(s is True for s in path) for path in states):
        return True
    if all(any(s is False for s in path) for path in states):
        return False
    return None


def path_taken(sub: SubTask, reached: Mapping[str, int]) -> str | None:
    """The path that completed an alternatives sub-task, given each reached milestone's step: the
    first path to complete, at a tie the first listed (what `MilestoneTracker` records); None while
    no path is complete. Views that hold only the steps (a replay, the TUI panel) read it here."""
    done = [(max((reached[m] for m in ms), default=0), i, pid) for i, (pid, ms) in enumerate(sub.paths.items())
            if all(m in reached for m in ms)]
    return min(done)[2] if done else None


def checklist_progress(task: Task, reached: Callable[[str], bool | None]) -> tuple[int, int]:
    """(sub-tasks complete, sub-tasks): a task's milestone count as AndroidLens' ATP reads it, an
    alternatives node one sub-task, the milestones of its untaken paths not counted. What the
    headless summary and `guilens judge` print as `milestones 3/4`."""
    subs = checklist(task)
    return sum(1 for s in subs if sub_task_reached(s, reached) is True), len(subs)


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
    alternative: str | None = None
    """The alternatives node whose path it lies on, if any."""
    path: str | None = None


@dataclass
class MilestoneTracker:
    """Which milestones a run has reached, and at which step.

    Feed it one context per step with `update`; it evaluates only milestones
    whose predecessors (the previous item of the list: a milestone, a whole
    unordered group, or an alternatives node) and `depends_on` are reached, so an
    ordered milestone seen before its time does not count. Several can be reached
    at the same step. On an alternatives node every path advances in its own order
    until one is complete; that path is the one `chosen` records. Milestones
    without a check are left to the LLM judge (or a person: `mark`).
    """

    task: Task
    values: dict[str, str] = field(default_factory=dict)
    reached: dict[str, int] = field(default_factory=dict)
    marked_by: dict[str, str] = field(default_factory=dict)
    last: dict[str, CheckResult] = field(default_factory=dict)
    chosen: dict[str, str] = field(default_factory=dict)
    """Alternatives node id -> the path that completed it."""
    completed_at: dict[str, int] = field(default_factory=dict)
    """Alternatives node id -> the step its path completed."""

    def __post_init__(self) -> None:
        from guilens.scenarios.model import MilestoneAlternatives, MilestoneGroup

        # Checks compare against the L0 intent: the user's slots, and values from earlier tasks.
        env = {**self.task.user.values, **self.values}
        self._task = self.task.filled(env) if env else self.task
        self._alts: list[MilestoneAlternatives | None] = [
            it if isinstance(it, MilestoneAlternatives) else None for it in self._task.milestones]
        self._items: list[list[Milestone]] = [
            list(it.unordered) if isinstance(it, MilestoneGroup)
            else [m for p in it.any_of for m in p.milestones] if isinstance(it, MilestoneAlternatives) else [it]
            for it in self._task.milestones
        ]
        self._unordered = [isinstance(it, MilestoneGroup) for it in self._task.milestones]
        self._where = {m.id: (a.id, p.id) for a in self._task.alternatives() for p in a.any_of for m in p.milestones}
        self._checklist = checklist(self._task)
        self._subs = {s.id: s for s in self._checklist if s.paths}

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
    def sub_tasks_total(self) -> int:
        """Checklist entries: milestones, an alternatives node counting once."""
        return len(self._checklist)

    @property
    def sub_tasks_done(self) -> int:
        return sum(1 for s in self._checklist if sub_task_reached(s, lambda m: m in self.reached))

    @property
    def all_reached(self) -> bool:
        """Every sub-task complete: every milestone, and one whole path of each alternatives node."""
        return self.sub_tasks_done == self.sub_tasks_total

    @property
    def fraction(self) -> float:
        """Share of sub-tasks complete (AndroidLens' per-task ATP term); 1.0 for a task without any."""
        return self.sub_tasks_done / self.sub_tasks_total if self.sub_tasks_total else 1.0

    def _deps_ok(self, m: Milestone | MilestoneAlternatives) -> bool:
        return all(d in self.reached or d in self.chosen for d in m.depends_on)

    def _walk(self, path: MilestonePath, ctx: CheckContext, step: int, new: list[Milestone]) -> None:
        """Advance one path of an alternatives node: its milestones in order, as far as they hold."""
        for m in path.milestones:
            if m.id in self.reached:
                continue
            if m.check is None or not self._deps_ok(m):
                return
            r = evaluate(m.check, ctx)
            self.last[m.id] = r
            if not r.ok:
                return
            self.reached[m.id] = step
            self.marked_by[m.id] = "rules"
            new.append(m)

    def _settle(self, alt: MilestoneAlternatives, step: int) -> None:
        """Record the path that completed `alt` (`path_taken`: the first to complete; at a tie, the first listed)."""
        if alt.id in self.chosen:
            return
        sub = self._subs[alt.id]
        pid = path_taken(sub, self.reached)
        if pid is not None:
            self.chosen[alt.id] = pid
            self.completed_at[alt.id] = max(step, max(self.reached[m] for m in sub.paths[pid]))

    def update(self, ctx: CheckContext, step: int) -> list[Milestone]:
        """Evaluate the milestones that can be reached now; return those reached at `step`, in order."""
        new: list[Milestone] = []
        for item, alt in zip(self._items, self._alts, strict=True):
            if alt is not None:
                if alt.id not in self.chosen and self._deps_ok(alt):
                    for p in alt.any_of:
                        self._walk(p, ctx, step, new)
                    self._settle(alt, step)
                if alt.id not in self.chosen:
                    break
                continue
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
        if mid in self._where:
            self._settle(next(a for a in self._task.alternatives() if a.id == self._where[mid][0]), step)
        return m

    def status(self) -> list[MilestoneStatus]:
        out: list[MilestoneStatus] = []
        open_before = False
        for gi, (item, alt) in enumerate(zip(self._items, self._alts, strict=True)):
            for m in item:
                where = self._where.get(m.id, (None, None))
                out.append(MilestoneStatus(
                    milestone=m,
                    reached_at=self.reached.get(m.id),
                    available=not open_before and self._deps_ok(m) and (alt is None or self._deps_ok(alt)),
                    group=gi,
                    unordered=self._unordered[gi],
                    last=self.last.get(m.id),
                    by=self.marked_by.get(m.id, "rules"),
                    alternative=where[0],
                    path=where[1],
                ))
            item_done = alt.id in self.chosen if alt is not None else all(m.id in self.reached for m in item)
            open_before = open_before or not item_done
        return out

    def undecided(self) -> list[Milestone]:
        """Milestones not reached that the rules cannot rule out: no check, a check undecidable
        here, or waiting behind such a milestone. The judge's LLM stage looks at these."""
        out: list[Milestone] = []
        blocked_by_unknown = False
        for item, alt in zip(self._items, self._alts, strict=True):
            item_unknown = False
            if alt is not None and alt.id in self.chosen:
                continue  # decided: the untaken paths are not the judge's business
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
        alt = next((a for a in self._task.alternatives() if a.id == mid), None)
        if alt is not None:
            return mid not in self.chosen and any(
                m.id not in self.reached and self._is_unknown(m.id) for p in alt.any_of for m in p.milestones)
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
        [s.id for s in checklist(t)] if rule.milestones == "all"
        else [] if rule.milestones == "none" else list(rule.milestones)
    )
    missing = [mid for mid in wanted if mid not in tracker.reached and mid not in tracker.chosen]
    if missing:
        unknown = {m.id for m in tracker.undecided()}
        # an alternatives node is the judge's when some path of it is
        unknown |= {a.id for a in t.alternatives() if any(m.id in unknown for p in a.any_of for m in p.milestones)}
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
