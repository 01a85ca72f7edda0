"""The scenario file an exported episode becomes: its task, and the tasks it cannot stand without.

The task is the one the episode ran (instructions, user knowledge, setup,
checks, answer, success rule, all as they were) with the episode's path as its
reference (`guilens.export.path`), its golden steps counted on that path, and
its milestones reached where the episode reached them, the person's marks
added (`guilens.export.marks`).

Two kinds of task come along, so that the file means what the original did:
- a mirror pair stays a pair. `mirror_of` names the twin task whose reference
  must fail this task's checks (and this one's the twin's); the twin comes
  along unchanged, pointed at the exported task where it pointed at the
  original, so `scenarios verify` still plays each against the other's checks;
- a task of a persistent day starts from what the day's earlier tasks left on
  the phone, and its checks read values they handed on, so the file is the day
  up to it: the earlier tasks as they are, then the exported one.
  `guilens run FILE:TASK` plays the earlier ones by their references first, as
  for any task of a day.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guilens.episode import EpisodeReader
from guilens.export.marks import Marked, each_milestone, mark_milestones, rehome_references, slug
from guilens.export.path import write_path

if TYPE_CHECKING:
    from guilens.scenarios.model import Scenario, Task
    from guilens.scenarios.verify import TaskVerdict


class BaselineError(ValueError):
    """The episode cannot become a task; the message says which step or field."""


@dataclass
class Baseline:
    scenario: dict[str, Any]
    """The scenario file's content: validated, ready to dump as YAML."""
    task_id: str
    skipped: list[str] = field(default_factory=list)
    """Steps that could not be written as reference steps, and why."""
    notes: list[str] = field(default_factory=list)
    """Other things the person should know about the export (marks, milestones)."""
    companions: dict[str, str] = field(default_factory=dict)
    """The other tasks the file holds, each with why it is there."""
    added: list[str] = field(default_factory=list)
    """Milestones made from a person's marks."""
    verdicts: list[TaskVerdict] | None = None
    """`scenarios verify` on the file (simulated-phone scenarios), when asked for."""

    @property
    def task(self) -> dict[str, Any]:
        return next(t for t in self.scenario["tasks"] if t["id"] == self.task_id)

    def milestone_count(self) -> int:
        """The checklist's count, as ATP reads it: an alternatives item once, a group's members each."""
        return sum(len(m["unordered"]) if "unordered" in m else 1 for m in self.task.get("milestones", []))

    def summary(self) -> str:
        """What the file holds, counted from the file."""
        t = self.task
        n = self.milestone_count()
        marks = f" ({len(self.added)} from marks)" if self.added else ""
        line = f"task {t['id']!r}: {t['golden_steps']} golden steps, {n} milestone{'s' if n != 1 else ''}{marks}"
        mirrors = [k for k, why in self.companions.items() if why == "mirror"]
        earlier = [k for k, why in self.companions.items() if why == "earlier"]
        if mirrors:
            line += f"; with its mirror task {', '.join(map(repr, mirrors))} for the mirror check"
        if earlier:
            line += f"; after the day's {len(earlier)} earlier task{'s' if len(earlier) != 1 else ''}"
        return line


def _dump_task(task: Task) -> dict[str, Any]:
    """A task as a file writes it (bare words and the kind key first in its reference)."""
    from guilens.scenarios.spec_reference import step_to_data

    data = task.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True)
    if task.reference:
        data["reference"] = [step_to_data(s) for s in task.reference]
    refs = {(a.id, p.id): [step_to_data(s) for s in p.reference] for a in task.alternatives() for p in a.any_of}
    for item in data.get("milestones", []):  # an alternative path's own reference, in file form too
        for path in item.get("any_of", []):
            if refs.get((item["id"], path["id"])):
                path["reference"] = refs[(item["id"], path["id"])]
    return data


def _original(reader: EpisodeReader) -> tuple[Scenario | None, Task | None, dict[str, str]]:
    from guilens.judge.inputs import resolve_task

    scenario, task, values, _origin = resolve_task(reader)
    return scenario, task, values


def _who(reader: EpisodeReader) -> tuple[str, str]:
    """(who acted, as meta says it; the default id suffix)."""
    ep = reader.episode
    people = sum(1 for s in reader.steps if s.by == "human")
    agent = ep.agent or "agent"
    if people == len(reader.steps):
        return "human", "human"
    if people:
        return f"{agent} and a person ({people} of {len(reader.steps)} steps)", "human"
    return agent, slug(agent)


def _companions(scenario: Scenario, original: Task, new_id: str) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """(the other tasks the file holds, why each is there: `mirror` or `earlier`); see the module docstring."""
    if scenario.kind == "sequence":
        ids = [t.id for t in scenario.tasks]
        earlier = scenario.tasks[: ids.index(original.id)]
        return [_dump_task(t) for t in earlier], {t.id: "earlier" for t in earlier}
    twins: list[dict[str, Any]] = []
    why: dict[str, str] = {}
    for t in scenario.tasks:
        if t.id == original.id or not (t.id == original.mirror_of or t.mirror_of == original.id):
            continue
        data = _dump_task(t)
        if data.get("mirror_of") == original.id:
            data["mirror_of"] = new_id
        twins.append(data)
        why[t.id] = "mirror"
    return twins, why


def _scenario_data(scenario: Scenario, task: dict[str, Any], others: list[dict[str, Any]],
                   source: str, new_id: str) -> dict[str, Any]:
    base = scenario.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True,
                               exclude={"tasks", "id", "title", "description", "source", "preferences"})
    kept = {t["id"] for t in others} | {task["id"]}
    prefs = [p.model_dump(mode="json") for p in scenario.preferences if p.stated_in in kept]
    tasks = [*others, task] if scenario.kind == "sequence" else [task, *others]
    data: dict[str, Any] = {
        "id": slug(f"{scenario.id}-{new_id}"),
        "title": f"Baseline of {source}",
        "description": "",
        **base,
    }
    if prefs:
        data["preferences"] = prefs
    data["tasks"] = tasks
    return data


def task_from_episode(path: Path | str, *, task_id: str | None = None) -> Baseline:
    """Build the scenario an episode becomes (see the module docstring); raises BaselineError."""
    from guilens.scenarios.errors import ScenarioError
    from guilens.scenarios.loader import scenario_from_data
    from guilens.scenarios.model import Task

    reader = EpisodeReader(path)
    ep = reader.episode
    if ep.status != "success":
        raise BaselineError(f"{reader.dir}: the episode ended {ep.status!r}; only a successful episode is a golden path")
    if not any(s.action is not None and not s.error for s in reader.steps):
        raise BaselineError(f"{reader.dir}: no step with an action to learn from")
    scenario, original, values = _original(reader)
    level = ep.level if original is not None else "L0"
    env = {**(original.user.values if original is not None else {}), **values}
    flows = {k: v for k, v in values.items() if original is None or k not in original.user.slots}
    written = write_path(reader, task=original, level=level, values=env, flows=flows)
    golden = written.golden_steps("L0")
    if golden == 0:
        raise BaselineError(f"{reader.dir}: none of the steps could be written as reference steps"
                            + (f": {written.skipped[0]}" if written.skipped else ""))
    by, suffix = _who(reader)
    source = f"{ep.scenario}:{ep.task}" if ep.scenario else ep.task
    if original is not None:
        base = original
        new_id = task_id or f"{original.id}-{suffix}"
    else:
        apps = list(dict.fromkeys(s.app for s in reader.steps if s.app and not s.app.endswith("launcher"))) or ["unknown"]
        base = Task.model_validate({"id": task_id or slug(f"{ep.task}-{suffix}"), "apps": apps, "difficulty": 1,
                                    "instruction": {"L0": ep.instruction or ep.task}, "golden_steps": golden})
        new_id = base.id
    sim = scenario is not None and scenario.device == "sim"
    marked: Marked = mark_milestones(reader, base, written, values, sim=sim)
    task = _dump_task(base)
    old_reference = task.get("reference", [])
    task["id"] = new_id
    task["reference"] = written.reference
    task["golden_steps"] = golden
    task.pop("max_steps", None)
    task.pop("milestones", None)
    if marked.milestones:
        task["milestones"] = rehome_references(marked.milestones, marked.taken, old_reference)
    marks = [{"label": label, "step": s.index + 1} for s in reader.steps for label in s.annotations]
    meta = dict(task.get("meta") or {})
    meta["baseline"] = {
        "episode": str(reader.dir.resolve()), "task": source, "level": ep.level, "by": by, "steps": len(reader.steps),
        **({"golden_steps_before": original.golden_steps} if original is not None else {}),
        **({"marks": marks} if marks else {}),
        "duration_s": ep.timings.duration_s,
    }
    notes = list(marked.notes)
    if scenario is not None and original is not None:
        others, companions = _companions(scenario, original, new_id)
        if scenario.kind == "sequence" and original.mirror_of and original.mirror_of not in companions:
            meta["baseline"]["mirror_of"] = task.pop("mirror_of")
            notes.append(f"mirror_of {original.mirror_of!r} dropped: that task comes later in the day")
        task["meta"] = meta
        if new_id in companions:
            raise BaselineError(f"--id {new_id}: the file also holds the task {new_id!r}; choose another id")
        data = _scenario_data(scenario, task, others, source, new_id)
    else:
        companions = {}
        task["meta"] = meta
        data = {"id": slug(f"{new_id}-baseline"), "title": f"Baseline of {source}", "description": "",
                "device": "any", "tasks": [task]}
        notes.append("the task the episode ran was not found: the file holds what the episode recorded, "
                     "for real devices (judged by the LLM)")
    data["description"] = f"Written by `guilens scenarios from-episode` from {reader.dir}."
    try:
        model = scenario_from_data(data, file="<export>")
        if marked.unsure:
            _steps_from_sim(model, task, marked.unsure, notes)
            scenario_from_data(data, file="<export>")
    except ScenarioError as err:
        raise BaselineError(f"the task written from {reader.dir} does not validate: {err}") from None
    return Baseline(data, new_id, written.skipped, notes, companions, marked.added)


def _steps_from_sim(model: Scenario, task: dict[str, Any], ids: list[str], notes: list[str]) -> None:
    """Golden steps the record cannot tell, from the path played on a simulated phone (`replay_on_sim`)."""
    from guilens.export.marks import replay_on_sim

    steps = replay_on_sim(model, task["id"])
    marked = {m["label"]: m["step"] for m in task["meta"]["baseline"].get("marks", [])}
    for m in each_milestone(task.get("milestones", [])):  # mutated in place: `each_milestone` keeps the dicts
        if m["id"] not in ids:
            continue
        if m["id"] in steps:
            m["golden_step"] = steps[m["id"]]
            if marked.get(m["id"], steps[m["id"]]) != steps[m["id"]]:
                notes.append(f"mark {m['id']!r} at step {marked[m['id']]}: its check first holds at step "
                             f"{steps[m['id']]}, which is its golden step")
        else:
            m.pop("golden_step", None)
            notes.append(f"milestone {m['id']!r}: marked reached by a person, but its check never "
                         "holds along the path")


def verify_baseline(b: Baseline) -> list[TaskVerdict] | None:
    """`scenarios verify` on the file's content; None for a scenario for real devices (nothing to verify)."""
    from guilens.scenarios.loader import scenario_from_data
    from guilens.scenarios.verify import verify_scenario

    scenario = scenario_from_data(b.scenario, file="<export>")
    if scenario.device != "sim":
        return None
    b.verdicts = verify_scenario(scenario)
    return b.verdicts


def write_baseline(path: Path | str, out: Path | str, *, task_id: str | None = None, verify: bool = True) -> Baseline:
    """Export an episode to `out` (YAML) and, unless `verify` is false, verify what was written."""
    import yaml

    b = task_from_episode(path, task_id=task_id)
    out = Path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(yaml.safe_dump(b.scenario, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8")
    except OSError as err:
        raise BaselineError(f"{out}: cannot write: {err.strerror or err}") from None
    if verify:
        verify_baseline(b)
    return b
