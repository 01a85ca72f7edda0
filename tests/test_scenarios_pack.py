"""The built-in pack: what it must contain, and proof that every task is solvable and its checks right."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest

from guilens.scenarios.loader import load_builtin
from guilens.scenarios.model import TEMPLATE, Scenario
from guilens.scenarios.spec_reference import AskStep

pytest.importorskip("guilens.device.sim.device")

PACK = {s.id: s for s in load_builtin()}


def band(golden: int) -> int:
    """MemGUI-Bench's difficulty from golden steps: easy 1-20, medium 21-40, hard 41+."""
    return 1 if golden <= 20 else 2 if golden <= 40 else 3


def test_the_pack_has_the_memory_scenario_the_day_and_the_demo() -> None:
    assert {"memory", "day", "demo"} <= set(PACK)
    for s in PACK.values():
        assert s.device == "sim"


def test_memory_tasks_in_mirror_pairs() -> None:
    tasks = PACK["memory"].tasks
    assert len(tasks) >= 24
    pairs = [(t, PACK["memory"].task(t.mirror_of)) for t in tasks if t.mirror_of]
    assert len(pairs) >= 12
    paired = {t.id for pair in pairs for t in pair}
    assert paired == {t.id for t in tasks}, "every memory task belongs to a mirror pair"
    for a, b in pairs:
        assert sorted(a.apps) == sorted(b.apps), (a.id, b.id)
        assert (a.memory, a.output, a.forbid_copy) == (b.memory, b.output, b.forbid_copy), (a.id, b.id)
        assert a.instruction_at("L0", a.user.values) != b.instruction_at("L0", b.user.values)
        assert abs(a.difficulty - b.difficulty) <= 1


def test_apps_difficulty_and_golden_steps() -> None:
    tasks = PACK["memory"].tasks
    assert all(1 <= len(t.apps) <= 4 for t in tasks)
    assert sum(len(t.apps) > 1 for t in tasks) >= 16
    assert Counter(len(t.apps) for t in tasks).keys() >= {1, 2, 3, 4}
    for s in PACK.values():
        for t in s.tasks:
            assert 5 <= t.golden_steps <= 60, (s.id, t.id)
            assert t.difficulty == band(t.golden_steps), (s.id, t.id, t.golden_steps)
            assert t.golden_steps == t.reference_steps
    assert {t.difficulty for t in tasks} >= {1, 2}


def test_explicit_implicit_and_no_copy_tasks() -> None:
    tasks = PACK["memory"].tasks
    kinds = Counter(t.output for t in tasks if t.memory != "none")
    assert kinds["explicit"] >= 6 and kinds["implicit"] >= 6
    assert sum(t.forbid_copy for t in tasks) >= 4
    assert all("copy" in t.instruction.L0.lower() for t in tasks if t.forbid_copy)
    assert sum(t.memory != "none" for t in tasks) >= 20


@pytest.mark.parametrize("sid", ["memory", "day", "demo"])
def test_every_task_has_three_levels_user_knowledge_rules_and_a_reference(sid: str) -> None:
    s = PACK[sid]
    for t in s.tasks:
        assert t.levels == ["L0", "L1", "L2"], t.id
        assert len({t.instruction.L0, t.instruction.L1, t.instruction.L2}) == 3, t.id
        assert t.user.slots or t.user.profile, t.id
        assert t.milestones and t.rule_checked, f"{t.id}: every milestone has a rule check"
        assert t.reference, t.id
        assert all(m.text for m in t.all_milestones())
        # the MSR denominator: the step at which the reference reaches each milestone (verify checks it)
        assert all(m.golden_step is not None for m in t.all_milestones()), t.id
        # slots the L0 instruction spells out come from the user's knowledge
        assert TEMPLATE.findall(t.instruction.L0) == [n for n in TEMPLATE.findall(t.instruction.L0)
                                                      if n in t.user.slots or n in s.expected_values(t)]


def test_l1_l2_are_resolved_by_asking() -> None:
    for s in (PACK["memory"], PACK["demo"]):
        for t in s.tasks:
            for level in ("L1", "L2"):
                asks = [st for st in t.reference if isinstance(st, AskStep) and st.spec.asked_at(level)]
                assert asks, f"{t.id}: nothing to ask at {level}"
                for a in asks:
                    assert a.spec.slot and t.user.answer(a.spec.question) == t.user.slots[a.spec.slot].value, (
                        t.id, a.spec.question)


def test_the_persistent_day() -> None:
    day: Scenario = PACK["day"]
    assert day.kind == "sequence" and len(day.tasks) >= 8
    assert len(day.apps) >= 5
    assert all(t.clock for t in day.tasks)
    assert any(t.depends_on for t in day.tasks)
    produced = {name for t in day.tasks for name in t.outputs}
    consumers = [t for t in day.tasks if t.template_names() & produced]
    assert produced and consumers, "a value flows from an earlier task into a later one"
    assert day.preferences
    order = [t.id for t in day.tasks]
    for t in day.tasks:
        for pid in t.constrained_by:
            pref = next(p for p in day.preferences if p.id == pid)
            assert order.index(pref.stated_in) < order.index(t.id)
    assert any(t.constrained_by for t in day.tasks)


def test_the_demo() -> None:
    (t,) = PACK["demo"].tasks
    assert 10 <= t.golden_steps <= 20
    assert len(t.apps) >= 3
    assert any(isinstance(st, AskStep) and st.spec.asked_at("L0") for st in t.reference)


@pytest.mark.parametrize("sid", sorted(PACK))
def test_verify_every_builtin_task(sid: str) -> None:
    from guilens.scenarios.verify import verify_scenario

    verdicts = verify_scenario(PACK[sid])
    assert len(verdicts) == len(PACK[sid].tasks)
    failed = {v.task: [f"{f.name}: {f.detail}" for f in v.findings if not f.ok] for v in verdicts if not v.ok}
    assert not failed, failed
    for v in verdicts:
        names = {f.name for f in v.findings}
        assert {"doing nothing fails", "reference at L0", "golden steps", "reference at L1",
                "reference at L2"} <= names, v.task
        if PACK[sid].kind == "tasks" and sid == "memory":
            assert any(n.startswith("mirror ") for n in names), v.task


def test_cli_validate_and_list_the_pack() -> None:
    res = subprocess.run([sys.executable, "-m", "guilens", "scenarios", "validate"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    from guilens.scenarios.loader import builtin_files

    assert f"{len(builtin_files())} scenario file(s) valid" in res.stdout
    show = subprocess.run([sys.executable, "-m", "guilens", "scenarios", "show", "day:log-table"],
                          capture_output=True, text=True)
    assert show.returncode == 0, show.stderr
    assert "depends on: order-table" in show.stdout and "clock: 09:10" in show.stdout
