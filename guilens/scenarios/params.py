"""Parametric tasks: turning a template (a task with `params:`) into variants by seed.

A variant is deterministic from (scenario, template, seed, index): its values come from a
`random.Random` seeded with the string `guilens-params/<scenario>/<template>/<seed>/<index>`
(a str seed is hashed with SHA-512 by `random`, never by `hash()`, so every machine and Python
version draws the same), and the pools are read from the sim's data in its own order. Within one
template, a draw that repeats an earlier variant's values is drawn again from the same stream, so
N variants are N distinct tasks wherever the pools allow.

A variant's id is `<template>~s<seed>.<index>` (`two-prices-note~s7.3`): `~` never appears in an
authored id (`ID_PATTERN`), so the template is always recoverable by splitting on it; the seed and
index read plainly in a run directory's folder names and on a command line (`guilens scenarios
show variants:two-prices-note~s7.3`) without quoting. A variant is a plain `Task`: every
`{param}` is filled in its instruction, checks, keys, answer, reference, user slots, information
items and setup, its `meta` says which template, seed, index and values it came from, and its
`mirror_of` names the variant of the same seed and index of the mirror template. The run copies
the instantiated scenario into `scenario.json`, so the judge, the report, replay and compare
find each variant's filled task from the run directory alone.

Mirror pairs stay mirrors: the loader refuses a pair whose templates do not declare the same
draw structure (`params_spec.ParamSpec.shape`: the kinds in order and the constraints between
them; the filters, the categories or brands the two draw from, may differ), and variant i of one
is paired with variant i of the other.
"""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING

from guilens.scenarios.params_draw import ParamError, draw
from guilens.scenarios.params_spec import names_for
from guilens.scenarios.spec_milestones import ID_MAX
from guilens.scenarios.templates import fill_any

if TYPE_CHECKING:
    from guilens.scenarios.model import Scenario, Task

VARIANT = re.compile(r"^(?P<template>[A-Za-z0-9][A-Za-z0-9_.-]*)~s(?P<seed>-?\d+)\.(?P<index>\d+)$")
MAX_VARIANTS = 1000
MAX_SEED = 999_999_999
TEMPLATE_ID_MAX = 48
"""A template's id leaves room for the longest variant suffix (`~s999999999.999`) within `ID_MAX`."""
REDRAWS = 30
"""Draws tried for a variant whose values repeat an earlier variant's, before the repeat is kept."""


def variant_id(template: str, seed: int, index: int) -> str:
    return f"{template}~s{seed}.{index}"


def parse_variant(tid: str) -> tuple[str, int, int] | None:
    """(template, seed, index) of a variant id, or None for any other id."""
    m = VARIANT.match(tid)
    return (m["template"], int(m["seed"]), int(m["index"])) if m else None


def is_template(task: Task) -> bool:
    return bool(task.params)


def has_templates(scenario: Scenario) -> bool:
    return any(is_template(t) for t in scenario.tasks)


def _rng(scenario: str, template: str, seed: int, index: int) -> random.Random:
    return random.Random(f"guilens-params/{scenario}/{template}/{seed}/{index}")


def _drawn_items(task: Task, values: dict[str, str]) -> frozenset[str]:
    """What a variant is about: the names of the items and values it drew (not derived ones)."""
    return frozenset(values[n] for n, spec in task.params.items() if spec.type is not None)


def draw_values(scenario: Scenario, task: Task, seed: int, count: int) -> list[dict[str, str]]:
    """The values of variants 0..count-1 of a template. `ParamError` names the task on failure.

    A draw is drawn again (from the same stream, so still deterministic) when it repeats an
    earlier variant of the template, or, for the mirror of a template, when it drew the very
    items its partner's variant of the same index drew: a mirror has different specifics, and
    each one's reference must fail the other's checks.
    """
    ids = [t.id for t in scenario.tasks]
    partner = next((t for t in scenario.tasks if t.id == task.mirror_of and is_template(t)), None)
    if partner is not None and partner.mirror_of == task.id and ids.index(partner.id) > ids.index(task.id):
        partner = None  # two tasks naming each other: the later one steers clear of the earlier
    avoid = [_drawn_items(partner, v) for v in draw_values(scenario, partner, seed, count)] if partner else []
    out: list[dict[str, str]] = []
    seen: set[tuple[tuple[str, str], ...]] = set()
    try:
        for i in range(count):
            rng = _rng(scenario.id, task.id, seed, i)
            fallback: dict[str, str] | None = None
            for _ in range(REDRAWS):
                values = draw(task.params, rng)
                if avoid and _drawn_items(task, values) == avoid[i]:
                    continue  # the partner's very items: never kept
                fallback = fallback or values
                if tuple(sorted(values.items())) not in seen:
                    break
            else:  # every fresh draw repeats: the pools are smaller than the count; keep a repeat
                if fallback is None:
                    raise ParamError(f"no draw in {REDRAWS} tries differs from its mirror {partner.id if partner else ''}")
                values = fallback
            seen.add(tuple(sorted(values.items())))
            out.append(values)
    except ParamError as err:
        raise ParamError(f"{scenario.id}:{task.id}: {err}") from None
    return out


def variant(task: Task, values: dict[str, str], seed: int, index: int, templates: set[str]) -> Task:
    """The task of one draw: every `{param}` filled, the id and mirror named for the variant."""
    from guilens.scenarios.model import Task

    data = task.model_dump(mode="json", by_alias=True, exclude_none=True)
    data.pop("params", None)
    data = fill_any(data, values)
    data["id"] = variant_id(task.id, seed, index)
    if task.mirror_of in templates:
        data["mirror_of"] = variant_id(str(task.mirror_of), seed, index)
    data["meta"] = {**data.get("meta", {}), "template": task.id, "seed": seed, "variant": index, "params": values}
    return Task.model_validate(data)


def instantiate(scenario: Scenario, variants: int, seed: int) -> Scenario:
    """The scenario with each template replaced by `variants` variants (fixed tasks as they are).
    `ParamError` on a bad draw or count."""
    if not 1 <= variants <= MAX_VARIANTS:
        raise ParamError(f"--variants {variants}: give 1 to {MAX_VARIANTS}")
    if not 0 <= seed <= MAX_SEED:
        raise ParamError(f"--seed {seed}: task templates are drawn with a seed from 0 to {MAX_SEED:,}")
    templates = {t.id for t in scenario.tasks if is_template(t)}
    tasks: list[Task] = []
    for t in scenario.tasks:
        if t.id not in templates:
            tasks.append(t)
            continue
        for i, values in enumerate(draw_values(scenario, t, seed, variants)):
            tasks.append(variant(t, values, seed, i, templates))
    return scenario.model_copy(update={"tasks": tasks})


def tasks_of(scenario: Scenario, task_id: str) -> list[Task]:
    """The tasks of an instantiated scenario that stand for `task_id`: a template's variants, or the task."""
    return [t for t in scenario.tasks if t.id == task_id or t.meta.get("template") == task_id]


def one_variant(scenario: Scenario, tid: str) -> Task | None:
    """The variant a `<template>~s<seed>.<index>` id names, or None when `tid` is not one of this scenario's."""
    parsed = parse_variant(tid)
    if parsed is None:
        return None
    template, seed, index = parsed
    if not 0 <= seed <= MAX_SEED:
        return None
    task = next((t for t in scenario.tasks if t.id == template and is_template(t)), None)
    if task is None or index >= MAX_VARIANTS:
        return None
    templates = {t.id for t in scenario.tasks if is_template(t)}
    values = draw_values(scenario, task, seed, index + 1)[index]
    return variant(task, values, seed, index, templates)


def mirror_problems(scenario: Scenario) -> list[tuple[int, str]]:
    """(task index, message) for each mirror pair whose templates draw differently."""
    by_id = {t.id: t for t in scenario.tasks}
    out: list[tuple[int, str]] = []
    for i, t in enumerate(scenario.tasks):
        other = by_id.get(t.mirror_of or "")
        if other is None or not (is_template(t) or is_template(other)):
            continue
        mine = [s.shape() for s in t.params.values()]
        theirs = [s.shape() for s in other.params.values()]
        if mine != theirs:
            out.append((i, f"a mirror draws the same kinds of parameters under the same constraints as "
                           f"{other.id!r}: its params are {_shape_text(t)}, {other.id!r} has {_shape_text(other)}"))
    return out


def _shape_text(task: Task) -> str:
    if not task.params:
        return "none"
    return ", ".join(f"{n} ({s.type or 'derived'})" for n, s in task.params.items())


def params_problems(scenario: Scenario) -> list[tuple[tuple[str | int, ...], str, bool]]:
    """What the loader reports about templates, as (path, message, at the key): a params block's
    own problems, `{names}` in user slots or setup no parameter gives, a template in a sequence,
    mirrors that draw differently, and a first draw that fails (a filter nothing in the sim's data
    matches, constraints no draw meets, a derived value that does not compute)."""
    from guilens.scenarios.params_expr import ExprError, expr_names
    from guilens.scenarios.params_spec import block_problems
    from guilens.scenarios.templates import TEMPLATE, strings

    out: list[tuple[tuple[str | int, ...], str, bool]] = []
    # Drawing a mirror draws its partner too, so a partner's bad block keeps the mirror undrawn.
    unsound = {t.id for t in scenario.tasks if is_template(t) and block_problems(t.params)}
    for i, t in enumerate(scenario.tasks):
        if not is_template(t):
            continue
        base: tuple[str | int, ...] = ("tasks", i, "params")
        if len(t.id) > TEMPLATE_ID_MAX:
            out.append((("tasks", i, "id"), f"a template's id is at most {TEMPLATE_ID_MAX} characters, so its "
                                            f"variants' ids (`{t.id[:8]}…~s7.3`) fit in {ID_MAX}", False))
        if scenario.kind == "sequence":
            out.append((base, "a sequence's tasks hand values on to each other; templates belong in a "
                              "scenario of independent tasks (kind: tasks)", True))
            continue
        own = block_problems(t.params)
        out += [((*base, *path), msg, True) for path, msg in own]
        given: set[str] = set()
        for name, spec in t.params.items():
            if spec.derive is not None:
                try:
                    missing = [n for n in expr_names(spec.derive) if n not in given]
                except ExprError as err:
                    out.append(((*base, name, "derive"), str(err), False))
                    missing = []
                if missing:
                    out.append(((*base, name, "derive"), f"{', '.join(missing)}: not a parameter declared before "
                                                           f"{name!r}", False))
            given |= names_for(t.params, name)
        known = given | set(scenario.user.slots) | set(t.user.slots)
        for key in ("user", "setup"):
            for text in strings(t.model_dump(include={key})):
                for name in TEMPLATE.findall(text):
                    if name not in known:
                        out.append((("tasks", i, key), f"{{{name}}} is neither a parameter nor a user slot "
                                                        f"(parameters: {', '.join(t.params)})", True))
        if not own and t.mirror_of not in unsound and not any(p[0][:3] == base for p in out):
            try:
                draw_values(scenario, t, 0, 1)
            except ParamError as err:
                out.append((base, str(err).split(": ", 1)[-1], True))
    out += [(("tasks", i, "mirror_of"), msg, False) for i, msg in mirror_problems(scenario)]
    return out
