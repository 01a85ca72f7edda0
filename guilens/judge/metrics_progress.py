"""The milestone and scenario metrics: AndroidLens (ATP, MSR), ScenDroid (CAS, AS, user turns) and
PSPA-Bench (APR, PPR).

Apart from `guilens.judge.metrics` (MemGUI-Bench's, and `compute`, which gathers them all and
re-exports these) because they read what the outcome alone does not: milestones reached and their
dependencies, clarification turns, steps of tasks that never ran. The conventions are that
module's: first attempts, undecided attempts left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from statistics import fmean

from guilens.judge.records import EpisodeRecord, Metric, MilestoneRecord, first_attempts, mean_metric

CAS_ETA = 0.5
"""ScenDroid's clarification penalty: CAS_i = s_i / (1 + eta * c_i)."""


# --- AndroidLens: ATP, MSR ------------------------------------------------------------------------


def _known_milestones(r: EpisodeRecord) -> bool:
    return bool(r.milestones) and all(m.reached is not None for m in r.milestones)


def _paths(r: EpisodeRecord) -> dict[str, dict[str, list[MilestoneRecord]]]:
    """Alternatives node -> path -> its milestones, in order."""
    out: dict[str, dict[str, list[MilestoneRecord]]] = {}
    for m in r.milestones:
        if m.alternative is not None:
            out.setdefault(m.alternative, {}).setdefault(m.path or "", []).append(m)
    return out


def attempt_progress(r: EpisodeRecord) -> float:
    """One attempt's ATP term: reached / total milestones, where an alternatives node is one
    milestone, reached when every milestone of any one of its paths is (AndroidLens' checklist)."""
    plain = [bool(m.reached) for m in r.milestones if m.alternative is None]
    nodes = [any(all(m.reached for m in ms) for ms in paths.values()) for paths in _paths(r).values()]
    units = plain + nodes
    return sum(units) / len(units)


def task_progress(records: Iterable[EpisodeRecord]) -> Metric:
    """ATP: the average, over first attempts of tasks with milestones, of reached / total milestones."""
    eps = [r for r in first_attempts(records) if _known_milestones(r)]
    return mean_metric([attempt_progress(r) for r in eps], "tasks with milestones", "no task with judged milestones")


def progress_distribution(records: Iterable[EpisodeRecord]) -> list[float]:
    """Each first attempt's progress (for the ATP histogram)."""
    return [attempt_progress(r) for r in first_attempts(records) if _known_milestones(r)]


def milestone_step_ratio(records: Iterable[EpisodeRecord]) -> Metric:
    """MSR: agent steps to reach a milestone / reference steps to reach it.

    Averaged over the reached milestones of an episode that have both numbers,
    then over episodes (AndroidLens leaves the pooling open; this weighs every
    task alike, as SR and ATP do).
    """
    values = []
    for r in first_attempts(records):
        ratios = [m.agent_steps / m.golden_step for m in r.milestones
                  if m.reached and m.agent_steps is not None and m.golden_step]
        if ratios:
            values.append(fmean(ratios))
    return mean_metric(values, "tasks", "no reached milestone with reference steps")


# --- ScenDroid: CAS, AS; user turns -----------------------------------------------------------------


def cas_score(success: bool, clarifications: int, eta: float = CAS_ETA) -> float:
    """One task's Clarification-Adjusted Success: s / (1 + eta * c)."""
    return (1.0 if success else 0.0) / (1.0 + eta * clarifications)


def clarification_adjusted_success(records: Iterable[EpisodeRecord], eta: float = CAS_ETA) -> Metric:
    """CAS: the mean of s_i / (1 + eta c_i) over first attempts, c_i = user turns (ask_user exchanges)."""
    decided = [r for r in first_attempts(records) if r.success is not None]
    return mean_metric([cas_score(bool(r.success), r.user_turns, eta) for r in decided], "tasks",
                        "no task has a decided first attempt")


def average_steps(records: Iterable[EpisodeRecord]) -> Metric:
    """AS (ScenDroid 4.2): (1/N) sum t_i, the mean steps per task over first attempts, successes and
    failures alike. A task blocked by a failed prerequisite counts with its 0 steps, as it does in a
    scenario of N tasks; an attempt nobody decided (aborted, interrupted) is left out, as everywhere."""
    counted = [r for r in first_attempts(records) if r.success is not None or r.status == "blocked"]
    return mean_metric([float(r.steps) for r in counted], "tasks", "no task has a decided first attempt")


def user_turns(records: Iterable[EpisodeRecord]) -> Metric:
    """Mean ask_user exchanges per first attempt."""
    return mean_metric([float(r.user_turns) for r in first_attempts(records)], "tasks", "no episodes")


# --- PSPA-Bench: APR, PPR ------------------------------------------------------------------------------


def _completed_with_dependencies(r: EpisodeRecord) -> set[str]:
    """Reached milestones whose dependencies are all completed too (PSPA's rule 3:
    a sub-task whose dependency is not completed is not completed either). A dependency on an
    alternatives node is completed when one of its paths is (rule 2)."""
    reached = {m.id for m in r.milestones if m.reached}
    deps = {m.id: m.depends_on for m in r.milestones}
    nodes = {a: [[m.id for m in ms] for ms in paths.values()] for a, paths in _paths(r).items()}
    done: dict[str, bool] = {}

    def ok(mid: str, seen: frozenset[str]) -> bool:
        if mid in done:
            return done[mid]
        if mid in nodes and mid not in seen:
            result = any(all(ok(p, seen | {mid}) for p in path) for path in nodes[mid])
        elif mid not in reached or mid in seen:
            result = False
        else:
            result = all(ok(d, seen | {mid}) for d in deps.get(mid, ()) if d in deps or d in nodes)
        done[mid] = result
        return result

    return {m.id for m in r.milestones if ok(m.id, frozenset())}


def selected_path(r: EpisodeRecord, done: set[str] | None = None) -> list[MilestoneRecord]:
    """PSPA's P*: the milestones of the source-to-sink path with the most completed ones.

    Alternatives nodes are independent, so P* takes, for each, the path with the most completed
    milestones; ties go to more completed flexible ones, then the shorter path, then the path whose
    first completed milestone came earliest (PSPA Alg. 1, stage 3), then the first listed.
    """
    done = _completed_with_dependencies(r) if done is None else done
    chosen: dict[str, list[MilestoneRecord]] = {}
    for node, paths in _paths(r).items():
        def rank(ms: list[MilestoneRecord]) -> tuple[int, int, int, int]:
            hits = [m for m in ms if m.id in done]
            first = min((m.agent_steps for m in hits if m.agent_steps is not None), default=1 << 30)
            return (-len(hits), -sum(1 for m in hits if m.flexible), len(ms), first)
        chosen[node] = min(paths.values(), key=rank)  # min keeps the first listed at a full tie
    out: list[MilestoneRecord] = []
    for m in r.milestones:
        if m.alternative is None:
            out.append(m)
        elif chosen[m.alternative] and chosen[m.alternative][0].id == m.id:
            out += chosen[m.alternative]
    return out


def _process_term(r: EpisodeRecord, flexible_only: bool) -> float | None:
    """One attempt's completed / total milestones of P* (`selected_path`), dependencies enforced,
    flexible ones only for PPR; None when there are none to count."""
    done = _completed_with_dependencies(r)
    pool = [m for m in selected_path(r, done) if m.flexible or not flexible_only]
    return sum(1 for m in pool if m.id in done) / len(pool) if pool else None


def _pspa_ratio(records: Iterable[EpisodeRecord], flexible_only: bool) -> Metric:
    values = []
    for r in first_attempts(records):
        if not _known_milestones(r):
            continue
        term = _process_term(r, flexible_only)
        if term is not None:
            values.append(term)
    kind = "flexible milestones" if flexible_only else "milestones"
    return mean_metric(values, f"tasks with {kind}", f"no task with judged {kind}")


def attempt_process_ratio(r: EpisodeRecord) -> float:
    """One attempt's APR term: completed / total milestones of P* (`selected_path`), dependencies
    enforced. Where ATP counts an alternatives node once, APR counts the milestones of its best path."""
    term = _process_term(r, flexible_only=False)
    return 1.0 if term is None else term


def process_ratio(records: Iterable[EpisodeRecord]) -> Metric:
    """APR: completed / total milestones of the selected path P* per task (dependencies and
    alternatives as PSPA-Bench's task graphs have them), averaged over tasks."""
    return _pspa_ratio(records, flexible_only=False)


def personalized_process_ratio(records: Iterable[EpisodeRecord]) -> Metric:
    """PPR: APR restricted to flexible (preference-dependent) milestones."""
    return _pspa_ratio(records, flexible_only=True)
