"""Scenario problems, said so a person can fix them.

Every problem names the file, the line and column, the task, the field path
(`milestones[1].check.op`) and what is allowed there. Pydantic's raw errors
carry union tags and type labels in their locations and one error per union
branch; this module walks the model types to turn a location into the path a
person wrote, lists the allowed keys for an unknown one, and keeps only the
errors of the branch the file evidently meant.
"""

from __future__ import annotations

import re
import types
import typing
from dataclasses import dataclass
from typing import Any

import yaml
from pydantic import BaseModel, Discriminator, ValidationError

from guilens.scenarios.yamlpos import PathT, node_at, path_at, position

__all__ = ["PathT", "Problem", "ScenarioError", "clip", "make_problem", "node_at", "path_at", "position",
           "problems_from_validation", "tidy"]

SHOWN = 60
"""A value echoed in a message is cut to about this many characters, saying how long it was."""
_RUN = re.compile(r"\S{121,}")
_QUOTED = re.compile(r"'[^'…]{200,}'|\"[^\"…]{200,}\"")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def clip(text: Any, limit: int = SHOWN) -> str:
    """`text` at most about `limit` characters; a cut one ends in `…` and says how long it was."""
    s = str(text)
    if len(s) <= limit:
        return s
    return f"{s[: max(1, limit - 1)]}… ({len(s):,} characters)"


LINE = 660
"""A problem's whole line, at most (before the count a cut message ends with): a terminal screen."""


def tidy(message: str, limit: int = 600) -> str:
    """The last guard on a message: one line, no control characters, no value longer than a screen.

    Values are cut where they are echoed (`_short`); this catches what a check's own message
    quotes whole (a 1 MB `mirror_of`), whatever its shape.
    """
    one = _CONTROL.sub(" ", message)
    one = _QUOTED.sub(lambda m: f"{m[0][:SHOWN]}…{m[0][0]} ({len(m[0]) - 2:,} characters)", one)
    one = _RUN.sub(lambda m: f"{m[0][:80]}… ({len(m[0]):,} characters)", one)
    return one if len(one) <= limit else f"{one[:limit - 1]}… (the message is {len(one):,} characters)"


@dataclass(frozen=True)
class Problem:
    file: str
    message: str
    path: PathT = ()
    task: str | None = None
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        where = tidy(self.file)
        if self.line is not None:
            where += f":{self.line}" + (f":{self.column}" if self.column is not None else "")
        parts = [where]
        if self.task is not None:
            parts.append(f"task {clip(self.task, 40)!r}")
        path = tuple(clip(p, 40) if isinstance(p, str) else p for p in self.path)
        shown = show_path(path) if len(path) <= 12 else (
            f"{show_path(path[:4])} ... {show_path(path[-2:]).lstrip('.')} ({len(path)} levels)")
        if shown:
            parts.append(tidy(shown, 300))
        head = ": ".join(parts) + ": "
        # The place and the message share one line's room: a long path leaves less for the message.
        return head + tidy(self.message, max(120, LINE - len(head)))


MAX_PROBLEMS = 100
"""Problems listed per error, at most; a file broken everywhere gets a count of the rest."""


class ScenarioError(ValueError):
    """A scenario that cannot be used; `problems` lists the problems found (at most `MAX_PROBLEMS`,
    then one line counting the rest), one line each."""

    def __init__(self, problems: list[Problem] | list[str]) -> None:
        shown = list(problems[:MAX_PROBLEMS])
        self.problems: list[str] = [str(p) for p in shown]
        self.details: list[Problem] = [p for p in shown if isinstance(p, Problem)]
        if len(problems) > MAX_PROBLEMS:
            first = problems[0]
            file = first.file if isinstance(first, Problem) else str(first).split(":", 1)[0]
            self.problems.append(str(Problem(file=file, message=f"... and {len(problems) - MAX_PROBLEMS:,} more "
                                             f"problems (the first {MAX_PROBLEMS} are listed)")))
        n = len(self.problems)
        head = "1 problem" if n == 1 else f"{n} problems"
        super().__init__(f"{head}:\n" + "\n".join(f"  {p}" for p in self.problems))


def show_path(path: PathT) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


# --- walking model types along a pydantic location -------------------------------------------

_TYPE_LABELS = ("str", "int", "float", "bool", "constrained-str", "constrained-int", "constrained-float", "list", "dict")


def _strip(t: Any) -> Any:
    """Drop `Optional` and plain `Annotated` wrappers (keep discriminated unions)."""
    while True:
        origin = typing.get_origin(t)
        if origin is typing.Annotated:
            args = typing.get_args(t)
            if any(isinstance(m, Discriminator) for m in args[1:]):
                return t
            t = args[0]
            continue
        if origin in (typing.Union, types.UnionType):
            members = [a for a in typing.get_args(t) if a is not type(None)]
            if len(members) == 1:
                t = members[0]
                continue
        return t


def _tagged_members(t: Any) -> dict[str, Any] | None:
    if typing.get_origin(t) is not typing.Annotated:
        return None
    base, *meta = typing.get_args(t)
    if not any(isinstance(m, Discriminator) for m in meta):
        return None
    out = {}
    for member in typing.get_args(base):
        m_base, *m_meta = typing.get_args(member)
        for mm in m_meta:
            tag = getattr(mm, "tag", None)
            if tag is not None:
                out[tag] = m_base
    return out


def _field_type(model: type[BaseModel], key: str) -> tuple[str, Any] | None:
    for name, info in model.model_fields.items():
        if key in (name, info.alias):
            return (info.alias or name), info.annotation
    return None


def model_keys(model: type[BaseModel]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items()]


def walk(root: type[BaseModel], loc: tuple[Any, ...]) -> tuple[PathT, Any]:
    """Turn a pydantic error location into the path as written, and the type found there."""
    t: Any = root
    path: list[str | int] = []
    for part in loc:
        t = _strip(t)
        tagged = _tagged_members(t)
        if tagged is not None and part in tagged:
            t = tagged[part]
            continue
        origin = typing.get_origin(t)
        if origin in (typing.Union, types.UnionType):
            members = [_strip(a) for a in typing.get_args(t)]
            pick = next((m for m in members if isinstance(m, type) and isinstance(part, str)
                         and m.__name__ in part), None)
            if pick is not None:
                t = pick
                continue
            if isinstance(part, str) and (part in _TYPE_LABELS or "[" in part or part.startswith("function-")):
                t = None
                continue
        if isinstance(t, type) and issubclass(t, BaseModel) and isinstance(part, str):
            ft = _field_type(t, part)
            path.append(ft[0] if ft else part)
            t = ft[1] if ft else None
            continue
        if origin in (list, tuple) and isinstance(part, int):
            path.append(part)
            args = typing.get_args(t)
            t = args[0] if args else None
            continue
        if origin is dict:
            path.append(part)
            args = typing.get_args(t)
            t = args[1] if len(args) == 2 else None
            continue
        if isinstance(part, str | int):
            path.append(part)
        t = None
    if path and path[-1] == "bare":
        path.pop()
    return tuple(path), t


# --- pydantic errors into problems -----------------------------------------------------------

_SHAPE_ERRORS = {
    "string_type", "model_type", "model_attributes_type", "dict_type", "int_type", "float_type", "bool_type",
    "list_type", "literal_error", "int_parsing", "float_parsing", "bool_parsing", "string_too_short",
}


def kind_of(v: Any) -> str:
    if v is None:
        return "nothing"
    if isinstance(v, bool):
        return "true/false"
    if isinstance(v, int | float):
        return "a number"
    if isinstance(v, str):
        return "a text"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "a mapping"
    return type(v).__name__


def describe(v: Any) -> str:
    """A value as a person would name it in 'expected X, got ...'."""
    if v is None:
        return "nothing"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int | float):
        return f"the number {_short(v)}"
    if isinstance(v, str):
        return f"the text {_short(v)}" if v else "an empty text"
    return kind_of(v)


def _message(err: dict[str, Any], t_parent: Any) -> str:
    typ, msg, inp = err["type"], err["msg"], err.get("input")
    if typ == "missing":
        return "required, but missing"
    if typ == "extra_forbidden":
        allowed = model_keys(t_parent) if isinstance(t_parent, type) and issubclass(t_parent, BaseModel) else []
        return f"unknown key; allowed keys here: {', '.join(allowed)}" if allowed else "unknown key"
    if typ == "literal_error":
        return f"{_short(inp)} is not allowed; use one of {err.get('ctx', {}).get('expected', '')}"
    if typ in ("check_kind", "step_kind"):
        got = f" (got keys: {', '.join(map(str, inp))})" if isinstance(inp, dict) and inp else (
            f" (got {inp!r})" if not isinstance(inp, dict) else " (got an empty mapping)")
        return msg + got
    if typ in ("string_type", "int_type", "float_type", "bool_type", "list_type", "dict_type", "model_type",
               "model_attributes_type", "int_parsing", "float_parsing", "bool_parsing"):
        want = {"string_type": "a text", "int_type": "a whole number", "int_parsing": "a whole number",
                "float_type": "a number", "float_parsing": "a number", "bool_type": "true or false",
                "bool_parsing": "true or false", "list_type": "a list"}.get(typ, "a mapping")
        return f"expected {want}, got {describe(inp)}"
    if typ == "value_error":
        return msg.removeprefix("Value error, ")
    if typ == "string_pattern_mismatch":
        return f"{_short(inp)} must use letters, digits, '_', '-' or '.' (and start with a letter or digit)"
    if typ == "string_too_long":
        limit = err.get("ctx", {}).get("max_length")
        return (f"{inp[: SHOWN - 10]!r}… is {len(inp):,} characters long; at most {limit} here (ids name the "
                "folders and files of a run)") if isinstance(inp, str) else msg
    text = msg[0].lower() + msg[1:] if msg else typ
    return f"{text} (got {_short(inp)})" if inp is not None and not isinstance(inp, dict | list) else text


def _short(v: Any) -> str:
    """A scalar as a message shows it: its repr, a long text cut with its length said."""
    if isinstance(v, dict | list):
        return ""
    if isinstance(v, str) and len(v) > SHOWN:
        return f"{v[: SHOWN - 10]!r}… ({len(v):,} characters)"
    s = repr(v)
    return s if len(s) <= SHOWN else f"{s[: SHOWN - 3]}… ({len(s):,} characters)"


def problems_from_validation(
    err: ValidationError, root_model: type[BaseModel], data: Any, file: str, nodes: yaml.Node | None
) -> list[Problem]:
    raw = err.errors(include_url=False)
    walked = [(e, *walk(root_model, tuple(e["loc"]))) for e in raw]
    # Union branches: when the input is a mapping, drop the "should be a text" branch, and vice versa:
    # a shape error is dropped when another kind of error lies at or under its path.
    under_other: set[PathT] = set()
    for e, path, _t in walked:
        if e["type"] not in _SHAPE_ERRORS:
            under_other.update(path[:k] for k in range(len(path) + 1))
    keep = [(e, path) for e, path, _t in walked if e["type"] not in _SHAPE_ERRORS or path not in under_other]
    out: list[Problem] = []
    seen: set[tuple[PathT, str]] = set()
    for e, path in keep:
        loc = tuple(e["loc"])
        parent_t = walk(root_model, loc[:-1])[1] if e["type"] == "extra_forbidden" else None
        parent_t = _strip(parent_t)
        msg = _message(dict(e), parent_t)
        key = (path, msg)
        if key in seen:
            continue
        seen.add(key)
        out.append(make_problem(file, data, nodes, path, msg, key_pos=e["type"] == "extra_forbidden"))
    return out


def make_problem(
    file: str, data: Any, nodes: yaml.Node | None, path: PathT, message: str, *, key_pos: bool = False,
    mark: tuple[int, int] | None = None,
) -> Problem:
    """A problem at a path of the scenario file, with the task it is in split off the path.

    `data` may be None (a problem found while building it): the task's name then comes from the nodes.
    `mark` (line, column, 1-based) overrides the position found from the path.
    """
    line, col = mark if mark is not None else position(nodes, path, key=key_pos)
    task = None
    shown: PathT = path
    if len(path) >= 2 and path[0] == "tasks" and isinstance(path[1], int):
        tid: Any = None
        tasks = data.get("tasks") if isinstance(data, dict) else None
        if isinstance(tasks, list):
            item = tasks[path[1]] if 0 <= path[1] < len(tasks) else None
            tid = item.get("id") if isinstance(item, dict) else None
        elif data is None:
            id_node, found = node_at(nodes, (*path[:2], "id"))
            tid = id_node.value if found and isinstance(id_node, yaml.ScalarNode) else None
        task = str(tid) if isinstance(tid, str | int) and tid != "" else f"#{path[1] + 1}"
        shown = path[2:]
    return Problem(file=file, message=message, path=shown, task=task, line=line, column=col)

