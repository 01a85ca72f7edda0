"""Scenarios, tasks and sequences: what the agent must do and how progress is measured.

A scenario file holds independent tasks (`kind: tasks`, reset between tasks) or
a persistent day (`kind: sequence`, ScenDroid style: no reset, a clock time per
task, hard prerequisites, values flowing from earlier tasks, preferences stated
early that constrain later tasks). A task carries its instruction at three
ambiguity levels, what the simulated user knows, the device setup, milestones
(ordered, or unordered groups; fixed or flexible; each with a rule check and a
text for the LLM judge), a success rule, a reference solution and, for a memory
task, the information units its output must hold (IRR; `information:`, else
derived from its checks by `guilens.scenarios.information`). A milestone item may offer
alternative paths (`any_of`, PSPA-Bench's task graphs), a sequence's task may sit on a later
`day` of a week, and a task may be a template with typed `params` drawn by seed
(`guilens.scenarios.params`).

A small example:

    id: pack
    title: Notes
    tasks:
      - id: grocery
        apps: [shop, notes]
        instruction:
          L0: "Note the price of ASICS running shoes in a note titled Shoes."
          L1: "Note the price of running shoes of my usual brand in a note titled Shoes."
          L2: "I'm thinking of buying running shoes, keep the price somewhere for me."
        memory: cross-app
        difficulty: 1
        golden_steps: 6
        user: {slots: {brand: ASICS}}
        milestones:
          - id: found
            text: "The ASICS running shoes product page is open"
            check: {screen_text: "ASICS Gel"}
          - id: noted
            text: "A note titled Shoes holds the price 89.99"
            check: {state: notes.notes, where: {title: Shoes}, field: body, op: contains, value: "89.99"}
        reference: [...]

Models are immutable; the loader (`guilens.scenarios.loader`) validates files
and reports every problem by file, task and field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date, datetime, time, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from guilens.scenarios.params_spec import ParamSpec
from guilens.scenarios.spec_checks import (
    AllCheck,
    AnswerCheck,
    AnswerExpect,
    AnyCheck,
    AppCheck,
    Check,
    ElementCheck,
    NotCheck,
    ScreenTextCheck,
    StateCheck,
)
from guilens.scenarios.spec_instructions import Instructions, MemoryKind, budget_for
from guilens.scenarios.spec_milestones import (
    ID_MAX,
    ID_PATTERN,
    KeyElement,
    Milestone,
    MilestoneAlternatives,
    MilestoneGroup,
    MilestoneItem,
    MilestonePath,
    SuccessRule,
    flatten_steps,
)
from guilens.scenarios.spec_reference import LEVELS, Level, RefStep, count_steps, normalize_steps
from guilens.scenarios.spec_values import InformationItem, InformationPlace, ValueSource
from guilens.scenarios.templates import TEMPLATE, deep_merge, fill_any, fill_text, strings
from guilens.scenarios.user import Slot, UserKnowledge, merge_user

__all__ = [
    "ID_MAX",
    "ID_PATTERN",
    "LEVELS",
    "TEMPLATE",
    "AllCheck",
    "AnswerCheck",
    "AnswerExpect",
    "AnyCheck",
    "AppCheck",
    "Check",
    "ElementCheck",
    "InformationItem",
    "InformationPlace",
    "NotCheck",
    "ScreenTextCheck",
    "StateCheck",
    "Instructions",
    "KeyElement",
    "Level",
    "Milestone",
    "MilestoneAlternatives",
    "MilestoneGroup",
    "MilestonePath",
    "Preference",
    "RefStep",
    "Scenario",
    "Slot",
    "SuccessRule",
    "Task",
    "UserKnowledge",
    "ValueSource",
    "budget_for",
    "deep_merge",
    "fill_text",
    "register_schemas",
]

class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


TASK_ID_PATTERN = ID_PATTERN[:-1] + r"(~s-?\d+\.\d+)?$"
"""A task id, or a template's variant id (`two-prices-note~s7.3`, `guilens.scenarios.params`)."""


class Task(_Strict):
    id: str = Field(pattern=TASK_ID_PATTERN, max_length=ID_MAX)
    title: str = ""
    apps: list[str] = Field(min_length=1)
    instruction: Instructions
    memory: MemoryKind = "none"
    output: Literal["explicit", "implicit"] | None = None
    """Memory tasks: explicit (facts written out) or implicit (facts used for a decision)."""
    information: list[InformationItem] = Field(default_factory=list)
    """Memory tasks: the information units the answer or end state must hold (IRR by rules). Left
    out, they are derived from the final milestone's check (`guilens.scenarios.information`)."""
    forbid_copy: bool = False
    """The instruction forbids copy-paste: the facts must be recalled."""
    difficulty: int = Field(ge=1, le=3)
    golden_steps: int = Field(ge=1)
    max_steps: int | None = Field(default=None, ge=1)
    mirror_of: str | None = None
    categories: list[str] = Field(default_factory=list)
    user: UserKnowledge = Field(default_factory=UserKnowledge)
    setup: dict[str, Any] = Field(default_factory=dict)
    """Device setup (sim: app state, clock, anomalies), on top of the scenario's."""
    milestones: list[MilestoneItem] = Field(default_factory=list)
    success: SuccessRule = Field(default_factory=SuccessRule)
    answer: AnswerExpect | None = None
    """When set, the task ends with an `answer` action that must meet this."""
    reference: list[RefStep] = Field(default_factory=list)
    clock: str | None = Field(default=None, pattern=r"^(\d{4}-\d{2}-\d{2}[ T])?\d{1,2}:\d{2}$")
    """Sequences: when the task starts (`08:10`, or `2025-01-20 08:30` on another day)."""
    day: int | date | None = None
    """Sequences over several days: the task's day, a date or a day index from `start` (0 is `start`)."""
    location: str = ""
    narration: str = ""
    depends_on: list[str] = Field(default_factory=list)
    """Hard prerequisites: earlier tasks of the sequence that must have succeeded."""
    outputs: dict[str, ValueSource] = Field(default_factory=dict)
    constrained_by: list[str] = Field(default_factory=list)
    """Preferences (by id) stated earlier in the sequence that this task must respect."""
    reset: list[str] = Field(default_factory=list)
    """Shell commands that reset a real device before the task (adb)."""
    meta: dict[str, Any] = Field(default_factory=dict)
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    """A template's typed parameters, drawn from the sim's data by seed (`guilens.scenarios.params`):
    `guilens run PACK --variants N --seed S` runs N variants of it."""

    @field_validator("reference", mode="before")
    @classmethod
    def _bare_steps(cls, v: Any) -> Any:
        return normalize_steps(flatten_steps(v))

    @field_validator("information")
    @classmethod
    def _unique_items(cls, v: list[InformationItem]) -> list[InformationItem]:
        ids = [it.id for it in v]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"information item ids must be unique; repeated: {', '.join(dup)}")
        return v

    @model_validator(mode="after")
    def _milestone_kinds(self) -> Task:
        """Decide PSPA's fixed/flexible where the file leaves it out (see `Milestone.kind`)."""
        slots = set(self.user.slots)

        def decided(m: Milestone) -> Milestone:
            if m.kind is not None:
                return m
            used = set(TEMPLATE.findall(str(m.check.model_dump()))) if m.check is not None else set()
            return m.model_copy(update={"kind": "flexible" if used & slots else "fixed"})

        def decided_item(it: Milestone | MilestoneGroup | MilestoneAlternatives) -> Any:
            if isinstance(it, MilestoneGroup):
                return it.model_copy(update={"unordered": [decided(m) for m in it.unordered]})
            if isinstance(it, MilestoneAlternatives):  # a step on one of several valid paths is flexible (PSPA)
                return it.model_copy(update={"any_of": [p.model_copy(update={"milestones": [
                    m if m.kind is not None else m.model_copy(update={"kind": "flexible"}) for m in p.milestones]})
                    for p in it.any_of]})
            return decided(it)

        object.__setattr__(self, "milestones", [decided_item(it) for it in self.milestones])
        return self

    @model_validator(mode="after")
    def _one_day(self) -> Task:
        if self.day is not None and self.clock is not None and len(self.clock) > 5:
            raise ValueError("give the day once: either `day` or a date in `clock`, not both")
        if isinstance(self.day, int) and self.day < 0:
            raise ValueError("day is a date or a day index from the sequence's start (0 or more)")
        return self

    @property
    def budget(self) -> int:
        """The step budget: `max_steps`, else floor(1.4 x golden_steps + 1)."""
        return self.max_steps if self.max_steps is not None else budget_for(self.golden_steps)

    @property
    def levels(self) -> list[Level]:
        return self.instruction.levels

    def instruction_at(self, level: str = "L0", values: dict[str, str] | None = None) -> str:
        """The instruction at a level, with `{templates}` filled from `values` (flows, slots)."""
        return fill_text(self.instruction.at(level), values or {})

    def all_milestones(self) -> list[Milestone]:
        """Every milestone in file order, groups and alternatives' paths flattened (an alternatives
        node itself is no milestone: its paths' milestones decide it)."""
        out: list[Milestone] = []
        for item in self.milestones:
            if isinstance(item, MilestoneGroup):
                out += item.unordered
            elif isinstance(item, MilestoneAlternatives):
                out += [m for p in item.any_of for m in p.milestones]
            else:
                out.append(item)
        return out

    def alternatives(self) -> list[MilestoneAlternatives]:
        """The task's sub-tasks with alternative paths (PSPA's "choose one path" nodes)."""
        return [it for it in self.milestones if isinstance(it, MilestoneAlternatives)]

    def milestone(self, mid: str) -> Milestone:
        for m in self.all_milestones():
            if m.id == mid:
                return m
        raise KeyError(mid)

    @property
    def reference_steps(self) -> int:
        return count_steps(list(self.reference), "L0")

    @property
    def rule_checked(self) -> bool:
        """Every milestone has a rule check (the sim can decide the task without the LLM)."""
        return all(m.check is not None for m in self.all_milestones())

    def template_names(self) -> set[str]:
        """Every `{name}` used in the instructions, checks, answer and reference."""
        names: set[str] = set()
        for text in strings(self.model_dump(include={"instruction", "milestones", "success", "answer", "reference",
                                                   "information"})):
            if "{" in text:
                names.update(TEMPLATE.findall(text))
        return names

    def filled(self, values: dict[str, str]) -> Task:
        """A copy with `{templates}` in checks, answer and reference filled from `values`.

        Instructions keep their templates (`instruction_at` fills them), so each
        level can be shown as written.
        """
        if not values:
            return self
        data = self.model_dump(mode="json", by_alias=True, exclude_none=True)
        for key in ("milestones", "success", "answer", "reference", "information"):
            if key in data:
                data[key] = fill_any(data[key], values)
        return Task.model_validate(data)


class Preference(_Strict):
    """A preference the user states in one task that constrains later ones."""

    id: str = Field(pattern=ID_PATTERN, max_length=ID_MAX)
    text: str = Field(min_length=1)
    stated_in: str
    """The task whose instruction states it."""
    replaces: str | None = None
    """An earlier preference this one changes (ScenDroid's persona changing mid-week): tasks after
    `stated_in` follow this one, tasks before it the one it replaces."""


class Scenario(_Strict):
    id: str = Field(pattern=ID_PATTERN, max_length=ID_MAX)
    title: str = ""
    description: str = ""
    kind: Literal["tasks", "sequence"] = "tasks"
    device: Literal["sim", "any"] = "sim"
    """`sim`: rule checks on the simulated phone; `any`: real devices too (LLM-judged)."""
    start: date | None = None
    """Sequences: the day the first task's clock is on."""
    user: UserKnowledge = Field(default_factory=UserKnowledge)
    """Knowledge shared by every task (a sequence's persona); tasks add their own."""
    preferences: list[Preference] = Field(default_factory=list)
    setup: dict[str, Any] = Field(default_factory=dict)
    """Device setup shared by all tasks (a sequence applies it once, at the start)."""
    tasks: list[Task] = Field(min_length=1)
    source: str = ""
    """Where the tasks come from (an import's source file)."""

    @model_validator(mode="after")
    def _share_user(self) -> Scenario:
        """Give every task the scenario's user knowledge (under its own), so a task stands alone."""
        if self.user != UserKnowledge():
            tasks = [t.model_copy(update={"user": merge_user(self.user, t.user)}) for t in self.tasks]
            object.__setattr__(self, "tasks", tasks)
        return self

    @model_validator(mode="after")
    def _sequence_has_clock(self) -> Scenario:
        if self.kind == "sequence":
            missing = [t.id for t in self.tasks if t.clock is None]
            if missing:
                raise ValueError(f"every task of a sequence needs a clock time; missing on {', '.join(missing)}")
            if self.start is None:
                raise ValueError("a sequence needs a start date (start: 2025-01-19)")
        return self

    @model_validator(mode="after")
    def _replaced_preferences(self) -> Scenario:
        ids = [p.id for p in self.preferences]
        for i, p in enumerate(self.preferences):
            if p.replaces is not None and p.replaces not in ids[:i]:
                raise ValueError(f"preference {p.id!r} replaces {p.replaces!r}, which is not a preference "
                                 f"declared before it ({', '.join(ids[:i]) or 'none'})")
        return self

    def task(self, tid: str) -> Task:
        for t in self.tasks:
            if t.id == tid:
                return t
        raise KeyError(f"scenario {self.id!r} has no task {tid!r} (tasks: {', '.join(t.id for t in self.tasks)})")

    # A scenario iterates its tasks, not its fields as BaseModel's __iter__ does: an incompatible override on purpose.
    def __iter__(self) -> Iterator[Task]:  # type: ignore[override]
        return iter(self.tasks)

    @property
    def apps(self) -> list[str]:
        seen: dict[str, None] = {}
        for t in self.tasks:
            for a in t.apps:
                seen.setdefault(a, None)
        return list(seen)

    @property
    def levels(self) -> list[Level]:
        return [lv for lv in LEVELS if all(lv in t.levels for t in self.tasks)]

    def setup_for(self, task: Task) -> dict[str, Any]:
        """The device setup for a task run on its own: the scenario's, with the task's merged in."""
        return deep_merge(self.setup, task.setup)

    def when(self, task: Task) -> datetime | None:
        """The clock time a task of a sequence starts at."""
        if task.clock is None:
            return None
        if len(task.clock) > 5:
            return datetime.fromisoformat(task.clock.replace(" ", "T"))
        hh, mm = task.clock.split(":")
        return datetime.combine(self.day_of(task), time(int(hh), int(mm)))

    def day_of(self, task: Task) -> date:
        """The day a task of a sequence is on: its `day` (a date, or an index from `start`), else `start`."""
        start = self.start or date.today()
        if isinstance(task.day, date):
            return task.day
        if isinstance(task.day, int):
            return start + timedelta(days=task.day)
        if task.clock is not None and len(task.clock) > 5:
            return datetime.fromisoformat(task.clock.replace(" ", "T")).date()
        return start

    def expected_values(self, upto: Task | None = None) -> dict[str, str]:
        """Values earlier tasks produce when done right (`outputs[...].expected`), before `upto`."""
        out: dict[str, str] = {}
        for t in self.tasks:
            if upto is not None and t.id == upto.id:
                break
            out.update({k: v.expected for k, v in t.outputs.items()})
        return out


def register_schemas(schema_kind: Callable[[str], Callable[[Callable[[], dict[str, Any]]], Any]]) -> None:
    """Publish `guilens schema scenario` (the file format, as `Scenario.model_json_schema()`)."""

    @schema_kind("scenario")
    def _scenario() -> dict[str, Any]:
        schema = Scenario.model_json_schema()
        schema["$comment"] = "guilens scenario file (YAML or JSON); see guilens/scenarios/model.py"
        return schema

