"""How `guilens scenarios show` describes a template's parameters and a variant's draw (plain lines)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from guilens.scenarios.params_spec import ParamSpec

if TYPE_CHECKING:
    from guilens.scenarios.model import Scenario, Task


def _spec_text(spec: ParamSpec) -> str:
    if spec.derive is not None:
        return f"= {spec.derive} ({spec.format})"
    pick = spec.pick
    if pick is not None:
        return f"the one of {', '.join(pick[2])} with the {pick[0]} {pick[1]}"
    parts = [str(spec.type)]
    if spec.category:
        parts.append(f"category {spec.category}")
    if spec.brand:
        parts.append(f"brand {spec.brand}")
    if spec.min_price is not None or spec.max_price is not None:
        parts.append(f"price {spec.min_price or 0:g}-{spec.max_price if spec.max_price is not None else 'any'}")
    if spec.has:
        parts.append(f"with {', '.join(spec.has)}")
    if spec.type in ("int", "money", "date", "time"):
        parts.append(f"{_num(spec.min)} to {_num(spec.max)}" + (f" step {spec.step:g}" if spec.step else ""))
    if spec.of:
        parts.append("one of " + ", ".join(spec.of))
    parts += [f"not {', '.join(spec.distinct_from)}"] if spec.distinct_from else []
    parts += [f"same {f} as {o}" for f, o in spec.same.items()]
    parts += [f"{f} below {o}'s" for f, o in spec.below.items()]
    parts += [f"{f} above {o}'s" for f, o in spec.above.items()]
    parts += [f"{f} unlike {o}'s" for f, o in spec.differ.items()]
    return ", ".join(parts)


def _num(x: object) -> str:
    return f"{x:g}" if isinstance(x, float | int) else str(x)


def param_lines(scenario: Scenario, task: Task) -> list[str]:
    """A template's parameters and its first variant's filled L0; a variant's origin and values."""
    from guilens.scenarios.params import ParamError, one_variant, variant_id

    out: list[str] = []
    if task.params:
        out.append("template: run with --variants N --seed S; each parameter is drawn from the sim's data")
        out += [f"  {name}: {_spec_text(spec)}" for name, spec in task.params.items()]
        try:
            example = one_variant(scenario, variant_id(task.id, 0, 0))
        except ParamError as err:
            out.append(f"  (cannot draw: {err})")
        else:
            if example is not None:
                out.append(f"  e.g. {example.id}: {example.instruction_at('L0', example.user.values)}")
    elif "template" in task.meta:
        m = task.meta
        out.append(f"variant {m.get('variant')} of template {m['template']} at seed {m.get('seed')}")
        values = m.get("params") or {}
        out += [f"  {k} = {v}" for k, v in values.items() if k in _top_names(values)]
    return out


def _top_names(values: dict[str, str]) -> set[str]:
    """The parameters themselves, not their `{name_<field>}` spellings (shown on the task's page)."""
    names = sorted(values, key=len)
    top: set[str] = set()
    for n in names:
        if not any(n.startswith(t + "_") for t in top):
            top.add(n)
    return top
