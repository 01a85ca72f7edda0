"""Every metric against values worked out by hand, the papers' worked examples included."""

from __future__ import annotations

import pytest

from guilens.judge.metrics import (
    EpisodeRecord,
    MilestoneRecord,
    cas_score,
    clarification_adjusted_success,
    compute,
    cost_per_step,
    frr,
    information_retention,
    judge_cost_per_step,
    milestone_step_ratio,
    mtpr,
    pass_at_k,
    pass_at_k_curve,
    personalized_process_ratio,
    process_ratio,
    step_ratio,
    success_rate,
    task_progress,
    time_per_step,
    user_turns,
)


def ep(task: str, attempt: int = 1, success: bool | None = True, **kw: object) -> EpisodeRecord:
    return EpisodeRecord(task=task, attempt=attempt, success=success, **kw)  # type: ignore[arg-type]


def ms(mid: str, reached: bool | None, step: int | None = None, golden: int | None = None, flexible: bool = False,
       deps: tuple[str, ...] = ()) -> MilestoneRecord:
    return MilestoneRecord(id=mid, reached=reached, agent_steps=step, golden_step=golden, flexible=flexible, depends_on=deps)


# --- ScenDroid: CAS ------------------------------------------------------------------------------


def test_cas_worked_example_from_the_paper() -> None:
    # ScenDroid 3.3: s = 1 with c = 2 clarifications gives CAS = 1 / (1 + 0.5 * 2) = 0.5.
    assert cas_score(True, 2) == 0.5
    assert cas_score(True, 0) == 1.0 and cas_score(False, 0) == 0.0 and cas_score(True, 1) == pytest.approx(2 / 3)


def test_cas_averages_over_first_attempts() -> None:
    recs = [ep("a", user_turns=0), ep("b", user_turns=2), ep("c", success=False, user_turns=1),
            ep("b", attempt=2, user_turns=0)]
    m = clarification_adjusted_success(recs)
    assert m.value == pytest.approx((1 + 0.5 + 0) / 3) and m.n == 3
    assert user_turns(recs).value == 1.0


# --- MemGUI-Bench: SR, pass@k, FRR ----------------------------------------------------------------


def frr_run() -> list[EpisodeRecord]:
    """10 tasks at k = 3: four pass at once, two recover at attempt 2, two at 3, two never."""
    recs = [ep(f"ok{i}") for i in range(4)]  # the runner stops after a success: no attempts 2, 3
    for i in range(2):
        recs += [ep(f"r2-{i}", 1, False), ep(f"r2-{i}", 2, True)]
    for i in range(2):
        recs += [ep(f"r3-{i}", 1, False), ep(f"r3-{i}", 2, False), ep(f"r3-{i}", 3, True)]
    for i in range(2):
        recs += [ep(f"no-{i}", a, False) for a in (1, 2, 3)]
    return recs


def test_frr_at_k3_uses_harmonic_weights() -> None:
    # FRR = (w2 R2 + w3 R3) / N_failed = (1 * 2 + 0.5 * 2) / 6 = 0.5
    m = frr(frr_run())
    assert m.value == pytest.approx(0.5) and m.n == 6
    # At k = 2 the attempt-3 recoveries do not count yet: 2 / 6.
    assert frr(frr_run(), k=2).value == pytest.approx(2 / 6)


def test_frr_at_k4_weighs_the_fourth_attempt_a_third() -> None:
    recs = [ep("t", 1, False), ep("t", 2, False), ep("t", 3, False), ep("t", 4, True), ep("u", 1, False)]
    assert frr(recs).value == pytest.approx((1 / 3) / 2)  # the peer code's 2^-(i-2) would give 0.25 / 2


def test_frr_edge_cases_are_na() -> None:
    assert frr([ep("a"), ep("b", success=False)]).na  # one attempt per task
    assert "one attempt" in frr([ep("a")]).note
    m = frr([ep("a"), ep("a", 2)])
    assert m.na and m.note == "no task failed its first attempt"


def test_pass_at_k_for_every_k() -> None:
    curve = pass_at_k_curve(frr_run())
    assert [round(m.value, 3) for m in curve.values()] == [0.4, 0.6, 0.8]  # type: ignore[arg-type]
    assert success_rate(frr_run()).value == 0.4 and success_rate(frr_run()).n == 10
    with pytest.raises(ValueError):
        pass_at_k(frr_run(), 0)


def test_undecided_attempts_are_left_out_not_failed() -> None:
    recs = [ep("a"), ep("b", success=None), ep("c", success=False)]
    assert success_rate(recs).value == 0.5 and success_rate(recs).n == 2
    assert success_rate([ep("x", success=None)]).na
    # An undecided attempt 1 with a success at attempt 2: a pass@2 success, absent from pass@1.
    recs = [ep("a", 1, None), ep("a", 2, True), ep("b", 1, False)]
    assert pass_at_k(recs, 1).value == 0.0 and pass_at_k(recs, 1).n == 1
    assert pass_at_k(recs, 2).value == 0.5


# --- IRR and MTPR ---------------------------------------------------------------------------------


def test_irr_averages_memory_tasks_with_success_as_100() -> None:
    recs = [
        ep("m1", memory=True),                                # success: 1.0 by rule 1, no analysis needed
        ep("m2", success=False, memory=True, irr=0.5),
        ep("m3", success=False, memory=True, irr=None),       # not analysed: left out, noted
        ep("s1", success=False, memory=False, irr=0.0),       # standard tasks do not count
        ep("m2", attempt=2, success=False, memory=True, irr=0.9),  # only attempt 1 counts
    ]
    m = information_retention(recs)
    assert m.value == pytest.approx(0.75) and m.n == 2 and "1 failed without an IRR" in m.note
    assert information_retention([ep("s", memory=False)]).na


def test_mtpr_is_memory_sr_over_standard_sr_and_na_without_standard_tasks() -> None:
    recs = [ep("m1", memory=True), ep("m2", success=False, memory=True), ep("m3", success=False, memory=True),
            ep("m4", success=False, memory=True), ep("s1"), ep("s2", success=False)]
    assert mtpr(recs).value == pytest.approx(0.25 / 0.5)
    no_std = mtpr([ep("m1", memory=True)])
    assert no_std.na and no_std.note == "no standard (non-memory) tasks"
    zero = mtpr([ep("m1", memory=True), ep("s1", success=False)])
    assert zero.na and "SR on standard tasks is 0" in zero.note
    assert mtpr([ep("s1")]).note == "no memory tasks"


# --- efficiency ------------------------------------------------------------------------------------


def test_step_ratio_counts_successes_only_with_the_successful_attempts_steps() -> None:
    recs = [ep("a", steps=8, golden_steps=10), ep("b", steps=12, golden_steps=10),
            ep("c", success=False, steps=40, golden_steps=10),
            ep("d", 1, False, steps=30, golden_steps=10), ep("d", 2, True, steps=5, golden_steps=10)]
    assert step_ratio(recs).value == pytest.approx(1.0) and step_ratio(recs).n == 2
    assert step_ratio(recs, k=2).value == pytest.approx((0.8 + 1.2 + 0.5) / 3)
    assert step_ratio([ep("x", success=False, steps=3, golden_steps=3)]).na


def test_time_and_cost_per_step_agent_and_judge_apart() -> None:
    recs = [ep("a", steps=10, duration_s=20.0, agent_cost_usd=0.1, judged=True, judge_cost_usd=0.05,
               judge_duration_s=5.0),
            ep("b", steps=3, duration_s=9.0, agent_cost_usd=0.06),
            ep("c", steps=0, duration_s=1.0)]
    assert time_per_step(recs).value == pytest.approx(2.5) and time_per_step(recs).n == 2
    assert cost_per_step(recs).value == pytest.approx(0.015)
    assert judge_cost_per_step(recs).value == pytest.approx(0.005) and judge_cost_per_step(recs).n == 1


# --- AndroidLens: ATP, MSR ---------------------------------------------------------------------------


def test_atp_and_msr() -> None:
    recs = [
        ep("a", milestones=(ms("x", True, 3, 2), ms("y", True, 6, 6))),
        ep("b", success=False, milestones=(ms("x", True, 2, 4), ms("y", False), ms("z", False), ms("w", False))),
        ep("c", success=False, milestones=(ms("x", False, None, 1),)),
        ep("d", milestones=(ms("x", None),)),  # not judged: left out of ATP
        ep("e"),                                # no milestones
    ]
    atp = task_progress(recs)
    assert atp.value == pytest.approx((1 + 0.25 + 0) / 3) and atp.n == 3
    msr = milestone_step_ratio(recs)
    assert msr.value == pytest.approx(((3 / 2 + 6 / 6) / 2 + 2 / 4) / 2) and msr.n == 2


# --- PSPA: APR, PPR ------------------------------------------------------------------------------


def test_apr_enforces_dependencies_and_ppr_counts_flexible_milestones() -> None:
    r = ep("a", milestones=(ms("open", True), ms("pick", True, flexible=True, deps=("filter",)),
                            ms("filter", False, flexible=True)))
    assert process_ratio([r]).value == pytest.approx(1 / 3)  # 'pick' counts for nothing without 'filter'
    assert task_progress([r]).value == pytest.approx(2 / 3)  # ATP does not apply the rule
    assert personalized_process_ratio([r]).value == 0.0
    fixed_only = ep("b", milestones=(ms("open", True),))
    assert personalized_process_ratio([fixed_only]).na
    chain = ep("c", milestones=(ms("a", True), ms("b", True, deps=("a",)), ms("c", True, flexible=True, deps=("b",))))
    assert process_ratio([chain]).value == 1.0 and personalized_process_ratio([chain]).value == 1.0


# --- everything at once ------------------------------------------------------------------------------


def test_compute_groups_and_carries_every_metric() -> None:
    recs = [ep("a", difficulty=1, apps=1, memory=True), ep("b", success=False, difficulty=1, apps=2),
            ep("c", difficulty=3, apps=2), ep("c", 2, True, difficulty=3, apps=2)]
    m = compute(recs)
    for key in ("sr", "pass_at_k", "frr", "irr", "mtpr", "atp", "msr", "step_ratio", "time_per_step_s",
                "cost_per_step_usd", "judge_time_per_step_s", "judge_cost_per_step_usd", "cas", "apr", "ppr",
                "user_turns", "by_difficulty", "by_apps", "by_memory"):
        assert key in m, key
    assert m["attempts"] == 2 and m["tasks"] == 3 and m["episodes"] == 4
    assert m["by_difficulty"]["easy"]["sr"] == {"value": 0.5, "n": 2, "note": "tasks"}
    assert m["by_difficulty"]["hard"]["tasks"] == 1
    assert m["by_apps"]["2"]["sr"]["value"] == 0.5 and m["by_memory"]["memory"]["tasks"] == 1
    assert m["mtpr"]["value"] == pytest.approx(1 / 0.5)
    assert m["frr"] == {"value": 0.0, "n": 1, "note": "tasks that failed attempt 1"}


def test_groups_come_in_their_natural_order() -> None:
    recs = [ep(f"t{i}", difficulty=d, apps=a) for i, (d, a) in enumerate([(3, 10), (1, 2), (2, 1), (None, 3)])]
    m = compute(recs)
    assert list(m["by_difficulty"]) == ["easy", "medium", "hard", "unknown"]
    assert list(m["by_apps"]) == ["1", "2", "3", "10"]
