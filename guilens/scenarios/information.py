"""A memory task's information units, and whether an end state or an answer holds each of them.

MemGUI-Bench's IRR counts the units a task needs (a price, a date, an address)
and those the agent got right. A task may list them (`information:` in the
file); most need not, because their final milestone already names the values
a note, a message or an answer must hold (`op: contains_all` over a state
field, or the answer's expectation). Those values are turned into items here:
a text value followed by a number (`"{first_item}", "159.95"`) is a model and
its price, one unit; any other value is a unit of its own. An implicit task
(facts used for one decision) that names no values is scored on the decision
alone: its final check is its one item. `information_items` gives the order of
the sources; a task where they would be wrong declares its items.

Kept apart from the check machinery (`guilens.scenarios.checks`, which it
uses) and from the judge (`guilens.judge.irr_rules`, which turns the findings
into an IRR), so that scenario tools can list a task's items without the judge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from guilens.scenarios.checks import CheckContext, evaluate
from guilens.scenarios.model import Milestone, Task
from guilens.scenarios.spec_checks import AllCheck, AnswerCheck, AnswerExpect, StateCheck
from guilens.scenarios.spec_values import InformationItem, InformationPlace
from guilens.scenarios.values import (
    MISSING,
    as_text,
    filter_items,
    norm,
    num_text,
    numbers_in,
    resolve_path,
    resolve_state,
)

_NUMBER = re.compile(r"\s*[$€£]?\s*-?\d[\d,]*(\.\d+)?\s*")
"""A value that is a number as a file writes it (`159.95`, `8,849`, `$398`), not a text with one in it."""
_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class ItemFinding:
    """Whether one item was found: True, False, or None when the context cannot tell (no state)."""

    id: str
    text: str
    found: bool | None
    where: str
    """Where it was looked for and what was seen there (one line)."""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "found": self.found, "where": self.where}


def information_items(task: Task) -> tuple[list[InformationItem], str]:
    """The task's items and where they come from (declared, or what they were derived from), in order:

    1. the items the task declares;
    2. the values of the last milestone that lists some (`contains_all`, an answer check);
    3. the answer's expectation;
    4. an implicit task: its decision, the success check or the final milestone's check, one item;
    5. an explicit one: each value its final milestone's check requires of a state field
       (an event's start and end), one item each.
    """
    if task.information:
        return list(task.information), "declared in the task"
    checked = [m for m in task.all_milestones() if m.check is not None]
    for m in reversed(checked):
        items = _listed(m.check)
        if items:
            return items, f"derived from milestone {m.id!r}"
    if task.answer is not None and task.answer.decidable:
        items = _from_answer(task.answer)
        if items:
            return items, "derived from the answer's expectation"
    final = checked[-1] if checked else None
    if task.output == "implicit":
        decision = task.success.check or (final.check if final is not None else None)
        if decision is not None:
            text = final.text if final is not None and decision is final.check else "the task's decision"
            return ([InformationItem(id="decision", text=text, check=decision)],
                    "the decision of an implicit task (its final check)")
    if final is not None:
        items = _required_fields(final)
        if items:
            return items, f"derived from the fields milestone {final.id!r} checks"
    return [], "none"


def _conjuncts(check: Any) -> list[Any]:
    """A check and those it requires through `all` (never into `any` or `not`: alternatives and
    negations name no value the output must hold)."""
    if isinstance(check, AllCheck):
        return [c for sub in check.all for c in _conjuncts(sub)]
    return [check]


def _listed(check: Any) -> list[InformationItem]:
    """The values a check lists: a state field's `contains_all`, an answer's expectation."""
    items: list[InformationItem] = []
    for c in _conjuncts(check):
        if (isinstance(c, StateCheck) and c.op == "contains_all" and c.quantifier == "any"
                and isinstance(c.value, list)):
            place = InformationPlace(state=c.state, where=dict(c.where), field=c.field)
            items += _units([num_text(v) for v in c.value], place)
        elif isinstance(c, AnswerCheck):
            items += _from_answer(c.answer)
    return _unique(items)


_VALUE_OPS = ("equals", "contains", "approx", "matches")
"""State checks that require a value of a field (not `exists`, a count or a comparison)."""


def _required_fields(m: Milestone) -> list[InformationItem]:
    items = []
    for c in _conjuncts(m.check):
        if isinstance(c, StateCheck) and c.op in _VALUE_OPS and c.field and c.quantifier == "any":
            text = f"{c.field} {num_text(c.value)}"
            items.append(InformationItem(id=_slug(text), text=text, check=c))
    return _unique(items)


def _from_answer(expect: AnswerExpect) -> list[InformationItem]:
    listed = _units(list(expect.contains_all), "answer")
    return _unique(listed + _units([num_text(n) for n in expect.numbers], "answer"))


def _units(values: list[str], place: InformationPlace | str) -> list[InformationItem]:
    """Values into units: a text followed by a number pairs with it (a model and its price)."""
    out: list[InformationItem] = []
    i = 0
    while i < len(values):
        v = values[i]
        pair = i + 1 < len(values) and not is_number(v) and is_number(values[i + 1])
        group = values[i:i + 2] if pair else [v]
        i += len(group)
        text = ": ".join(group)
        out.append(InformationItem.model_validate({"id": _slug(text), "text": text, "values": group, "in": place}))
    return out


def _slug(text: str) -> str:
    return (_SLUG.sub("-", text.casefold()).strip("-") or "item")[:64]


def _unique(items: list[InformationItem]) -> list[InformationItem]:
    """Ids made unique (`total`, `total-2`): two units may read alike."""
    seen: dict[str, int] = {}
    out = []
    for it in items:
        n = seen[it.id] = seen.get(it.id, 0) + 1
        out.append(it if n == 1 else it.model_copy(update={"id": f"{it.id}-{n}"[:64]}))
    return out


def is_number(v: str) -> bool:
    return _NUMBER.fullmatch(v) is not None


# --- finding them ------------------------------------------------------------------------------------


def find_items(items: list[InformationItem], ctx: CheckContext) -> list[ItemFinding]:
    """Look for every item in one moment of an episode (the end: final state, screen and answer)."""
    return [_find(it, ctx) for it in items]


def _find(item: InformationItem, ctx: CheckContext) -> ItemFinding:
    if item.check is not None:
        r = evaluate(item.check, ctx)
        return ItemFinding(item.id, item.text, r.ok, r.reason)
    if item.found_in == "answer":
        if ctx.answer is None:
            return ItemFinding(item.id, item.text, False, "no answer was given")
        ok = _on_one_line(item.values, [ctx.answer])
        return ItemFinding(item.id, item.text, ok, f"answer {ctx.answer!r}")
    place = item.found_in
    assert isinstance(place, InformationPlace)
    label = place.state + (f"[{', '.join(f'{k}={v!r}' for k, v in place.where.items())}]" if place.where else "")
    label += f".{place.field}" if place.field else ""
    if ctx.state is None:
        return ItemFinding(item.id, item.text, None, f"{label}: no app state was recorded")
    texts = _texts_at(ctx.state, place)
    if not texts:
        return ItemFinding(item.id, item.text, False, f"{label} does not exist")
    ok = _on_one_line(item.values, texts)
    shown = "; ".join(t.replace("\n", " / ") for t in texts)[:160]
    return ItemFinding(item.id, item.text, ok, f"{label} is {shown!r}")


def _texts_at(state: dict[str, Any], place: InformationPlace) -> list[str]:
    found = resolve_state(state, place.state)
    if found is MISSING:
        return []
    items = found if isinstance(found, list) else [found]
    if place.where:
        items = filter_items(items, place.where)
    values = [resolve_path(it, place.field) if place.field else it for it in items]
    return [as_text(v) for v in values if v is not MISSING and v is not None and v != ""]


def _on_one_line(values: list[str], texts: list[str]) -> bool:
    """Every value on one line of one text; a number matches however it is written (`26,311.25`)."""
    lines = [line for t in texts for line in t.splitlines() if line.strip()]
    return any(all(_holds(v, line) for v in values) for line in lines)


def _holds(value: str, line: str) -> bool:
    if norm(value) in norm(line):
        return True
    if is_number(value):
        want = numbers_in(value)
        return bool(want) and any(abs(n - want[0]) <= 0.005 for n in numbers_in(line))
    return False
