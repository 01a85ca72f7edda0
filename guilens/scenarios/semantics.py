"""What a schema cannot check: ids, references between parts, and fit with the simulated phone.

Each problem is `(path, message, at_key)`: the path into the file as written
(`("tasks", 2, "mirror_of")`), a message saying what is wrong and what is
allowed, and whether to point at the key rather than its value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from guilens.scenarios.errors import PathT
from guilens.scenarios.model import TEMPLATE, MilestoneAlternatives, MilestoneGroup, Scenario, Task
from guilens.scenarios.params import params_problems
from guilens.scenarios.params_spec import names_of
from guilens.scenarios.spec_checks import AppCheck, StateCheck, iter_checks
from guilens.scenarios.spec_reference import AskStep, OpenStep, count_steps

SemProblem = tuple[PathT, str, bool]


STATE_ROOT_KEYS = frozenset({
    "foreground", "clock", "screen", "route", "fields", "focus", "dialog", "toast", "step", "clipboard",
    "apps", "anomalies", "events",
})
"""Top-level keys of the sim's state besides app ids (`guilens.device.sim.device.SimDevice.state`);
`phone.KEY` reaches one whose name an app shares (`phone.clock`)."""


def _sim_hooks() -> tuple[set[str] | None, Callable[[dict[str, Any]], Any] | None]:
    """The sim's app ids and setup validator, when the simulated phone is there to ask."""
    try:
        from guilens.device.sim.registry import APPS
        from guilens.device.sim.setup import validate_setup
    except ImportError:
        return None, None
    return set(APPS), validate_setup


def _setup_problems(validate: Callable[[dict[str, Any]], Any], setup: dict[str, Any]) -> list[str]:
    try:
        result = validate(setup)
    except (ValueError, TypeError, KeyError) as err:
        problems = getattr(err, "problems", None)
        return [str(p) for p in problems] if problems else [str(err).strip() or type(err).__name__]
    if isinstance(result, list | tuple):
        return [str(p) for p in result]
    return []


def _milestone_paths(task: Task, ti: int) -> Iterator[tuple[PathT, Any]]:
    for j, item in enumerate(task.milestones):
        if isinstance(item, MilestoneGroup):
            for k, m in enumerate(item.unordered):
                yield ("tasks", ti, "milestones", j, "unordered", k), m
        elif isinstance(item, MilestoneAlternatives):
            for k, way in enumerate(item.any_of):
                for n, m in enumerate(way.milestones):
                    yield ("tasks", ti, "milestones", j, "any_of", k, "milestones", n), m
        else:
            yield ("tasks", ti, "milestones", j), item


def _duplicates(ids: list[str]) -> set[str]:
    seen: set[str] = set()
    dup: set[str] = set()
    for i in ids:
        (dup if i in seen else seen).add(i)
    return dup


def semantic_problems(s: Scenario) -> list[SemProblem]:
    out: list[SemProblem] = []
    ids = [t.id for t in s.tasks]
    index = {t.id: i for i, t in enumerate(s.tasks)}
    folded = [t.id.casefold() for t in s.tasks]
    for i, t in enumerate(s.tasks):
        if ids.index(t.id) != i:
            out.append((("tasks", i, "id"), f"duplicate task id {t.id!r} (also task #{ids.index(t.id) + 1})", False))
        elif folded.index(folded[i]) != i:
            first = s.tasks[folded.index(folded[i])].id
            out.append((("tasks", i, "id"), f"task id {t.id!r} differs from {first!r} only in case: their run "
                        "folders would be one on a case-insensitive file system (macOS, Windows)", False))
    sim_apps, validate_setup = _sim_hooks() if s.device == "sim" else (None, None)
    out += _preference_problems(s, index)
    out += params_problems(s)
    for i, t in enumerate(s.tasks):
        out += _task_problems(s, t, i, index, sim_apps)
    if validate_setup is not None:
        shared = _setup_problems(validate_setup, s.setup)
        for msg in shared:
            out.append(_setup_problem(("setup",), msg, s.setup))
        for i, t in enumerate(s.tasks):
            if t.setup:
                for msg in _setup_problems(validate_setup, s.setup_for(t)):
                    if msg not in shared:  # the scenario's own problems are reported once, above
                        out.append(_setup_problem(("tasks", i, "setup"), msg, t.setup))
    return out


_SETUP_PATH = re.compile(r"^([A-Za-z_][\w.\[\]-]*): (.*)$", re.S)


def _setup_problem(base: PathT, msg: str, setup: dict[str, Any]) -> SemProblem:
    """Point a sim-setup problem (`apps.notes.notes[2].title: ...`) at its place in the file."""
    m = _SETUP_PATH.match(msg)
    if not m:
        return base, f"sim setup: {msg}", False
    path: list[str | int] = []
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", m[1]):
        path.append(int(part[1:-1]) if part.startswith("[") else part)
    # keep the part of the path the file actually has (a task's setup is merged onto the scenario's)
    cur: Any = setup
    have = 0
    for p in path:
        found = (isinstance(cur, dict) and p in cur) or (
            isinstance(cur, list) and isinstance(p, int) and 0 <= p < len(cur))
        if not found:
            break
        cur, have = cur[p], have + 1
    extra = path[have:]
    where = (*base, *path[:have])
    detail = m[2] if not extra else f"{'.'.join(map(str, extra))}: {m[2]}"
    return where, f"sim setup: {detail}", not extra


def _preference_problems(s: Scenario, index: dict[str, int]) -> list[SemProblem]:
    out: list[SemProblem] = []
    pref_ids = [p.id for p in s.preferences]
    for j, p in enumerate(s.preferences):
        if pref_ids.index(p.id) != j:
            out.append((("preferences", j, "id"), f"duplicate preference id {p.id!r}", False))
        if p.stated_in not in index:
            out.append((("preferences", j, "stated_in"), f"no task {p.stated_in!r} in this scenario", False))
    if s.preferences and s.kind != "sequence":
        out.append((("preferences",), "preferences constrain later tasks of a sequence; use kind: sequence", True))
    return out


def _task_problems(s: Scenario, t: Task, i: int, index: dict[str, int], sim_apps: set[str] | None) -> list[SemProblem]:
    out: list[SemProblem] = []
    base: PathT = ("tasks", i)
    # mirror pairs
    if t.mirror_of is not None:
        other = next((x for x in s.tasks if x.id == t.mirror_of), None)
        if t.mirror_of == t.id:
            out.append(((*base, "mirror_of"), "a task cannot mirror itself", False))
        elif other is None:
            out.append(((*base, "mirror_of"), f"no task {t.mirror_of!r} in this scenario ({_list(index)})", False))
        elif other.mirror_of not in (None, t.id):
            out.append(((*base, "mirror_of"), f"{other.id!r} mirrors {other.mirror_of!r}, not this task", False))
    # sequence dependencies
    for j, dep in enumerate(t.depends_on):
        path = (*base, "depends_on", j)
        if s.kind != "sequence":
            out.append((path, "depends_on links tasks of a sequence; use kind: sequence", False))
        elif dep not in index:
            out.append((path, f"no task {dep!r} in this scenario ({_list(index)})", False))
        elif index[dep] >= i:
            out.append((path, f"{dep!r} does not come before this task; a task can only depend on earlier ones", False))
    if t.setup and s.kind == "sequence":
        out.append(((*base, "setup"), "a sequence keeps one phone all day: put the setup on the scenario", True))
    if t.outputs and s.kind != "sequence":
        out.append(((*base, "outputs"), "outputs flow to later tasks of a sequence; use kind: sequence", True))
    prefs = {p.id: p for p in s.preferences}
    for j, pid in enumerate(t.constrained_by):
        path = (*base, "constrained_by", j)
        if pid not in prefs:
            out.append((path, f"no preference {pid!r} ({', '.join(prefs) or 'none declared'})", False))
        elif prefs[pid].stated_in in index and index[prefs[pid].stated_in] >= i:
            out.append((path, f"preference {pid!r} is stated in {prefs[pid].stated_in!r}, which does not come earlier", False))
    out += _milestone_problems(t, base)
    out += _template_problems(s, t, i, base)
    # golden steps agree with the reference
    if t.reference:
        n = count_steps(list(t.reference), "L0")
        if n != t.golden_steps:
            out.append(((*base, "golden_steps"), f"is {t.golden_steps} but the reference takes {n} steps at L0", False))
    for j, step in enumerate(t.reference):
        if isinstance(step, AskStep):
            spec = step.spec
            bad_level = [lv for lv in (spec.levels or []) if lv not in t.levels]
            if bad_level:
                out.append(((*base, "reference", j, "ask", "levels"), f"this task has no {', '.join(bad_level)} instruction", False))
    if sim_apps is not None:
        out += _app_problems(t, base, sim_apps)
    return out


def _milestone_problems(t: Task, base: PathT) -> list[SemProblem]:
    out: list[SemProblem] = []
    order: dict[str, int] = {}
    for j, item in enumerate(t.milestones):
        for m in item.unordered if isinstance(item, MilestoneGroup) else [item]:
            order.setdefault(m.id, j)
        if isinstance(item, MilestoneAlternatives):  # its paths' milestones stand where it does
            for way in item.any_of:
                for m in way.milestones:
                    order.setdefault(m.id, j)
    mids = [m.id for _, m in _milestone_paths(t, 0)] + [a.id for a in t.alternatives()]
    dups = _duplicates(mids)
    seen: set[str] = {a.id for a in t.alternatives()}
    for j, item in enumerate(t.milestones):
        if isinstance(item, MilestoneAlternatives):
            for k, dep in enumerate(item.depends_on):
                if dep not in order or order[dep] >= j:
                    out.append(((*base, "milestones", j, "depends_on", k),
                                f"{dep!r} is no milestone before {item.id!r} in this task", False))
    for path, m in _milestone_paths(t, base[1]):  # type: ignore[arg-type]
        if m.id in dups and m.id in seen:
            out.append(((*path, "id"), f"duplicate milestone id {m.id!r}", False))
        seen.add(m.id)
        for k, dep in enumerate(m.depends_on):
            p = (*path, "depends_on", k)
            if dep == m.id:
                out.append((p, "a milestone cannot depend on itself", False))
            elif dep not in order:
                out.append((p, f"no milestone {dep!r} in this task ({', '.join(order)})", False))
            elif order[dep] > order[m.id]:
                out.append((p, f"{dep!r} comes later in the milestone order, so {m.id!r} could never be reached", False))
    # dependency cycles inside unordered groups
    graph = {m.id: [d for d in m.depends_on if d in order] for _, m in _milestone_paths(t, 0)}
    cyc = _cycle(graph)
    if cyc:
        out.append(((*base, "milestones"), f"milestone dependencies form a cycle: {' -> '.join(cyc)}", True))
    if isinstance(t.success.milestones, list):
        for k, mid in enumerate(t.success.milestones):
            if mid not in order:
                out.append(((*base, "success", "milestones", k), f"no milestone {mid!r} in this task", False))
    return out


def _cycle(graph: dict[str, list[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for d in graph.get(n, []):
            if state.get(d) == 1:
                return [*stack[stack.index(d):], d]
            if d not in state:
                found = visit(d)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in graph:
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def _template_problems(s: Scenario, t: Task, i: int, base: PathT) -> list[SemProblem]:
    out: list[SemProblem] = []
    slots = set(s.user.slots) | set(t.user.slots)
    params = names_of(t.params)
    earlier: set[str] = set()
    later: set[str] = set()
    for j, other in enumerate(s.tasks):
        (earlier if j < i else later if j > i else set()).update(other.outputs)
    for name in sorted(t.template_names()):
        if name in slots or name in earlier or name in params:
            continue
        hint = (
            "it is an output of a later task" if name in later
            else f"known: {', '.join(sorted(slots | earlier)) or 'none'}"
        )
        what = "a parameter, " if t.params else ""
        out.append((base, f"{{{name}}} is neither {what}a user slot nor an output of an earlier task ({hint})", True))
    for j, step in enumerate(t.reference):
        if isinstance(step, AskStep) and step.spec.slot and step.spec.slot not in slots:
            out.append(((*base, "reference", j, "ask", "slot"), f"no user slot {step.spec.slot!r} ({', '.join(sorted(slots)) or 'none'})", False))
    return out


def _app_problems(t: Task, base: PathT, sim_apps: set[str]) -> list[SemProblem]:
    out: list[SemProblem] = []
    known = ", ".join(sorted(sim_apps))
    for j, app in enumerate(t.apps):
        if app not in sim_apps:
            out.append(((*base, "apps", j), f"the simulated phone has no app {app!r} (apps: {known})", False))
    for j, step in enumerate(t.reference):
        if isinstance(step, OpenStep) and not TEMPLATE.search(step.open) and step.open not in sim_apps:
            out.append(((*base, "reference", j, "open"), f"the simulated phone has no app {step.open!r} (apps: {known})", False))
    checked = [((*path, "check"), m.check) for path, m in _milestone_paths(t, base[1])]  # type: ignore[arg-type]
    checked.append(((*base, "success", "check"), t.success.check))
    for path, check in checked:
        if check is None:
            continue
        for c in iter_checks(check):
            if isinstance(c, AppCheck) and c.app not in sim_apps and "." not in c.app:
                out.append((path, f"app check names {c.app!r}, not a sim app (apps: {known})", False))
            if isinstance(c, StateCheck):
                root = c.state.split(".", 1)[0]
                if root not in sim_apps and root not in STATE_ROOT_KEYS and root != "phone":
                    out.append((path, f"state path {c.state!r} starts with {root!r}, neither a sim app "
                                f"(apps: {known}) nor one of {', '.join(sorted(STATE_ROOT_KEYS))}", False))
    return out


def _list(index: dict[str, int]) -> str:
    return "tasks: " + ", ".join(index)
