"""The Hard tier (`hard` pack): MemGUI-Bench's Hard is 41 or more golden steps; memory tasks span
three or four apps and come in mirror pairs; several share their result by either of two paths."""

from __future__ import annotations

from guilens.scenarios.loader import find_scenario
from guilens.scenarios.model import Task
from guilens.scenarios.stats import tier_of


def _pack() -> list[Task]:
    return list(find_scenario("hard").tasks)


def test_ten_hard_tasks_over_three_or_four_apps() -> None:
    tasks = _pack()
    hard = [t for t in tasks if t.golden_steps >= 41 and tier_of(t.golden_steps) == "hard"]
    assert len(hard) >= 10 and len(hard) == len(tasks)
    for t in tasks:
        assert 3 <= len(set(t.apps)) <= 4, t.id
        assert t.difficulty == 3 and t.memory != "none" and t.information, t.id
        assert t.levels == ["L0", "L1", "L2"] and t.user.slots, t.id
        assert t.rule_checked, t.id  # every milestone decided by rules
        assert t.reference_steps == t.golden_steps, t.id


def test_mirror_pairs_share_apps_and_demand_but_not_specifics() -> None:
    tasks = {t.id: t for t in _pack()}
    pairs = [(t, tasks[t.mirror_of]) for t in tasks.values() if t.mirror_of]
    assert len(pairs) * 2 == len(tasks)  # every task is in exactly one pair
    for a, b in pairs:
        assert set(a.apps) == set(b.apps) and a.memory == b.memory and a.output == b.output
        assert [type(i).__name__ for i in a.milestones] == [type(i).__name__ for i in b.milestones]
        assert abs(a.golden_steps - b.golden_steps) <= 2
        assert a.instruction.L0 != b.instruction.L0 and a.user.values != b.user.values or a.reference != b.reference


def test_facts_are_held_across_a_detour() -> None:
    """The last milestone quotes a fact found before a detour sub-task the instruction asks for."""
    for t in _pack():
        ids = [m.id for m in t.all_milestones()]
        assert any(i.startswith("detour") for i in ids), t.id
        first_fact = min(m.golden_step for m in t.all_milestones() if m.golden_step is not None)
        assert t.golden_steps - first_fact >= 25, t.id  # the first fact found waits 25+ steps to be used


def test_at_least_four_tasks_have_alternative_paths_each_with_a_reference() -> None:
    with_alt = [t for t in _pack() if t.alternatives()]
    assert len(with_alt) >= 4
    for t in with_alt:
        for a in t.alternatives():
            assert len(a.any_of) >= 2
            assert sum(1 for p in a.any_of if not p.reference) <= 1, t.id  # verify can play every path
