"""Drawing one variant's values: each parameter in order, from its pool or range, under its
constraints; then the derived values.

`draw(params, rng)` is deterministic for a given `random.Random` state and the sim's data: pools
are read in the data's order and every choice goes through `rng`. When a draw cannot meet a
constraint (the second shoe must be cheaper than the first, and the first was the cheapest) the
whole draw starts again, up to `TRIES` times; a filter nothing matches, or constraints no draw
meets, is a `ParamError` whose one line names the parameter and what it asked for.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from guilens.scenarios.params_data import WHAT, Item, pool, text
from guilens.scenarios.params_expr import ExprError, evaluate, formatted
from guilens.scenarios.params_spec import FIELDS, POOLS, ParamSpec

TRIES = 200
"""Whole draws tried before constraints are declared unmeetable."""


class ParamError(ValueError):
    """A parameter that cannot be drawn; the message is one line naming it."""


def _filters_text(spec: ParamSpec) -> str:
    parts = []
    if spec.category:
        parts.append(f"in category {spec.category!r}")
    if spec.brand:
        parts.append(f"of brand {spec.brand!r}")
    if spec.min_price is not None:
        parts.append(f"from ${spec.min_price:g}")
    if spec.max_price is not None:
        parts.append(f"under ${spec.max_price:g}")
    if spec.has:
        parts.append("with " + " and ".join(spec.has))
    return " ".join(parts)


def candidates(name: str, spec: ParamSpec) -> list[Item]:
    """Everything a parameter may take before its constraints: its pool filtered, or its range."""
    kind = spec.type
    assert kind is not None
    if kind in POOLS:
        items = [it for it in pool(kind) if _passes(it, spec)]
        if not items:
            what = WHAT[kind]
            noun, _, where = what.partition(" in ")
            raise ParamError(f"parameter {name!r}: no {noun} {_filters_text(spec)} in {where}".replace("  ", " "))
        return items
    if kind == "choice":
        return [{"name": v} for v in spec.of]
    if kind in ("int", "money"):
        return _numbers(name, spec)
    if kind == "date":
        return _dates(name, spec)
    return _times(name, spec)


def _passes(it: Item, spec: ParamSpec) -> bool:
    fold = str.casefold
    if spec.category and fold(str(it.get("category", ""))) != fold(spec.category):
        return False
    if spec.brand and fold(str(it.get("brand", ""))) != fold(spec.brand):
        return False
    price = it.get("price")
    if spec.min_price is not None and (price is None or price < spec.min_price):
        return False
    if spec.max_price is not None and (price is None or price > spec.max_price):
        return False
    return all(it.get(f) not in (None, "") for f in spec.has)


def _numbers(name: str, spec: ParamSpec) -> list[Item]:
    try:
        lo, hi = float(str(spec.min)), float(str(spec.max))
    except (TypeError, ValueError):
        raise ParamError(f"parameter {name!r}: min and max of an {spec.type} are numbers") from None
    step = spec.step or (1.0 if spec.type == "int" else 0.01)
    count = int(round((hi - lo) / step)) + 1
    if count > 100_000:
        raise ParamError(f"parameter {name!r}: {count} values from {lo:g} to {hi:g}; use a larger step")
    out = []
    for i in range(count):
        v = lo + i * step
        shown = str(round(v)) if spec.type == "int" else f"{v:.2f}"
        out.append({"name": shown, "value": round(v, 2)})
    return out


def _dates(name: str, spec: ParamSpec) -> list[Item]:
    try:
        lo, hi = date.fromisoformat(str(spec.min)), date.fromisoformat(str(spec.max))
    except ValueError:
        raise ParamError(f"parameter {name!r}: a date needs min and max as YYYY-MM-DD "
                         f"(got {spec.min!r}, {spec.max!r})") from None
    days = (hi - lo).days
    if days < 0 or days > 3660:
        raise ParamError(f"parameter {name!r}: dates from {lo} to {hi} are not a range of up to ten years")
    step = int(spec.step or 1)
    out = []
    for i in range(0, days + 1, step):
        d = lo + timedelta(days=i)
        out.append({"name": d.isoformat(), "value": float(d.toordinal()),
                    "day": f"{d:%b} {d.day}", "weekday": f"{d:%A}"})
    return out


def _times(name: str, spec: ParamSpec) -> list[Item]:
    def minutes(s: Any) -> int:
        hh, _, mm = str(s).partition(":")
        return int(hh) * 60 + int(mm)

    try:
        lo, hi = minutes(spec.min if spec.min is not None else "00:00"), minutes(spec.max if spec.max is not None else "23:59")
    except ValueError:
        raise ParamError(f"parameter {name!r}: a time needs min and max as HH:MM (got {spec.min!r}, {spec.max!r})") from None
    if not 0 <= lo <= hi < 24 * 60:
        raise ParamError(f"parameter {name!r}: times from {spec.min} to {spec.max} are not a range within a day")
    step = int(spec.step or 15)
    return [{"name": f"{m // 60:02d}:{m % 60:02d}", "value": float(m)} for m in range(lo, hi + 1, step)]


def _field(it: Item, fld: str) -> Any:
    if fld == "name" and "value" in it:
        return it["value"]
    return it.get(fld)


def _meets(it: Item, spec: ParamSpec, drawn: dict[str, Item]) -> bool:
    if any(it["name"] == drawn[o]["name"] for o in spec.distinct_from):
        return False
    if any(_field(it, f) != _field(drawn[o], f) for f, o in spec.same.items()):
        return False
    if any(_field(it, f) == _field(drawn[o], f) for f, o in spec.differ.items()):
        return False
    try:
        if any(not _field(it, f) < _field(drawn[o], f) for f, o in spec.below.items()):
            return False
        if any(not _field(it, f) > _field(drawn[o], f) for f, o in spec.above.items()):
            return False
    except TypeError:  # an empty field (a route with no transit time) meets no order
        return False
    return True


def _constraints_text(name: str, spec: ParamSpec) -> str:
    parts = [f"different from {', '.join(spec.distinct_from)}"] if spec.distinct_from else []
    parts += [f"same {f} as {o}" for f, o in spec.same.items()]
    parts += [f"{f} below {o}'s" for f, o in spec.below.items()]
    parts += [f"{f} above {o}'s" for f, o in spec.above.items()]
    parts += [f"{f} other than {o}'s" for f, o in spec.differ.items()]
    return "; ".join(parts)


def draw(params: dict[str, ParamSpec], rng: random.Random) -> dict[str, str]:
    """One variant's values: `{name}` and `{name_<field>}` for each drawn parameter, then the derived."""
    pools = {n: candidates(n, s) for n, s in params.items() if s.type is not None}
    stuck = ""
    for _ in range(TRIES):
        drawn: dict[str, Item] = {}
        for name, spec in params.items():
            if spec.type is None:
                continue
            fits = [it for it in pools[name] if _meets(it, spec, drawn)]
            if not fits:
                stuck = name
                break
            drawn[name] = rng.choice(fits)
        else:
            return _values(params, drawn)
    spec = params[stuck]
    raise ParamError(f"parameter {stuck!r}: no draw in {TRIES} tries meets its constraints "
                     f"({_constraints_text(stuck, spec)}) among the {len(pools[stuck])} candidates")


def _values(params: dict[str, ParamSpec], drawn: dict[str, Item]) -> dict[str, str]:
    values: dict[str, str] = {}
    for name, spec in params.items():
        pick = spec.pick
        if pick is not None:
            how, fld, among = pick
            best = (min if how == "lowest" else max)(among, key=lambda n: _field(drawn[n], fld))
            drawn[name] = drawn[best]
        if spec.type is not None or pick is not None:
            it = drawn[name]
            values[name] = str(it["name"])
            kind = spec.type if pick is None else params[pick[2][0]].type
            for fld in FIELDS[str(kind)]:
                values[f"{name}_{fld}"] = text(fld, it.get(fld, ""))
        else:
            assert spec.derive is not None
            try:
                values[name] = formatted(evaluate(spec.derive, values), spec.format)
            except ExprError as err:
                raise ParamError(f"parameter {name!r}: {err}") from None
    return values
