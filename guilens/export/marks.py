"""Milestones of an exported task: where the episode reached the task's own, and the person's marks.

Every milestone of the task stays, with its rule check; its `golden_step` is
the step at which the task's checks, replayed over the screens, app states and
answers the episode recorded (as the rules judge replays them), first hold:
that is where the episode reached it, and where `guilens scenarios verify`,
playing the written reference on a fresh phone, reaches it again. A milestone
the replay cannot see (its state was not recorded) takes the step the runner
reached it at live. One a person marked reached (`m` with its id) before its
check held cannot be told from the record: the runner stops recording the app
state a check reads once the milestone counts as reached. Its step comes from
the written path played on a simulated phone (deterministic: the same screens),
and the person is told where its check holds.

A label a person marked that is one of the task's milestone ids is thus that
milestone. Any other label becomes a milestone of its own, placed in the
order where it was marked. On the simulated phone it gets a rule check read off
the screen the person marked (an element with its id and text, an id, a text,
with or without the app), the first candidate that, replayed over the episode
with every other milestone, holds from exactly the marked step and moves no
other milestone: the task stays decided by rules, and the mark by the same
rules as the rest. Elsewhere (a real phone) the mark is a milestone for the
judge alone, as AndroidLens' annotators' milestones are.

An alternatives item (PSPA-Bench's "choose one path" node) is done once one of
its paths is. The path the episode took (`path_taken`, the tracker's rule) gets
its golden steps from the episode, and the written reference is now the one
that takes it; the paths not taken have none (a golden step is where the
task's reference reaches a milestone, as `scenarios verify` checks it), and
draw no warning for never holding. `rehome_references` keeps
`scenarios verify`'s rule that a path without a `reference` is the one the
task's reference takes: the path taken gives its own reference up, and a path
the task's old reference took gets that reference as its own. A mark is never
put inside an alternatives item (a group member must be a milestone).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from guilens.device.uitree import UINode, UITreeError, parse_ui_xml

if TYPE_CHECKING:
    from guilens.episode import EpisodeReader
    from guilens.export.path import WrittenPath
    from guilens.scenarios.checks import CheckContext
    from guilens.scenarios.model import Scenario, Task

_MAX_CANDIDATES = 48


@dataclass
class Marked:
    milestones: list[dict[str, Any]]
    """The task's milestone list, file form, with golden steps."""
    added: list[str] = field(default_factory=list)
    """Ids of milestones made from marks."""
    notes: list[str] = field(default_factory=list)
    """What the person should know (a mark with no check found, a mark away from its check)."""
    unsure: list[str] = field(default_factory=list)
    """Milestones whose step the record cannot tell: a person marked them reached before their check
    held, so the runner stopped recording the app state their check reads (`replay_on_sim` tells)."""
    taken: dict[str, str] = field(default_factory=dict)
    """Alternatives item id -> the path the episode completed it by."""


def each_milestone(milestones: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every milestone of a file-form milestone list: groups' members and alternatives' paths' too."""
    out: list[dict[str, Any]] = []
    for it in milestones:
        if "any_of" in it:
            out += [m for p in it["any_of"] for m in p["milestones"]]
        else:
            out += it.get("unordered", [it])
    return out


def _map_milestones(milestones: list[dict[str, Any]], fn: Any) -> list[dict[str, Any]]:
    """The list with `fn` applied to every milestone, its groups and alternatives kept as they are."""
    def item(it: dict[str, Any]) -> dict[str, Any]:
        if "any_of" in it:
            return {**it, "any_of": [{**p, "milestones": [fn(m) for m in p["milestones"]]} for p in it["any_of"]]}
        if "unordered" in it:
            return {**it, "unordered": [fn(m) for m in it["unordered"]]}
        return dict(fn(it))

    return [item(it) for it in milestones]


def taken_paths(task: Task, reached: dict[str, int]) -> dict[str, str]:
    """Alternatives item id -> the path that completed it, by the steps its milestones were reached at."""
    from guilens.scenarios.milestones import checklist, path_taken

    return {s.id: p for s in checklist(task) if s.paths and (p := path_taken(s, reached)) is not None}


def untaken(task: Task, taken: dict[str, str]) -> set[str]:
    """Milestones on the paths not taken of the alternatives items the episode completed."""
    return {m.id for a in task.alternatives() if a.id in taken for p in a.any_of if p.id != taken[a.id]
            for m in p.milestones}


def rehome_references(milestones: list[dict[str, Any]], taken: dict[str, str],
                      old_reference: list[Any]) -> list[dict[str, Any]]:
    """Paths' references once the task's reference is the episode's: the path taken needs none of its
    own; a path without one (the old reference took it) gets the old reference (module docstring)."""
    def item(it: dict[str, Any]) -> dict[str, Any]:
        if "any_of" not in it or it["id"] not in taken:
            return it
        paths = []
        for p in it["any_of"]:
            if p["id"] == taken[it["id"]]:
                p = {k: v for k, v in p.items() if k != "reference"}
            elif not p.get("reference") and old_reference:
                p = {**p, "reference": list(old_reference)}
            paths.append(p)
        return {**it, "any_of": paths}

    return [item(it) for it in milestones]


def slug(label: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_.-]+", "-", label.strip()).strip("-.").lower()
    return s or "milestone"


def _foreground(ui: UINode | None) -> str | None:
    """The app of the final screen (no step line says it): the package of its first node."""
    return next((n.package for n in ui.iter() if n.package), None) if ui is not None else None


def recorded_contexts(reader: EpisodeReader, task: Task, values: dict[str, str]) -> list[CheckContext]:
    """What the checks read at each screen of the episode (screen i: after i recorded actions)."""
    from guilens.judge.evidence import Evidence
    from guilens.scenarios.checks import CheckContext

    ev = Evidence(reader, task=task, values=values)
    out: list[CheckContext] = []
    for i in range(ev.n + 1):
        xml = reader.ui_xml(i)
        ui: UINode | None = None
        if xml:
            try:
                ui = parse_ui_xml(xml)
            except UITreeError:
                ui = None
        app = (ev.steps[i].app or None) if i < ev.n else _foreground(ui)
        answer = ev.episode.final_answer if i == ev.n and ev.episode.final_answer else ev.answer_before(i)
        out.append(CheckContext(ui=ui, app=app, state=ev.state(i), answer=answer))
    return out


def replay(task: Task, contexts: list[CheckContext], values: dict[str, str]) -> dict[str, int]:
    """Milestone id -> the screen its check first holds at, in the task's order."""
    from guilens.scenarios.milestones import MilestoneTracker

    tracker = MilestoneTracker(task, dict(values))
    for i, ctx in enumerate(contexts):
        tracker.update(ctx, i)
    return dict(tracker.reached)


def _item_done(it: dict[str, Any], reached: dict[str, int], screen: int) -> bool:
    """Whether a milestone item is complete by `screen`: every member of a group, one whole path of
    an alternatives item."""
    def done(ms: list[dict[str, Any]]) -> bool:
        return all(m["id"] in reached and reached[m["id"]] <= screen for m in ms)

    if "any_of" in it:
        return any(done(p["milestones"]) for p in it["any_of"])
    return done(it.get("unordered", [it]))


def _with(task: Task, milestones: list[dict[str, Any]]) -> Task:
    from guilens.scenarios.model import Task as TaskModel

    data = task.model_dump(mode="json", by_alias=True, exclude_none=True)
    data["milestones"] = milestones
    return TaskModel.model_validate(data)


def _placements(milestones: list[dict[str, Any]], reached: dict[str, int], screen: int,
                new: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Where a milestone reached at `screen` may go: its own item after the last item done by then,
    or into the item still open then (an unordered group)."""
    j = 0
    while j < len(milestones) and _item_done(milestones[j], reached, screen):
        j += 1
    out = [milestones[:j] + [new] + milestones[j:]]
    if j < len(milestones) and "any_of" not in milestones[j]:
        open_item = milestones[j]
        members = open_item.get("unordered", [open_item])
        out.append(milestones[:j] + [{"unordered": [*members, new]}] + milestones[j + 1:])
    return out


_FLAGS = ("focused", "checked", "selected")


def _texts(ui: UINode | None, pkg: str | None) -> tuple[list[tuple[str, str]], set[str], set[str], set[tuple[str, str]]]:
    """(id, text) pairs, ids, texts and (id, state flag) pairs of the app's own visible nodes, in reading order."""
    pairs: list[tuple[str, str]] = []
    ids: set[str] = set()
    texts: set[str] = set()
    flags: set[tuple[str, str]] = set()
    if ui is None:
        return pairs, ids, texts, flags
    for n in ui.iter():
        if n.area <= 0 or (pkg and n.package and n.package != pkg):
            continue
        text = n.text if 0 < len(n.text) <= 60 else ""
        pairs.append((n.short_id, text))
        if n.short_id:
            ids.add(n.short_id)
            flags |= {(n.short_id, f) for f in _FLAGS if getattr(n, f)}
        if text:
            texts.add(text)
    return pairs, ids, texts, flags


def check_candidates(ctx: CheckContext, before: CheckContext | None) -> list[dict[str, Any]]:
    """Checks that describe a screen, what is new on it first (an element, its text, its state: a field
    just focused, a switch just turned on), each alone and with its app."""
    pkg = ctx.app
    pairs, _, _, flags = _texts(ctx.ui, pkg)
    old_pairs, old_ids, old_texts, old_flags = _texts(before.ui if before is not None else None, pkg)
    new_first: list[dict[str, Any]] = []
    rest: list[dict[str, Any]] = []
    for rid, flag in sorted(flags):
        (rest if (rid, flag) in old_flags else new_first).append({"element": f"id:{rid}", flag: True})
    for rid, text in pairs:
        if rid and text:
            (rest if (rid, text) in old_pairs else new_first).append({"element": f"id:{rid}", "text": text})
    for rid, _ in pairs:
        if rid:
            (rest if rid in old_ids else new_first).append({"element": f"id:{rid}"})
    for _, text in pairs:
        if text:
            (rest if text in old_texts else new_first).append({"screen_text": text})
    out: list[dict[str, Any]] = []
    for c in new_first + rest:
        for form in (c, {"all": [{"app": pkg}, c]} if pkg else None):
            if form is not None and form not in out:
                out.append(form)
    return out[:_MAX_CANDIDATES]


def _dump(task: Task) -> list[dict[str, Any]]:
    return [it.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True) for it in task.milestones]


def _set_golden(milestones: list[dict[str, Any]], golden: dict[str, int], off_path: set[str]) -> list[dict[str, Any]]:
    """Golden steps from the episode. The milestones in `off_path` (paths not taken) get none: a golden
    step is where the task's reference reaches a milestone (MSR's denominator), and it takes one path."""
    def one(m: dict[str, Any]) -> dict[str, Any]:
        m = {k: v for k, v in m.items() if k != "golden_step"}
        if m["id"] in golden and m["id"] not in off_path:
            m["golden_step"] = golden[m["id"]]
        return m

    return _map_milestones(milestones, one)


def mark_milestones(reader: EpisodeReader, task: Task, path: WrittenPath, values: dict[str, str], *,
                    sim: bool) -> Marked:
    """The task's milestones with golden steps from the episode, and its marks added (module docstring)."""
    ep = reader.episode
    live = {h.id: h.step + 1 for h in ep.milestones}
    by_rules = {h.id for h in ep.milestones if h.by == "rules"}
    by_person = {h.id for h in ep.milestones if h.by == "human" and task.milestone(h.id).check is not None}
    contexts = recorded_contexts(reader, task, values) if sim else []
    milestones = _dump(task)
    reached = {k: v for k, v in (replay(task, contexts, values) if contexts else {}).items() if k not in by_person}
    replayed = dict(reached)  # what a replay must keep reaching where it did when a mark is placed
    taken = taken_paths(task, {**{h.id: h.step + 1 for h in ep.milestones if h.id not in reached}, **reached})
    other_paths = untaken(task, taken)
    notes: list[str] = []
    for m in task.all_milestones():
        if m.id in reached or m.id in other_paths:
            continue
        if sim and m.check is not None and m.id not in by_rules | by_person:
            notes.append(f"milestone {m.id!r}: its check never holds on the recorded screens")
        if m.id in live:  # the runner's own record: a real phone's judge, or a person's mark
            reached[m.id] = live[m.id]
    ids = {m.id for m in task.all_milestones()}
    added: list[str] = []
    for s in reader.steps:
        for label in s.annotations:
            screen = s.index + 1
            if label in ids:
                if label in reached and reached[label] != screen:
                    notes.append(f"mark {label!r} at step {screen}: its check first holds at step "
                                 f"{path.before(reached[label])}, which is its golden step")
                continue
            mid, n = slug(label), 2
            while mid in ids:
                mid, n = f"{slug(label)}-{n}", n + 1
            new: dict[str, Any] = {"id": mid, "text": label}
            placed = _place(task, milestones, replayed, screen, new, contexts, values) if contexts else None
            if placed is None and sim:
                notes.append(f"mark {label!r} at step {screen}: no check read off that screen first holds "
                             "there; kept for the judge, without a rule check")
            elif placed is not None:
                replayed[mid] = screen
            if placed is None:
                placed = _placements(milestones, reached, screen, new)[0]
            milestones = placed
            reached[mid] = screen
            ids.add(mid)
            added.append(mid)
    golden = {mid: path.before(sc) for mid, sc in reached.items()}
    unsure = sorted(by_person - other_paths) if sim else []
    return Marked(_set_golden(_templated(milestones, set(added), task, values), golden, other_paths),
                  added, notes, unsure, taken)


def replay_on_sim(scenario: Scenario, task_id: str) -> dict[str, int]:
    """Milestone id -> golden step, playing the task's reference at L0 on a simulated phone brought to
    where the task starts (a day's earlier tasks played first), as `scenarios verify` plays it."""
    from guilens.device.sim.device import SimDevice
    from guilens.scenarios.checks import extract_value
    from guilens.scenarios.reference import run_reference

    task = scenario.task(task_id)
    if scenario.kind == "tasks":
        return dict(run_reference(task, SimDevice(setup=scenario.setup_for(task)), "L0").tracker.reached)
    device = SimDevice(setup=scenario.setup)
    values: dict[str, str] = {}
    for t in scenario.tasks:
        when = scenario.when(t)
        if when is not None:
            device.set_clock(when)
        run = run_reference(t, device, "L0", values=dict(values))
        if t.id == task_id:
            return dict(run.tracker.reached)
        for name, src in t.outputs.items():
            got = extract_value(src, device.state(), run.answer)
            values[name] = got if got is not None else src.expected
    return {}


def _templated(milestones: list[dict[str, Any]], ids: set[str], task: Task, values: dict[str, str]) -> list[dict[str, Any]]:
    """The marks' checks with the task's values written as its checks write them (`{first_item}`)."""
    from guilens.export.path import templater
    from guilens.scenarios.templates import fill_any

    used = task.template_names()
    to_template = templater({k: v for k, v in {**task.user.values, **values}.items() if k in used})

    def one(m: dict[str, Any]) -> dict[str, Any]:
        if m["id"] not in ids or "check" not in m:
            return m
        check = _strings(m["check"], to_template)
        return {**m, "check": check} if fill_any(check, {**task.user.values, **values}) == m["check"] else m

    return _map_milestones(milestones, one)


def _strings(data: Any, fn: Any) -> Any:
    if isinstance(data, str):
        return fn(data)
    if isinstance(data, dict):
        return {k: v if k in ("element", "app", "state", "field", "op") else _strings(v, fn) for k, v in data.items()}
    if isinstance(data, list):
        return [_strings(v, fn) for v in data]
    return data


def _place(task: Task, milestones: list[dict[str, Any]], reached: dict[str, int], screen: int,
           new: dict[str, Any], contexts: list[CheckContext], values: dict[str, str]) -> list[dict[str, Any]] | None:
    """The milestone list with `new` given a check and a place that replay exactly as recorded."""
    from guilens.scenarios.checks import evaluate
    from guilens.scenarios.model import Milestone

    if screen >= len(contexts) or contexts[screen].ui is None:
        return None
    before = contexts[screen - 1] if screen >= 1 else None
    for check in check_candidates(contexts[screen], before):
        probe = Milestone.model_validate({**new, "check": check})
        assert probe.check is not None
        if evaluate(probe.check, contexts[screen]).ok is not True:
            continue
        for placed in _placements(milestones, reached, screen, {**new, "check": check}):
            got = replay(_with(task, placed), contexts, values)
            if got.get(new["id"]) == screen and all(got.get(k) == v for k, v in reached.items()):
                return placed
    return None
