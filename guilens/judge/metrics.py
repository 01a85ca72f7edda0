"""The run metrics of MemGUI-Bench, AndroidLens, ScenDroid and PSPA-Bench, each written once.

Every function takes the records of one run (one `EpisodeRecord` per attempt
directory) and returns a `Metric`: a value, the number of things it averages
over, and a note. A metric that cannot be computed is `None` with the note
saying why (no standard tasks: MTPR is n/a, not 0). Rates are fractions in
0..1; the report shows them as percentages.

Conventions shared by all of them:
- A *task* is a (scenario, task id) pair; its attempts are its records.
- pass@1 metrics use each task's attempt 1 (SR, IRR, MTPR, ATP, MSR, CAS, APR, PPR).
- An attempt whose outcome nobody decided (aborted, interrupted, a judge that
  could not tell) is left out, as if it had not run; the count of such attempts
  is reported beside the metrics, never silently turned into a failure.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from statistics import fmean
from typing import Any

from guilens.judge.metrics_progress import (
    CAS_ETA,
    average_steps,
    cas_score,
    clarification_adjusted_success,
    milestone_step_ratio,
    personalized_process_ratio,
    process_ratio,
    progress_distribution,
    task_progress,
    user_turns,
)
from guilens.judge.records import (
    EpisodeRecord,
    Metric,
    MilestoneRecord,
    by_task,
    first_attempts,
    first_success,
    max_attempt,
    mean_metric,
    na_metric,
)

__all__ = [
    "CAS_ETA", "DIFFICULTY", "IRR_METHOD_NAMES", "EpisodeRecord", "Metric", "MilestoneRecord", "max_attempt",
    "agent_time_per_step", "average_steps",
    "cas_score", "clarification_adjusted_success", "compute", "cost_per_step", "device_time_per_step",
    "difficulty_name", "frr", "information_retention", "judge_cost_per_step", "judge_time_per_step",
    "milestone_step_ratio", "mtpr", "pass_at_k", "pass_at_k_curve", "person_time_per_step",
    "personalized_process_ratio", "process_ratio", "progress_distribution", "step_ratio", "success_rate",
    "task_progress", "time_per_step", "user_time_per_answer", "user_turns",
]
"""With the milestone and scenario metrics (`metrics_progress`) and `MilestoneRecord`: the report, the
comparison and the tests take every metric from here."""

DIFFICULTY = {1: "easy", 2: "medium", 3: "hard"}


# --- MemGUI-Bench: SR, pass@k, FRR, IRR, MTPR, step ratio, time and cost per step ----------------


def success_rate(records: Iterable[EpisodeRecord]) -> Metric:
    """SR (pass@1): the share of tasks whose first attempt succeeded, over tasks with a decided first attempt."""
    firsts = first_attempts(records)
    decided = [r for r in firsts if r.success is not None]
    empty = "no task has a decided first attempt" if firsts else "no tasks of this kind"
    return mean_metric([1.0 if r.success else 0.0 for r in decided], "tasks", empty)


def pass_at_k(records: Iterable[EpisodeRecord], k: int) -> Metric:
    """pass@k: the share of tasks that succeeded in at least one of their first k attempts.

    A task counts if at least one of its first k attempts was decided. A task
    stopped early after a success (the runner skips the remaining attempts) is a
    success at every k from that attempt on.
    """
    if k < 1:
        raise ValueError("k starts at 1")
    values: list[float] = []
    for attempts in by_task(records).values():
        window = [r for r in attempts if r.attempt <= k and r.success is not None]
        if window:
            values.append(1.0 if any(r.success for r in window) else 0.0)
    return mean_metric(values, "tasks", f"no task has a decided attempt within {k}")


def pass_at_k_curve(records: Sequence[EpisodeRecord], k_max: int | None = None) -> dict[int, Metric]:
    """pass@k for every k from 1 to the most attempts any task had (or `k_max`)."""
    top = k_max if k_max is not None else max_attempt(records)
    return {k: pass_at_k(records, k) for k in range(1, top + 1)}


def frr(records: Sequence[EpisodeRecord], k: int | None = None) -> Metric:
    """Failure Recovery Rate (MemGUI-Bench A.6): FRR = sum_{i=2..k} w_i * R_i / N_failed, w_i = 1/(i-1).

    N_failed: tasks whose first attempt failed. R_i: tasks that succeed for the
    first time at attempt i. Faster recovery weighs more (w_2 = 1, w_3 = 0.5, ...).
    The paper's weights; its released code uses 2^-(i-2), which differs from k = 4 on.
    """
    k = k if k is not None else max_attempt(records)
    if k < 2:
        return na_metric("one attempt per task: nothing to recover in")
    failed: list[list[EpisodeRecord]] = []
    for attempts in by_task(records).values():
        first = next((r for r in attempts if r.attempt == 1), None)
        if first is not None and first.success is False:
            failed.append(attempts)
    if not failed:
        return na_metric("no task failed its first attempt")
    total = 0.0
    for attempts in failed:
        i = first_success([r for r in attempts if r.attempt <= k])
        if i is not None and i >= 2:
            total += 1.0 / (i - 1)
    return Metric(total / len(failed), len(failed), "tasks that failed attempt 1")


def information_retention(records: Iterable[EpisodeRecord]) -> Metric:
    """Average IRR over memory tasks at pass@1 (MemGUI-Bench A.6).

    A successful first attempt has IRR = 1 by the analyzer's rule 1, no judge
    needed. A failed one needs a counted IRR: by rules (the task's information
    items, read from the end state), by the LLM analyzer, or 0 for a task blocked
    before it ran. Failures nobody counted are left out and counted in the note
    (the peer code counted them as 0), and the note says which method gave how many.
    """
    ok, missing = [], 0
    methods: dict[str, int] = defaultdict(int)
    for r in first_attempts(records):
        if not r.memory or r.success is None:
            continue
        if r.success:
            ok.append(1.0)
            methods["task_succeeded"] += 1
        elif r.irr is not None:
            ok.append(r.irr)
            methods[r.irr_method or "unknown"] += 1
        else:
            missing += 1
    said = [f"{n} {IRR_METHOD_NAMES.get(m, f'by {m}')}" for m, n in sorted(methods.items(), key=_method_order)]
    if missing:
        said.append(f"{missing} failed without an IRR, left out")
    note = "; ".join(["memory tasks", ", ".join(said)] if said else ["memory tasks"])
    if not ok:
        return na_metric("no memory task with an IRR" + (f" ({missing} failed unanalysed)" if missing else ""))
    return Metric(fmean(ok), len(ok), note)


IRR_METHOD_NAMES = {"task_succeeded": "succeeded", "rules": "by rules", "llm_analysis": "by the LLM analyzer",
                    "blocked": "blocked (0)"}
"""How the IRR note names each method (`EpisodeRecord.irr_method`)."""


def _method_order(kv: tuple[str, int]) -> tuple[int, str]:
    names = list(IRR_METHOD_NAMES)
    return (names.index(kv[0]) if kv[0] in names else len(names), kv[0])


def mtpr(records: Sequence[EpisodeRecord]) -> Metric:
    """Memory-Task Proficiency Ratio: SR on memory tasks / SR on standard tasks (pass@1)."""
    mem = success_rate([r for r in records if r.memory])
    std = success_rate([r for r in records if not r.memory])
    if std.value is None:
        return na_metric("no standard (non-memory) tasks")
    if mem.value is None:
        return na_metric("no memory tasks")
    if std.value == 0:
        return na_metric("SR on standard tasks is 0", std.n)
    return Metric(mem.value / std.value, mem.n + std.n, f"SR memory {mem.value:.3f} / SR standard {std.value:.3f}")


def step_ratio(records: Sequence[EpisodeRecord], k: int = 1) -> Metric:
    """Average step ratio over tasks that succeeded within k attempts: agent steps / golden steps,
    using the steps of the attempt that succeeded (the peer code always used attempt 1's)."""
    values = []
    for attempts in by_task(records).values():
        i = first_success([r for r in attempts if r.attempt <= k])
        if i is None:
            continue
        r = next(r for r in attempts if r.attempt == i)
        if r.golden_steps:
            values.append(r.steps / r.golden_steps)
    return mean_metric(values, "successful tasks", "no successful task with golden steps")


def _per_step(records: Iterable[EpisodeRecord], amount: Callable[[EpisodeRecord], float | None],
              k: int | None, what: str, per: Callable[[EpisodeRecord], int] = lambda r: r.steps,
              empty: str = "", note: str = "episodes") -> Metric:
    """The mean over episodes (attempts <= k) of `amount / per`, skipping episodes where either is missing."""
    values = []
    for r in records:
        if k is not None and r.attempt > k:
            continue
        a, n = amount(r), per(r)
        if n > 0 and a is not None:
            values.append(a / n)
    return mean_metric(values, note, empty or f"no episode with steps and a recorded {what}")


def time_per_step(records: Iterable[EpisodeRecord], k: int | None = None) -> Metric:
    """Wall seconds per step (MemGUI-Bench's Time/Step: total execution time over steps), averaged
    over episodes. It holds everyone's time, a person's and the user's included; `agent_time_per_step`
    is the agent's alone."""
    return _per_step(records, lambda r: r.duration_s, k, "duration",
                     note="episodes; wall clock: agent, people, device and pauses")


def agent_time_per_step(records: Iterable[EpisodeRecord], k: int | None = None) -> Metric:
    """The agent's own seconds per step it decided: its deciding time over its steps (a person's steps
    in a take-over are neither), averaged over episodes with agent steps."""
    return _per_step(records, lambda r: r.agent_s, k, "agent time", per=lambda r: r.agent_steps,
                     empty="no episode with agent steps and a recorded agent time",
                     note="episodes; the agent's own steps and time")


def person_time_per_step(records: Iterable[EpisodeRecord], k: int | None = None) -> Metric:
    """A person's seconds per step they decided (take-overs, `--agent human`): a baseline's acting time."""
    return _per_step(records, lambda r: r.person_s, k, "person time", per=lambda r: r.human_steps,
                     empty="no episode with a person's steps", note="episodes; a person's steps")


def user_time_per_answer(records: Iterable[EpisodeRecord], k: int | None = None) -> Metric:
    """The user's seconds per answer to `ask_user`, averaged over episodes with user turns. Per answer,
    not per step: the user is only asked on some steps."""
    return _per_step(records, lambda r: r.user_s, k, "user time", per=lambda r: r.user_turns,
                     empty="no episode with user turns and a recorded user time", note="episodes; per answer")


def device_time_per_step(records: Iterable[EpisodeRecord], k: int | None = None) -> Metric:
    """The device's seconds per step (acting, observing, state reads)."""
    return _per_step(records, lambda r: r.device_s, k, "device time")


def cost_per_step(records: Iterable[EpisodeRecord], k: int | None = None) -> Metric:
    """Agent dollars per step the agent decided, averaged over episodes (a person's steps cost nothing
    and would dilute it; without take-overs this is MemGUI-Bench's Cost/Step)."""
    return _per_step(records, lambda r: r.agent_cost_usd, k, "cost", per=lambda r: r.agent_steps,
                     empty="no episode with agent steps and a recorded cost")


def judge_time_per_step(records: Iterable[EpisodeRecord], k: int | None = None) -> Metric:
    """The judge's seconds per step of the episodes it judged (kept apart from the agent's)."""
    return _per_step(records, lambda r: r.judge_duration_s if r.judged else None, k, "verdict")


def judge_cost_per_step(records: Iterable[EpisodeRecord], k: int | None = None) -> Metric:
    """The judge's dollars per step of the episodes it judged."""
    return _per_step(records, lambda r: r.judge_cost_usd if r.judged else None, k, "verdict")


# --- everything at once -----------------------------------------------------------------------------


def _group(records: Sequence[EpisodeRecord], key: Callable[[EpisodeRecord], str], k: int) -> dict[str, Any]:
    groups: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for r in records:
        groups[key(r)].append(r)
    return {
        name: {
            "tasks": len(by_task(rs)),
            "sr": success_rate(rs).to_json(),
            f"pass@{k}": pass_at_k(rs, k).to_json(),
        }
        for name, rs in sorted(groups.items(), key=lambda kv: _group_order(kv[0]))
    }


def _group_order(name: str) -> tuple[int, float, str]:
    """Difficulty in its natural order, app counts by number, anything else by name."""
    names = list(DIFFICULTY.values())
    if name in names:
        return (0, names.index(name), name)
    if name.isdigit():
        return (1, int(name), name)
    return (2, 0, name)


def difficulty_name(d: int | None) -> str:
    return DIFFICULTY.get(d, "unknown") if d is not None else "unknown"


def compute(records: Sequence[EpisodeRecord], *, k: int | None = None, eta: float = CAS_ETA) -> dict[str, Any]:
    """Every metric of a run, as JSON-ready data (what `guilens report --json` prints)."""
    k = k if k is not None else max(1, max_attempt(records))
    tasks = by_task(records)
    undecided = [r for r in records if r.success is None]
    return {
        "episodes": len(records),
        "tasks": len(tasks),
        "attempts": k,
        "undecided": len(undecided),
        "memory_tasks": sum(1 for a in tasks.values() if a[0].memory),
        "standard_tasks": sum(1 for a in tasks.values() if not a[0].memory),
        "sr": success_rate(records).to_json(),
        "sr_memory": success_rate([r for r in records if r.memory]).to_json(),
        "sr_standard": success_rate([r for r in records if not r.memory]).to_json(),
        "pass_at_k": {str(i): m.to_json() for i, m in pass_at_k_curve(records, k).items()},
        "frr": frr(records, k).to_json(),
        "irr": information_retention(records).to_json(),
        "mtpr": mtpr(records).to_json(),
        "atp": task_progress(records).to_json(),
        "msr": milestone_step_ratio(records).to_json(),
        "step_ratio": step_ratio(records, 1).to_json(),
        f"step_ratio@{k}": step_ratio(records, k).to_json(),
        "time_per_step_s": time_per_step(records).to_json(),
        "agent_time_per_step_s": agent_time_per_step(records).to_json(),
        "person_time_per_step_s": person_time_per_step(records).to_json(),
        "user_time_per_answer_s": user_time_per_answer(records).to_json(),
        "device_time_per_step_s": device_time_per_step(records).to_json(),
        "cost_per_step_usd": cost_per_step(records).to_json(),
        "judge_time_per_step_s": judge_time_per_step(records).to_json(),
        "judge_cost_per_step_usd": judge_cost_per_step(records).to_json(),
        "cas": clarification_adjusted_success(records, eta).to_json(),
        "cas_eta": eta,
        "as": average_steps(records).to_json(),
        "apr": process_ratio(records).to_json(),
        "ppr": personalized_process_ratio(records).to_json(),
        "user_turns": user_turns(records).to_json(),
        "user_turns_total": sum(r.user_turns for r in records),
        "agent_cost_usd": round(sum(r.agent_cost_usd for r in records), 6),
        "judge_cost_usd": round(sum(r.judge_cost_usd for r in records), 6),
        "by_difficulty": _group(records, lambda r: difficulty_name(r.difficulty), k),
        "by_apps": _group(records, lambda r: str(r.apps), k),
        "by_memory": _group(records, lambda r: "memory" if r.memory else "standard", k),
        "atp_distribution": progress_distribution(records),
    }
