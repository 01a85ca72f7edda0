"""Milestones and the success rule, as scenario files write them.

A milestone is a verifiable sub-goal (AndroidLens): a rule `check` decides it on the sim, its
`text` is what the LLM judge reads, its `key` element what the judge looks for on screen; PSPA's
fixed or flexible `kind`, `depends_on`, unordered groups and alternatives (`any_of`: a sub-task
reached by any one of several paths) shape the task graph. Apart from
`guilens.scenarios.model` (which re-exports them) as `spec_checks`, `spec_reference` and
`spec_values` are: what is well formed, not how it is judged (`guilens.scenarios.milestones`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

from guilens.scenarios.spec_checks import Check
from guilens.scenarios.spec_reference import RefStep, normalize_steps

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
"""Letters, digits, `_`, `-`, `.`: safe in a file name on every system, never a hidden file."""
ID_MAX = 64
"""Ids name the run's folders (`<run>/<task-id>/attempt-1/`) and memory files; a longer one makes
paths nobody reads and, past 255 bytes, file names the system refuses."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class KeyElement(_Strict):
    """AndroidLens' key element of a milestone: what the judge should look for on screen."""

    text: str = ""
    bbox: tuple[float, float, float, float] | None = None
    """Normalised [x1, y1, x2, y2] in 0..1."""
    state: list[str] = Field(default_factory=list)
    """e.g. [selected], [checked]."""

    @field_validator("bbox")
    @classmethod
    def _unit_box(cls, v: tuple[float, float, float, float] | None) -> tuple[float, float, float, float] | None:
        if v is not None:
            x1, y1, x2, y2 = v
            if not all(0 <= c <= 1 for c in v) or x2 <= x1 or y2 <= y1:
                raise ValueError("bbox is [x1, y1, x2, y2] with 0 <= x1 < x2 <= 1 and 0 <= y1 < y2 <= 1")
        return v


class Milestone(_Strict):
    """A verifiable sub-goal. `check` decides it by rules; `text` is what the LLM judge reads.

    A milestone without a check is for the judge alone (real apps). `kind` is
    PSPA's fixed (user-invariant) vs flexible (depends on the user's choices or
    allows several paths); `depends_on` names milestones that must be reached
    first, on top of the list order.
    """

    id: str = Field(pattern=ID_PATTERN, max_length=ID_MAX)
    text: str = Field(min_length=1)
    check: Check | None = None
    kind: Literal["fixed", "flexible"] | None = None
    """Left out: flexible when the check depends on a user slot (a preference-dependent step) or the
    milestone lies on a path of an alternatives node (one of several valid approaches), else fixed."""
    key: KeyElement | None = None
    depends_on: list[str] = Field(default_factory=list)
    golden_step: int | None = Field(default=None, ge=1)
    """Steps the reference takes to reach this milestone (AndroidLens' MSR denominator)."""


class MilestoneGroup(_Strict):
    """Milestones that may be reached in any order, after everything before the group."""

    unordered: list[Milestone] = Field(min_length=1)


class MilestonePath(_Strict):
    """One way to complete an alternatives sub-task: its milestones, reached in order."""

    id: str = Field(pattern=ID_PATTERN, max_length=ID_MAX)
    text: str = ""
    """How this path goes, for people (`by search`, `by a note`)."""
    milestones: list[Milestone] = Field(min_length=1)
    reference: list[RefStep] = Field(default_factory=list)
    """A whole reference solution of the task that takes this path (`scenarios verify` plays it);
    left out, the task's own reference must be the one that takes it. Nested lists are flattened,
    so YAML anchors can share the steps before and after the choice."""

    @field_validator("reference", mode="before")
    @classmethod
    def _flatten(cls, v: Any) -> Any:
        return normalize_steps(flatten_steps(v))


class MilestoneAlternatives(_Strict):
    """PSPA-Bench's group node with path options: a sub-task complete when every milestone of any
    one of its paths is reached ("the completion of any path marks the completion of the subtask").

    It takes its place in the milestone list like a milestone (later items wait for it) and other
    milestones may name it in `depends_on`. AndroidLens' ATP counts it as one milestone; PSPA's APR
    counts the milestones of the path the agent got furthest on (`guilens.judge.metrics_progress`).
    """

    id: str = Field(pattern=ID_PATTERN, max_length=ID_MAX)
    text: str = Field(min_length=1)
    kind: Literal["fixed", "flexible"] = "flexible"
    """PSPA: a step with several valid approaches is flexible."""
    depends_on: list[str] = Field(default_factory=list)
    any_of: list[MilestonePath] = Field(min_length=2)

    @model_validator(mode="after")
    def _distinct(self) -> MilestoneAlternatives:
        paths = [p.id for p in self.any_of]
        dup = sorted({p for p in paths if paths.count(p) > 1})
        if dup:
            raise ValueError(f"alternative {self.id!r}: path ids must be unique; repeated: {', '.join(dup)}")
        mids = [m.id for p in self.any_of for m in p.milestones]
        dup = sorted({m for m in mids if mids.count(m) > 1} | ({self.id} & set(mids)))
        if dup:
            raise ValueError(f"alternative {self.id!r}: milestone ids must be unique across its paths "
                             f"and differ from its own; repeated: {', '.join(dup)}")
        for p in self.any_of:
            for m in p.milestones:
                for d in m.depends_on:
                    if d in mids and d not in {x.id for x in p.milestones}:
                        raise ValueError(f"alternative {self.id!r}: milestone {m.id!r} of path {p.id!r} depends "
                                         f"on {d!r} of another path, which the agent may never take")
        return self

    def path(self, pid: str) -> MilestonePath:
        for p in self.any_of:
            if p.id == pid:
                return p
        raise KeyError(pid)


def flatten_steps(v: Any) -> Any:
    """Reference steps with nested lists (YAML aliases of shared stretches) spliced in place."""
    if not isinstance(v, list):
        return v
    out: list[Any] = []
    for s in v:
        out += flatten_steps(s) if isinstance(s, list) else [s]
    return out


def _milestone_item_kind(v: Any) -> str:
    if isinstance(v, MilestoneGroup) or (isinstance(v, dict) and "unordered" in v):
        return "group"
    if isinstance(v, MilestoneAlternatives) or (isinstance(v, dict) and "any_of" in v):
        return "alternatives"
    return "milestone"


MilestoneItem = Annotated[
    Annotated[Milestone, Tag("milestone")] | Annotated[MilestoneGroup, Tag("group")]
    | Annotated[MilestoneAlternatives, Tag("alternatives")],
    Discriminator(_milestone_item_kind),
]


class SuccessRule(_Strict):
    """When the task counts as done. Default: every milestone reached.

    `check` must also hold on the final screen/state; `judge` describes success
    for the LLM judge (default: the L0 instruction).
    """

    milestones: Literal["all", "none"] | list[str] = "all"
    check: Check | None = None
    judge: str = ""
