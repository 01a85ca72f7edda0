"""The reference a recorded episode writes: one reference step per step that acted, in order.

Every step whose action the phone performed becomes a step (a detour too: the
golden path is what was done, not what should have been); a step the phone
refused (`error`) did nothing and is left out with a warning. Taps and swipes
name the element they touched (`guilens.export.targets`). What the agent kept in
long-term memory becomes `remember` steps where it was kept, so an oracle that
plays the reference remembers what the agent did.

Values the task's user knows (`{first_item}`) and values earlier tasks of a day
handed on are written back as `{templates}` where the task's own reference
writes them so, and the task's questions come along for them: a person who ran
at L0 never asked for the brand, but the task at L1 must, so the original
reference's `ask` for that slot goes in before the first step that uses it, at
the levels the original asks it (never at the episode's own level: there the
path is the person's). Each level is then played in the head the way the
reference player does; a template a level would use before knowing it is
written out as its value again, so every level plays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from guilens.actions import scroll_gesture
from guilens.device.uitree import parse_ui_xml
from guilens.export.targets import TargetError, selector_for, swipe_step, touched

if TYPE_CHECKING:
    from guilens.episode import EpisodeReader, Step
    from guilens.scenarios.model import Task

LEVELS = ("L0", "L1", "L2")


class PathError(ValueError):
    """A recorded step that cannot be written as a reference step; the message names the step."""


@dataclass
class PathStep:
    """One reference entry and the recorded step it came from (None for `remember` and inserted asks)."""

    data: Any
    step: Step | None = None
    levels: tuple[str, ...] = LEVELS
    """Levels at which it is an agent step (`remember` at none; an `ask` where it asks)."""
    inserted_for: str | None = None
    """For an `ask` taken from the task's own reference: the slot it asks for."""


@dataclass
class WrittenPath:
    steps: list[PathStep]
    skipped: list[str] = field(default_factory=list)

    @property
    def reference(self) -> list[Any]:
        return [p.data for p in self.steps]

    def golden_steps(self, level: str = "L0") -> int:
        return sum(1 for p in self.steps if level in p.levels)

    def before(self, screen: int, level: str = "L0") -> int:
        """Steps taken at `level` before screen `screen` (the screen after `screen` recorded actions)."""
        return max(1, sum(1 for p in self.steps if p.step is not None and p.step.index < screen and level in p.levels))


def _step_no(step: Step) -> str:
    return f"step {step.index + 1}"


def action_step(step: Step, root: Any, size: tuple[int, int]) -> Any:
    """The reference step for one performed action (an `ask` is written by `write_path`)."""
    a = step.action or {}
    kind = a.get("type")
    try:
        if kind in ("tap", "long_press"):
            if root is None:
                raise PathError(f"{_step_no(step)}: a {kind} with no UI tree recorded to name its element")
            long = kind == "long_press"
            node = touched(root, int(a["x"]), int(a["y"]), long=long)
            named = (step.target or {}).get("selector")
            return {kind: selector_for(root, node, named if isinstance(named, str) else None, long=long)}
        if kind == "swipe":
            return swipe_step(a, root, size)
        if kind == "scroll":
            # A scroll is the finger's swipe at its point (the main list without one): replay that swipe.
            at = (int(a["x"]), int(a["y"])) if a.get("x") is not None and a.get("y") is not None else None
            finger = scroll_gesture(a["direction"], size, at)
            return swipe_step(finger.model_dump(), root, size)
    except TargetError as err:
        raise PathError(f"{_step_no(step)}: {err}") from None
    if kind == "type":
        return {"type": a["text"], "clear": True} if a.get("clear") else {"type": a["text"]}
    if kind == "key":
        return a["key"]
    if kind == "open_app":
        return {"open": a["app"]}
    if kind == "wait":
        return {"wait": a.get("seconds", 1.0)}
    if kind == "answer":
        return {"answer": a["text"]}
    if kind == "finish":
        return "finish" if a.get("status", "success") == "success" else {"finish": "failure"}
    raise PathError(f"{_step_no(step)}: {'no action' if not kind else f'action {kind!r}'} to replay")


def _why(step: Step, data: Any) -> Any:
    """The actor's thought as the step's `why`, when it says more than the action itself."""
    why = step.thought.strip()
    if why and why != step.action_description.strip() and isinstance(data, dict):
        return {**data, "why": why}
    return data


def _remembered(step: Step, before: list[tuple[str, str]] | None) -> list[PathStep]:
    """What the actor put in long-term memory at this step (its LTM, less what it held before)."""
    now = [(e.app, e.content) for e in step.memory.ltm]
    if before is None:  # the first step: entries carried from earlier tasks were kept at other steps
        new = [(e.app, e.content) for e in step.memory.ltm if e.step == step.index]
    else:
        new = [e for e in now if e not in before]
    return [PathStep({"remember": {"app": app, "content": content}}, None, ()) for app, content in new]


# --- asks and templates ------------------------------------------------------------------------------


def _norm(s: str) -> str:
    return " ".join(s.split()).casefold()


def _ask_levels(spec: Any) -> tuple[str, ...]:
    return tuple(lv for lv in LEVELS if spec.asked_at(lv))


def _original_asks(task: Task | None) -> list[Any]:
    from guilens.scenarios.spec_reference import AskStep

    return [s.spec for s in task.reference if isinstance(s, AskStep)] if task is not None else []


def _ask_step(step: Step, task: Task | None, level: str, env: dict[str, str]) -> tuple[PathStep, str | None]:
    """A question the actor asked: its slot (the task's ask it matches, else the slot its answer gave)."""
    from guilens.scenarios.templates import fill_text

    question = str((step.action or {}).get("question", ""))
    answer = step.ask.answer if step.ask is not None else None
    slot: str | None = None
    levels: tuple[str, ...] = (level,)
    match = next((o for o in _original_asks(task) if _norm(fill_text(o.question, env)) == _norm(question)), None)
    if match is None and task is not None:
        said = task.user.answer(question)
        by_value = {v: k for k, v in task.user.values.items()}
        slot = by_value.get(said) if said is not None else None
        if slot is None and answer:
            slot = next((k for k, v in task.user.values.items() if _norm(v) and _norm(v) in _norm(answer)), None)
        match = next((o for o in _original_asks(task) if slot is not None and o.slot == slot), None)
    if match is not None:
        slot = match.slot
        levels = tuple(lv for lv in LEVELS if lv in _ask_levels(match) or lv == level)
    elif slot is not None:
        levels = LEVELS[LEVELS.index(level):]
    spec: dict[str, Any] = {"question": question}
    if slot:
        spec["slot"] = slot
    spec["levels"] = list(levels)
    return PathStep(_why(step, {"ask": spec}), step, levels), slot


def templater(names: dict[str, str]) -> Any:
    """A function that writes the values of `names` (name -> value) in a text back as `{name}`: whole
    words only, the longest value first (so `Nike Pegasus 40` is not read as `40`)."""
    by_value: dict[str, str] = {}
    for name, value in names.items():
        if value and "{" not in value and "}" not in value:
            by_value.setdefault(value, name)
    if not by_value:
        return lambda text: text
    alts = "|".join(re.escape(v) for v in sorted(by_value, key=len, reverse=True))
    pattern = re.compile(rf"(?<![A-Za-z0-9])(?:{alts})(?![A-Za-z0-9])")
    return lambda text: pattern.sub(lambda m: "{" + by_value[m[0]] + "}", text)


_LITERAL_KEYS = ("index", "distance", "direction", "levels", "slot", "wait", "finish")


def _map_strings(data: Any, fn: Any, *, why: bool = False) -> Any:
    """Apply `fn` to the texts a reference step plays, and to its `why` if asked (not to selector
    indexes, directions and the like)."""
    if isinstance(data, str):
        return data if data in ("back", "home", "enter", "menu", "recent", "finish") else fn(data)
    if isinstance(data, dict):
        return {k: (v if k in _LITERAL_KEYS or (k == "why" and not why) else _map_strings(v, fn, why=why))
                for k, v in data.items()}
    if isinstance(data, list):
        return [_map_strings(v, fn, why=why) for v in data]
    return data


def _templates_in(data: Any) -> set[str]:
    """Every `{name}` of a step, its `why` included (an agent's thought may quote one; verify reads it)."""
    from guilens.scenarios.templates import TEMPLATE

    found: set[str] = set()

    def collect(text: str) -> str:
        found.update(TEMPLATE.findall(text))
        return text

    _map_strings(data, collect, why=True)
    return found


def _is_ask(p: PathStep) -> bool:
    return isinstance(p.data, dict) and "ask" in p.data


def _unresolved(steps: list[PathStep], task: Task, level: str, flows: dict[str, str]) -> set[str]:
    """Slots a level would use before it knows them (the reference player's rule and verify's)."""
    from guilens.scenarios.checks import norm

    asked_here = {p.data["ask"].get("slot") for p in steps if _is_ask(p) and level in p.levels} - {None}
    known = (set(task.user.values) - asked_here) | set(flows)
    bad: set[str] = set()
    for p in steps:
        if _is_ask(p):
            if level in p.levels and p.data["ask"].get("slot"):
                known.add(p.data["ask"]["slot"])
            continue
        bad |= _templates_in(p.data) - known
    text = norm(task.instruction_at(level, {**task.user.values, **flows})) if level in task.levels else ""
    for name in set(task.user.slots) - asked_here:
        if any(name in _templates_in(p.data) for p in steps) and norm(task.user.values[name]) not in text:
            bad.add(name)
    return bad


def _templatize(steps: list[PathStep], task: Task, level: str, env: dict[str, str], flows: dict[str, str],
                matched: set[str]) -> list[PathStep]:
    """Values back into `{templates}` as the task's reference writes them, with the questions they need."""
    from guilens.scenarios.spec_reference import step_to_data

    used = set().union(*(_templates_in(step_to_data(s)) for s in task.reference)) if task.reference else set()
    names = {k: v for k, v in env.items() if k in used}
    if not names:
        return steps
    to_template = templater(names)
    fill = dict(env)
    out = [PathStep(_map_strings(p.data, to_template), p.step, p.levels, p.inserted_for) for p in steps]
    for spec in _original_asks(task):  # the task's own questions, where the level leaves the slot out
        slot = spec.slot
        levels = tuple(lv for lv in _ask_levels(spec) if lv != level)
        if not slot or slot in matched or not levels:
            continue
        first = next((i for i, p in enumerate(out) if slot in _templates_in(p.data)), None)
        if first is None:
            continue
        data = {"ask": {"question": spec.question, "slot": slot, "levels": list(levels)}}
        out.insert(first, PathStep(data, None, levels, slot))
    for _ in range(len(names) + 1):  # a level that cannot know a slot in time gets its value written out
        bad = set().union(*(_unresolved(out, task, lv, flows) for lv in task.levels))
        if not bad:
            break
        out = [PathStep(_map_strings(p.data, lambda s, b=bad: _fill_only(s, fill, b), why=True), p.step, p.levels,
                        p.inserted_for) for p in out if p.inserted_for not in bad]
    return out


def _fill_only(text: str, values: dict[str, str], names: set[str]) -> str:
    from guilens.scenarios.templates import fill_text

    return fill_text(text, {k: v for k, v in values.items() if k in names})


# --- the whole path ----------------------------------------------------------------------------------


def write_path(reader: EpisodeReader, *, task: Task | None, level: str, values: dict[str, str],
               flows: dict[str, str]) -> WrittenPath:
    """The episode's reference (see the module docstring). `values`: every template value the episode
    was run with; `flows`: those of them handed on by earlier tasks of a day."""
    size = tuple(reader.episode.screen_size or (1080, 2400))
    steps: list[PathStep] = []
    skipped: list[str] = []
    matched: set[str] = set()
    before: list[tuple[str, str]] | None = None
    for pos, s in enumerate(reader.steps):
        steps += _remembered(s, before)
        before = [(e.app, e.content) for e in s.memory.ltm]
        if s.error or s.action is None:
            skipped.append(f"{_step_no(s)}: {s.error or 'no action'} (the phone did nothing)")
            continue
        if s.action.get("type") == "ask_user":
            ps, slot = _ask_step(s, task, level, values)
            steps.append(ps)
            if slot:
                matched.add(slot)
            continue
        xml = reader.ui_xml(pos)
        try:
            root = parse_ui_xml(xml) if xml else None
            steps.append(PathStep(_why(s, action_step(s, root, size)), s))  # type: ignore[arg-type]
        except (PathError, ValueError) as err:
            skipped.append(str(err))
    if task is not None:
        steps = _templatize(steps, task, level, values, flows, matched)
    return WrittenPath(steps, skipped)
