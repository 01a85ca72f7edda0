"""Proving a sim scenario's tasks solvable and their checks right.

For every task, on a fresh simulated phone:
- the reference at L0 plays out, reaches every milestone in order and succeeds,
  in exactly `golden_steps` steps (and each milestone at its `golden_step`);
- at L1 and L2 the reference asks where the level leaves a slot out, the oracle
  user answers, and the task still succeeds;
- doing nothing fails the checks, and so does playing the mirror task's reference;
- a memory task's information items (IRR by rules) are all found after the reference;
- every alternative path of its milestones is taken by a reference (`guilens.scenarios.verify_paths`).
A sequence runs all day on one phone, clock set per task, values flowing on;
each task's variants start from a snapshot of the day so far.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from guilens.scenarios.checks import CheckContext, MilestoneTracker, extract_value, success
from guilens.scenarios.model import Scenario, Task
from guilens.scenarios.reference import ReferenceRun, oracle_user, run_reference
from guilens.scenarios.spec_reference import AskStep
from guilens.scenarios.verify_paths import verify_main_path, verify_own_paths

if TYPE_CHECKING:
    from guilens.device.base import Device


@dataclass
class Finding:
    name: str
    ok: bool
    detail: str = ""


@dataclass
class TaskVerdict:
    scenario: str
    task: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.findings)

    def add(self, name: str, ok: bool, detail: str = "") -> None:
        self.findings.append(Finding(name, ok, detail))


def _new_sim(setup: dict[str, Any]) -> Device:
    from guilens.device.sim.device import SimDevice

    return SimDevice(setup=setup)


def _check_run(v: TaskVerdict, name: str, run: ReferenceRun, task: Task, golden: bool) -> None:
    if not run.ok:
        order = ", ".join(f"{k}@{s}" for k, s in run.tracker.reached.items())
        missing = [m.id for m in run.tracker.milestones if m.id not in run.tracker.reached]
        why = []
        if missing:
            last = run.tracker.last.get(missing[0])
            why.append(f"first missing milestone {missing[0]!r}" + (f": {last.reason}" if last is not None else " (never checked)"))
        v.add(name, False, "; ".join([run.summary(), *why, f"reached: {order or 'none'}"]))
        return
    v.add(name, True, run.summary())
    if golden:
        n = len(run.steps)
        v.add("golden steps", n == task.golden_steps, f"reference took {n} steps, golden_steps is {task.golden_steps}")
        for m in task.all_milestones():
            if m.golden_step is not None:
                got = run.tracker.reached.get(m.id)
                v.add(f"milestone {m.id} step", got == m.golden_step,
                      f"reached at step {got}, golden_step is {m.golden_step}")


def _asks_at(task: Task, level: str) -> int:
    return sum(1 for s in task.reference if isinstance(s, AskStep) and s.spec.asked_at(level))


def _unasked_slots(task: Task, level: str, values: dict[str, str]) -> list[str]:
    """Slots the reference fills at `level` without asking, whose value the level's instruction does not say."""
    from guilens.scenarios.checks import norm
    from guilens.scenarios.model import TEMPLATE
    from guilens.scenarios.spec_reference import step_to_data

    asked = {s.spec.slot for s in task.reference if isinstance(s, AskStep) and s.spec.asked_at(level)}
    used: set[str] = set()
    for step in task.reference:
        if isinstance(step, AskStep):
            continue
        used |= set(TEMPLATE.findall(str(step_to_data(step))))
    text = norm(task.instruction_at(level, {**task.user.values, **values}))
    return sorted(n for n in used if n in task.user.slots and n not in asked
                  and norm(task.user.slots[n].value) not in text)


def _nothing(task: Task, device: Device, values: dict[str, str]) -> tuple[bool, str]:
    obs = device.observe()
    ctx = CheckContext.from_observation(obs, state=device.state())
    tracker = MilestoneTracker(task, values)
    tracker.update(ctx, 0)
    res = success(task, tracker, ctx)
    return res.ok is False, f"{'fails' if res.ok is False else 'does not fail'}: {res.reason}"


def _mirror(s: Scenario, task: Task) -> Task | None:
    if task.mirror_of:
        return s.task(task.mirror_of)
    return next((t for t in s.tasks if t.mirror_of == task.id), None)


def _verify_one(s: Scenario, task: Task, device: Device, values: dict[str, str], verdict: TaskVerdict,
                levels: tuple[str, ...] = ("L1", "L2")) -> ReferenceRun:
    """Variants first (each from a snapshot), the L0 run last so a sequence goes on from its result."""
    snap = device.snapshot()
    ok, detail = _nothing(task, device, values)
    verdict.add("doing nothing fails", ok, detail)
    mirror = _mirror(s, task)
    if mirror is not None and mirror.reference:
        device.restore(snap)
        run = run_reference(task, device, "L0", values=values, steps_of=mirror)
        failed = run.success.ok is False
        verdict.add(f"mirror {mirror.id} fails", failed,
                    run.summary() if not failed else f"fails: {run.success.reason}")
    for level in ("L1", "L2"):
        if level not in task.levels or level not in levels:
            continue
        device.restore(snap)
        run = run_reference(task, device, level, values=values, user=oracle_user(task))
        _check_run(verdict, f"reference at {level}", run, task, golden=False)
        asked = sum(1 for st in run.steps if st.question)
        want = _asks_at(task, level)
        verdict.add(f"asks at {level}", asked == want, f"asked {asked} question(s), the reference has {want} at {level}")
        silent = _unasked_slots(task, level, values)
        verdict.add(f"{level} resolvable", not silent,
                    "every slot the reference uses is in the instruction or asked for" if not silent else
                    f"the reference uses {', '.join(silent)} at {level}, but the instruction does not give it "
                    "and the reference never asks for it")
    device.restore(snap)
    if task.alternatives():
        verify_own_paths(verdict, task, device, values)
    run = run_reference(task, device, "L0", values=values)
    _check_run(verdict, "reference at L0", run, task, golden=True)
    verify_main_path(verdict, task, run)
    if task.memory != "none":
        _check_information(verdict, task, device, values, run)
    return run


def _check_information(verdict: TaskVerdict, task: Task, device: Device, values: dict[str, str],
                       run: ReferenceRun) -> None:
    """A memory task's information items (IRR by rules) are all found after the reference: an item
    the right end state lacks would take credit from every agent."""
    from guilens.scenarios.information import find_items, information_items

    env = {**task.user.values, **values}
    items, origin = information_items(task.filled(env) if env else task)
    if not items:
        verdict.add("information items", False, "a memory task with no information items: declare `information:`")
        return
    obs = device.observe()
    ctx = CheckContext.from_observation(obs, state=device.state(), answer=run.answer)
    missed = [f"{f.id} ({f.where})" for f in find_items(items, ctx) if not f.found]
    n = f"{len(items)} item{'s' if len(items) != 1 else ''}"
    verdict.add("information items", not missed, f"{n} ({origin}), all found after the reference" if not missed
                else f"not found after the reference: {'; '.join(missed)}")


def verify_scenario(s: Scenario, only: str | None = None, level: str | None = None) -> list[TaskVerdict]:
    """Verify every task (or the one named) of a sim scenario; `level` L1 or L2: the reference at that
    level only besides L0 (which is always played: it proves the golden path and the checks)."""
    levels = ("L1", "L2") if level is None else tuple(lv for lv in ("L1", "L2") if lv == level)
    from guilens.scenarios.params import has_templates, instantiate, tasks_of

    if has_templates(s):  # templates are verified through a variant (`--variants N --seed S` draws more)
        s = instantiate(s, 1, 0)
        if only is not None:
            return [v for t in tasks_of(s, only) for v in verify_scenario(s, t.id, level)]
    if s.device != "sim":
        return [TaskVerdict(s.id, t.id, [Finding("sim", False, "not a sim scenario: nothing to verify by rules")])
                for t in s.tasks if only in (None, t.id)]
    out: list[TaskVerdict] = []
    if s.kind == "tasks":
        for t in s.tasks:
            if only not in (None, t.id):
                continue
            v = TaskVerdict(s.id, t.id)
            if not t.reference:
                v.add("reference", False, "the task has no reference solution")
            else:
                _verify_one(s, t, _new_sim(s.setup_for(t)), {}, v, levels)
            out.append(v)
        return out
    # a sequence: one phone all day
    device = _new_sim(s.setup)
    values: dict[str, str] = {}
    for t in s.tasks:
        when = s.when(t)
        if when is not None:
            device.set_clock(when)
        v = TaskVerdict(s.id, t.id)
        run = _verify_one(s, t, device, dict(values), v, levels)
        state = device.state()
        for name, src in t.outputs.items():
            got = extract_value(src, state, run.answer)
            v.add(f"output {name}", got is not None and _same(got, src.expected),
                  f"read {got!r}, expected {src.expected!r}")
            values[name] = got if got is not None else src.expected
        if only in (None, t.id):
            out.append(v)
    return out


def _same(a: str, b: str) -> bool:
    from guilens.scenarios.checks import values_equal

    return values_equal(a, b, 0.005)
