"""The rule checks a milestone or a success rule can carry, as scenario files write them.

Each check is a mapping whose one *kind key* says what it looks at, so files read
like sentences (`{screen_text: "Saved"}`, `{app: notes}`, `{state: notes.notes,
where: {title: Groceries}, field: body, op: contains, value: milk}`); the other
keys refine it. The same shape is what `guilens schema scenario` publishes, so a
file that validates against the schema also loads.

Checks are decided by `guilens.scenarios.checks.evaluate`; this module only
says what a well-formed check is.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

CHECK_KINDS = ("screen_text", "element", "app", "state", "answer", "all", "any", "not")
StateOp = Literal[
    "exists", "missing", "equals", "not_equals", "contains", "not_contains", "contains_all", "approx",
    "gt", "gte", "lt", "lte", "count", "matches",
]
_NUMBER = re.compile(r"\s*-?\d+(\.\d+)?\s*")
STATE_OPS: tuple[str, ...] = get_args(StateOp)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ScreenTextCheck(_Strict):
    """Some visible text (or content description) on the current screen contains `screen_text`."""

    screen_text: str = Field(min_length=1)
    exact: bool = False
    """Match a whole text node (case- and space-insensitive) instead of a substring."""


class ElementCheck(_Strict):
    """An element matching `element` is on screen, in the given state.

    `element` is a selector as `guilens.device.uitree.find_nodes` reads it: a
    text, content-desc or resource-id, or `id:…`, `text:…`, `desc:…` to force one.
    """

    element: str = Field(min_length=1)
    text: str | None = None
    """The element's own text (or its children's) contains this."""
    checked: bool | None = None
    selected: bool | None = None
    focused: bool | None = None
    enabled: bool | None = None


class AppCheck(_Strict):
    """The foreground app is `app` (a sim app id, a launcher label, or an Android package)."""

    app: str = Field(min_length=1)


class StateCheck(_Strict):
    """A query on the device's app state (the sim's JSON state; undecidable elsewhere).

    `state` is a dotted path from the state root (`notes.notes`, `expense.entries`,
    `settings.wifi`); numbers index lists. When it leads to a list, `where`
    keeps the items whose fields equal the given values (strings compare
    case- and space-insensitively), `field` picks a dotted path in each item,
    and `op` must hold for `quantifier` of them (`any` by default). `count`
    compares the number of kept items with `value`.
    """

    state: str = Field(min_length=1)
    where: dict[str, Any] = Field(default_factory=dict)
    field: str | None = None
    op: StateOp = "exists"
    value: Any = None
    tolerance: float = Field(default=0.0, ge=0)
    """For `approx` (and `equals` on numbers): the largest allowed difference."""
    quantifier: Literal["any", "all", "none"] = "any"
    ordered: bool = False
    """For `contains_all` on text: the parts must appear in this order."""

    @model_validator(mode="after")
    def _value_fits_op(self) -> StateCheck:
        needs_value = self.op not in ("exists", "missing")
        if needs_value and self.value is None:
            raise ValueError(f"op '{self.op}' needs a value")
        if self.op in ("gt", "gte", "lt", "lte", "approx", "count") and not _is_number(self.value):
            raise ValueError(f"op '{self.op}' needs a number value, not {self.value!r}")
        if self.op == "contains_all" and not (
            isinstance(self.value, list) and self.value and all(isinstance(v, str | int | float) for v in self.value)
        ):
            raise ValueError("op 'contains_all' needs a non-empty list of texts or numbers as value")
        if self.op == "matches":
            try:
                re.compile(str(self.value))
            except re.error as err:
                raise ValueError(f"op 'matches' needs a regular expression: {err}") from None
        return self


def _is_number(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int | float):
        return True
    # A `{template}` is filled (with a number) before the check runs.
    return isinstance(v, str) and (bool(re.fullmatch(r"\{[a-z_][a-z0-9_]*\}", v)) or _NUMBER.fullmatch(v) is not None)


class AnswerExpect(_Strict):
    """What the agent's final answer must say. Every given condition must hold.

    An empty expectation still means the task ends with an `answer` action; what
    it must say is then left to the LLM judge.
    """

    contains_all: list[str] = Field(default_factory=list)
    contains_any: list[str] = Field(default_factory=list)
    not_contains: list[str] = Field(default_factory=list)
    numbers: list[float | str] = Field(default_factory=list)
    """Each number must appear in the answer, within `tolerance` (strings are `{templates}`)."""
    tolerance: float = Field(default=0.01, ge=0)
    ordered: bool = False
    """`contains_all` parts must appear in the given order."""
    judge: str = ""
    """What a correct answer says, for the LLM judge."""

    @field_validator("numbers")
    @classmethod
    def _numbers_or_templates(cls, v: list[float | str]) -> list[float | str]:
        for x in v:
            if not _is_number(x):
                raise ValueError(f"{x!r} is not a number or a {{template}}")
        return v

    @property
    def decidable(self) -> bool:
        return bool(self.contains_all or self.contains_any or self.not_contains or self.numbers)


class AnswerCheck(_Strict):
    """The agent's answer (the `answer` action's text) meets `answer`."""

    answer: AnswerExpect


class AllCheck(_Strict):
    all: list[Check] = Field(min_length=1)


class AnyCheck(_Strict):
    """At least one holds: also how a milestone allows alternative paths (PSPA's 'choose one path')."""

    any: list[Check] = Field(min_length=1)


class NotCheck(_Strict):
    not_: Check = Field(alias="not")


def _check_kind(v: Any) -> str | None:
    if isinstance(v, BaseModel):
        for kind, cls in _KIND_MODELS.items():
            if isinstance(v, cls):
                return kind
        return None
    if isinstance(v, dict):
        kinds = [k for k in CHECK_KINDS if k in v]
        if len(kinds) == 1:
            return kinds[0]
    return None


Check = Annotated[
    Annotated[ScreenTextCheck, Tag("screen_text")]
    | Annotated[ElementCheck, Tag("element")]
    | Annotated[AppCheck, Tag("app")]
    | Annotated[StateCheck, Tag("state")]
    | Annotated[AnswerCheck, Tag("answer")]
    | Annotated[AllCheck, Tag("all")]
    | Annotated[AnyCheck, Tag("any")]
    | Annotated[NotCheck, Tag("not")],
    Discriminator(
        _check_kind,
        custom_error_type="check_kind",
        custom_error_message="a check is a mapping with exactly one of the keys " + ", ".join(CHECK_KINDS),
    ),
]

_KIND_MODELS: dict[str, type[BaseModel]] = {
    "screen_text": ScreenTextCheck,
    "element": ElementCheck,
    "app": AppCheck,
    "state": StateCheck,
    "answer": AnswerCheck,
    "all": AllCheck,
    "any": AnyCheck,
    "not": NotCheck,
}
CHECK_MODELS = _KIND_MODELS

for _m in (AllCheck, AnyCheck, NotCheck):
    _m.model_rebuild()


def check_kind(check: BaseModel) -> str:
    """The kind key of a check model (`state`, `all`, ...)."""
    kind = _check_kind(check)
    if kind is None:
        raise TypeError(f"not a check: {check!r}")
    return kind


def iter_checks(check: BaseModel) -> list[BaseModel]:
    """This check and every check nested in it (combinators), depth first."""
    out = [check]
    if isinstance(check, AllCheck):
        for c in check.all:
            out += iter_checks(c)
    elif isinstance(check, AnyCheck):
        for c in check.any:
            out += iter_checks(c)
    elif isinstance(check, NotCheck):
        out += iter_checks(check.not_)
    return out


def check_to_data(check: BaseModel) -> dict[str, Any]:
    """The check as a file writes it (kind key first, defaults left out)."""
    return check.model_dump(by_alias=True, exclude_defaults=True, mode="json")
