"""The `params:` block of a task template: typed parameters drawn from the sim's data by seed.

AndroidWorld instantiates each task template with new random parameters per seed, so an agent
cannot memorise answers and one pack gives hundreds of distinct tasks. A template declares its
parameters in order; each may be constrained against earlier ones, and derived values are
computed from those drawn:

    params:
      first: {type: product, category: Shoes}
      second: {type: product, distinct_from: [first], same: {category: first}, below: {price: first}}
      qty: {type: int, min: 2, max: 9}
      total: {derive: "qty * first_price + second_price", format: money}

A drawn parameter gives `{first}` (its name: a product's or contact's name, a fact's title, a
place's name, the value of an int, money, choice, date or time) and `{first_<field>}` for each
field of its kind (`FIELDS`), usable anywhere in the task: instruction, checks, keys, answer,
reference, user slots, information items and setup.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ParamType = Literal["product", "contact", "fact", "place", "route", "int", "money", "choice", "date", "time"]

POOLS = ("product", "contact", "fact", "place", "route")
"""The kinds drawn from the sim's data (`guilens.scenarios.params_data`); the rest are drawn from ranges."""

FIELDS: dict[str, tuple[str, ...]] = {
    "product": ("id", "brand", "category", "price", "rating"),
    "contact": ("phone", "email", "company", "first"),
    "fact": ("fact", "query", "url", "snippet"),
    "place": ("address",),
    "route": ("origin", "destination", "drive", "transit", "walk", "distance_km", "via"),
    "int": (),
    "money": (),
    "choice": (),
    "date": ("day", "weekday"),
    "time": (),
}
"""`{name_<field>}` names each kind gives besides `{name}`."""

Format = Literal["money", "int", "number", "comma", "comma_money"]


class ParamSpec(BaseModel):
    """One parameter: drawn (`type` and filters) or derived (`derive`, an arithmetic expression)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: ParamType | None = None
    derive: str | None = None
    """An expression over earlier names (`qty * first_price - 5`): + - * / ( ) and numbers."""
    lowest: dict[str, list[str]] = Field(default_factory=dict)
    """A pick: `{price: [first, second]}` is whichever of those parameters has the lowest price
    (`{cheaper}`, `{cheaper_price}`, ... as that one's); `highest` the highest."""
    highest: dict[str, list[str]] = Field(default_factory=dict)
    format: Format = "number"
    """How a derived value is written: money 12.50, int 13, number 12.5, comma 1,234, comma_money 1,234.50."""
    # filters on the sim's data
    category: str | None = None
    brand: str | None = None
    min_price: float | None = None
    max_price: float | None = None
    has: list[str] = Field(default_factory=list)
    """Fields the drawn item must have non-empty (`has: [company]`)."""
    # ranges
    min: float | date | str | None = None
    """int, money: a number; date: YYYY-MM-DD; time: "HH:MM" (quoted: YAML reads a bare 08:00 as a number)."""
    max: float | date | str | None = None
    step: float | None = Field(default=None, gt=0)
    of: list[str] = Field(default_factory=list)
    """`choice`: the values to choose from."""
    # constraints against earlier parameters
    distinct_from: list[str] = Field(default_factory=list)
    same: dict[str, str] = Field(default_factory=dict)
    """`{field: param}`: this field equals that earlier parameter's (`same: {category: first}`)."""
    below: dict[str, str] = Field(default_factory=dict)
    """`{field: param}`: this field is less than the earlier parameter's (`below: {price: first}`: cheaper)."""
    above: dict[str, str] = Field(default_factory=dict)
    differ: dict[str, str] = Field(default_factory=dict)
    """`{field: param}`: this field differs from the earlier parameter's (`differ: {price: first}`: no tie)."""

    @model_validator(mode="after")
    def _one_kind(self) -> ParamSpec:
        kinds = [k for k in ("type", "derive", "lowest", "highest") if getattr(self, k)]
        if len(kinds) != 1:
            raise ValueError("give one of type (a drawn parameter), derive (a value computed from others), "
                             "lowest or highest (a pick among earlier parameters)")
        for key, pick in (*self.lowest.items(), *self.highest.items()):
            if len(pick) < 2:
                raise ValueError(f"a pick by {key} needs at least two parameters to choose from")
        if self.type == "choice" and not self.of:
            raise ValueError("a choice needs `of: [values]`")
        if self.type in ("int", "money") and (self.min is None or self.max is None):
            raise ValueError(f"an {self.type} needs min and max")
        if self.type in ("int", "money") and not all(isinstance(x, int | float) for x in (self.min, self.max)):
            raise ValueError(f"the min and max of an {self.type} are numbers")
        if self.type in ("int", "money") and float(str(self.min)) > float(str(self.max)):
            raise ValueError(f"min {self.min} is above max {self.max}")
        return self

    def refers(self) -> list[str]:
        """The earlier parameters this one's constraints name."""
        picked = [n for names in (*self.lowest.values(), *self.highest.values()) for n in names]
        return [*self.distinct_from, *self.same.values(), *self.below.values(), *self.above.values(),
                *self.differ.values(), *picked]

    @property
    def pick(self) -> tuple[str, str, list[str]] | None:
        """(lowest|highest, field, parameters) of a pick."""
        for how in ("lowest", "highest"):
            for fld, names in getattr(self, how).items():
                return how, fld, names
        return None

    def shape(self) -> tuple[Any, ...]:
        """What a mirror must match: the kind and the constraint structure, not the filter values."""
        order = len(self.below) + len(self.above)
        return (self.type, bool(self.derive), self.pick is not None, len(self.distinct_from), len(self.same),
                order, len(self.differ))


def names_of(params: dict[str, ParamSpec]) -> set[str]:
    """Every `{template}` name a params block gives."""
    out: set[str] = set()
    for name in params:
        out |= names_for(params, name)
    return out


def names_for(params: dict[str, ParamSpec], name: str) -> set[str]:
    """The `{template}` names one parameter of a block gives: its own, and one per field of its kind."""
    kind = kind_of(params, name)
    return {name} | ({f"{name}_{f}" for f in FIELDS[kind]} if kind is not None else set())


def kind_of(params: dict[str, ParamSpec], name: str) -> str | None:
    """A parameter's kind: its type, or for a pick the kind of what it picks from (None: derived)."""
    spec = params.get(name)
    if spec is None:
        return None
    if spec.type is not None:
        return spec.type
    pick = spec.pick
    if pick is not None:
        first = params.get(pick[2][0])
        return first.type if first is not None else None
    return None


def block_problems(params: dict[str, ParamSpec]) -> list[tuple[tuple[str | int, ...], str]]:
    """What a schema cannot see in a params block: a name used before it is declared, a field a
    kind does not have, a clash between one parameter's field name and another parameter."""
    out: list[tuple[tuple[str | int, ...], str]] = []
    seen: dict[str, ParamSpec] = {}
    given: set[str] = set()
    for name, spec in params.items():
        picked = {n for names in (*spec.lowest.values(), *spec.highest.values()) for n in names}
        for ref in spec.refers():
            if ref not in seen:
                out.append(((name,), f"{ref!r} is not a parameter declared before {name!r}"
                                     f" (earlier: {', '.join(seen) or 'none'})"))
            elif seen[ref].type is None and ref not in picked:
                # The draw compares against what it has drawn so far; a derived value or a pick is
                # settled only after every draw, so a constraint on one could never be tested.
                what = "a derived value" if seen[ref].derive is not None else "a pick"
                out.append(((name,), f"{name!r} is constrained against {ref!r}, {what}: "
                                     "constraints compare drawn parameters"))
            elif spec.type is not None and seen[ref].type != spec.type:
                out.append(((name,), f"{name!r} ({spec.type}) is constrained against {ref!r} ({seen[ref].type}): "
                                     "constraints compare parameters of one kind"))
        pick = spec.pick
        if pick is not None:
            kinds = {kind_of(params, n) for n in pick[2] if n in seen}
            if len(kinds) > 1 or None in kinds:
                out.append(((name,), f"a pick chooses among drawn parameters of one kind; got {', '.join(pick[2])}"))
            elif kinds and pick[1] not in (*FIELDS[str(next(iter(kinds)))], "name"):
                out.append(((name,), f"a {next(iter(kinds))} has no field {pick[1]!r} to pick by"))
        for fld in [*spec.same, *spec.below, *spec.above, *spec.differ]:
            if spec.type is not None and fld not in (*FIELDS[spec.type], "name") :
                out.append(((name,), f"a {spec.type} has no field {fld!r} (fields: name, {', '.join(FIELDS[spec.type])})"))
        if spec.has and spec.type not in POOLS:
            out.append(((name, "has"), f"`has` filters items of the sim's data; a {spec.type} has none"))
        if name in given:
            out.append(((name,), f"{name!r} is also a field name of an earlier parameter; rename it"))
        given |= names_for(params, name)
        seen[name] = spec
    return out
