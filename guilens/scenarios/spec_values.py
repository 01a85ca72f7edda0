"""What a task reads out of the end state or the answer, as scenario files write it.

Two kinds: a value a task of a sequence hands on to later ones (`ValueSource`,
ScenDroid's data flow), and an information unit a memory task's output must
hold (`InformationItem`, MemGUI-Bench's IRR). Both name a place in the app state
the way a `StateCheck` does (`state`, `where`, `field`) or the agent's answer.
They are read by `guilens.scenarios.checks.extract_value` and
`guilens.scenarios.information`; this module only says what is well formed.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from guilens.scenarios.spec_checks import Check

_ITEM_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
"""The same ids as milestones and tasks (`guilens.scenarios.model.ID_PATTERN`)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ValueSource(_Strict):
    """A value a task of a sequence hands to later ones (ScenDroid's data flow).

    Read from the final state after the task (`state`/`where`/`field`, the last
    match by default) or from the agent's answer (`from_answer`: the first number
    in it). `expected` is the value when the task was done right: used to fill
    later L0 instructions and checks if the value cannot be read.
    """

    state: str | None = None
    where: dict[str, Any] = Field(default_factory=dict)
    field: str | None = None
    pick: Literal["first", "last"] = "last"
    from_answer: bool = False
    expected: str = Field(min_length=1)

    @model_validator(mode="after")
    def _one_source(self) -> ValueSource:
        if bool(self.state) == self.from_answer:
            raise ValueError("a value comes from exactly one of state (with where/field) or from_answer")
        return self


class InformationPlace(_Strict):
    """A state field an information item is read from (the sim's app state): `state` with `where`
    and `field` as a `StateCheck` writes them, e.g. a note's body or a message thread's texts."""

    state: str = Field(min_length=1)
    where: dict[str, Any] = Field(default_factory=dict)
    field: str | None = None


class InformationItem(_Strict):
    """One information unit of a memory task (MemGUI-Bench's IRR): the smallest fact the agent must
    remember and use (a price, a date, an address), and how the rules find it at the end.

    Either `values` looked for `in` the agent's answer or a state field, all of them on one line
    (a model and its price count as one unit when they stand together, as a note lists them), or
    `check`: any rule check that holds when the unit is there (an implicit task's decision: the
    right product page left open).
    """

    id: str = Field(pattern=_ITEM_ID, max_length=64)
    text: str = Field(min_length=1)
    """The unit as the IRR analyzer would name it ("the ASICS Gel-Nimbus 25's price, $159.95")."""
    values: list[str] = Field(default_factory=list)
    found_in: Literal["answer"] | InformationPlace | None = Field(default=None, alias="in")
    check: Check | None = None

    @field_validator("values", mode="before")
    @classmethod
    def _texts(cls, v: Any) -> Any:
        """`159.95` in a file means the text 159.95, as it is looked for."""
        if isinstance(v, list):
            return [str(x) if isinstance(x, int | float) and not isinstance(x, bool) else x for x in v]
        return v

    @field_validator("found_in", mode="before")
    @classmethod
    def _place(cls, v: Any) -> Any:
        """One error for a wrong `in`, not one per shape it might have had."""
        if v is None or v == "answer" or isinstance(v, dict | InformationPlace):
            return v
        raise ValueError(f"'in' is answer or a state field ({{state: ..., where: ..., field: ...}}), not {v!r}")

    @model_validator(mode="after")
    def _one_way(self) -> InformationItem:
        if bool(self.values) == (self.check is not None):
            raise ValueError("an information item has either values (with in: answer or a state field) or a check")
        if self.values and self.found_in is None:
            raise ValueError("values need 'in': answer, or {state: ..., where: ..., field: ...}")
        if self.check is not None and self.found_in is not None:
            raise ValueError("'in' goes with values; a check says where it looks itself")
        return self
