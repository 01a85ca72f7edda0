"""One pass over a scenario file's YAML events, before anything is built from it.

Why: PyYAML builds nodes and values recursively, so a value nested a few
thousand levels deep ends in `RecursionError` (or, in libyaml's composer, in
the C stack), and aliases can expand a small file into billions of values
("billion laughs") that validation would walk one by one. The event stream is
flat, so this scan can count depth and expanded size without recursing, and
refuse a file before it is composed. It also knows where it is in the file
when the parser gives up, so a YAML syntax error inside a task names the task
and the field, as every other problem does. The same pass builds the file's values
(`yamlbuild`), so a file that passes is parsed once, and composed into nodes only if a problem
needs a line to point at.

The limits are far above what a scenario needs (the built-in packs nest 9
levels and hold under 7,000 values).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import yaml

from guilens.scenarios.errors import PathT, Problem, clip
from guilens.scenarios.yamlbuild import NOT_BUILT, Builder

MAX_DEPTH = 64
"""Mappings and lists inside each other, at most."""
MAX_VALUES = 200_000
"""Values in the file once every alias is expanded, at most."""
MAX_BYTES = 8 * 1024 * 1024
"""A scenario file's size, at most."""

FAST_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser when PyYAML was built with it (ten times faster on the built-in packs), else Python's."""


@dataclass
class _Frame:
    kind: str
    """`map` or `seq`."""
    where: str | int | None
    """This collection's key or index in its parent (None for the document's root)."""
    anchor: str | None
    start: int
    """Values counted before this collection began (its expanded size is the difference at its end)."""
    index: int = 0
    key: Any = None
    want_key: bool = True
    ident: Any = None
    """The value of this mapping's `id` key, once read (a task's name in messages)."""
    open_anchors: set[str] = field(default_factory=set)


class _Scan:
    def __init__(self, file: str) -> None:
        self.file = file
        self.stack: list[_Frame] = []
        self.count = 0
        self.anchors: dict[str, int] = {}
        self.expanded_by_alias = False

    # -- where we are ---------------------------------------------------------------------------
    def path(self) -> list[str | int]:
        """The path of the value about to be read (the current key or index of the innermost collection)."""
        out: list[str | int] = [f.where for f in self.stack[1:] if f.where is not None]
        if self.stack:
            top = self.stack[-1]
            here = top.index if top.kind == "seq" else (top.key if not top.want_key else None)
            if isinstance(here, str | int) and not isinstance(here, bool):
                out.append(here)
        return out

    def problem(self, message: str, mark: Any) -> Problem:
        path = self.path()
        task = None
        if len(path) >= 2 and path[0] == "tasks" and isinstance(path[1], int):
            ident = self.stack[2].ident if len(self.stack) >= 3 else None
            task = clip(str(ident), 40) if isinstance(ident, str | int) and ident != "" else f"#{path[1] + 1}"
            path = path[2:]
        shown: PathT = tuple(clip(p, 40) if isinstance(p, str) else p for p in path)
        line = mark.line + 1 if mark is not None else None
        col = mark.column + 1 if mark is not None else None
        return Problem(file=self.file, message=message, path=shown, task=task, line=line, column=col)

    # -- events -----------------------------------------------------------------------------------
    def value_done(self, scalar: Any = None, is_scalar: bool = False) -> None:
        """A value (scalar, alias or whole collection) was read in the innermost collection."""
        if not self.stack:
            return
        top = self.stack[-1]
        if top.kind == "seq":
            top.index += 1
        elif top.want_key:
            top.key, top.want_key = (scalar if is_scalar else None), False
        else:
            if top.key == "id" and is_scalar:
                top.ident = scalar
            top.want_key = True

    def event(self, ev: Any) -> Problem | None:
        if isinstance(ev, yaml.ScalarEvent):
            self.count += 1
            if ev.anchor:
                self.anchors[ev.anchor] = 1
            self.value_done(ev.value, True)
        elif isinstance(ev, yaml.AliasEvent):
            if any(ev.anchor in f.open_anchors for f in self.stack):
                return self.problem(f"alias *{clip(ev.anchor, 40)} refers to a value that contains it", ev.start_mark)
            if ev.anchor not in self.anchors:
                return self.problem(f"alias *{clip(ev.anchor, 40)} names no anchor before it (&{clip(ev.anchor, 40)})",
                                    ev.start_mark)
            self.count += self.anchors.get(ev.anchor, 1)
            self.expanded_by_alias = True
            self.value_done()
        elif isinstance(ev, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            if len(self.stack) >= MAX_DEPTH:
                return self.problem(f"nested more than {MAX_DEPTH} levels deep (a scenario needs about 10)",
                                    ev.start_mark)
            top = self.stack[-1] if self.stack else None
            where = None if top is None else (top.index if top.kind == "seq" else top.key if not top.want_key else None)
            frame = _Frame("map" if isinstance(ev, yaml.MappingStartEvent) else "seq",
                           where if isinstance(where, str | int) else None, ev.anchor, self.count)
            if ev.anchor:
                frame.open_anchors.add(ev.anchor)
            self.count += 1
            self.stack.append(frame)
        elif isinstance(ev, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            frame = self.stack.pop()
            if frame.anchor:
                self.anchors[frame.anchor] = self.count - frame.start
            self.value_done()
        if self.count > MAX_VALUES:
            what = "aliases expand it to" if self.expanded_by_alias else "it holds"
            return self.problem(f"{what} more than {MAX_VALUES:,} values; a scenario needs a few thousand"
                                + (" (an alias bomb?)" if self.expanded_by_alias else ""),
                                getattr(ev, "start_mark", None))
        return None


class AliasAtUseLoader(yaml.SafeLoader):
    """A composer whose alias nodes carry the alias's own position, not the anchor's.

    PyYAML hands back the anchored node itself for an alias, so a problem with the value
    at the alias (a task that is an alias of a milestone) would point at the anchor, in
    another task. Here an alias is a shallow copy of the anchored node (its children
    shared), marked where the alias is written. Used only for files with aliases: the
    composer is Python's, and libyaml's cannot be taught this.
    """

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            node = super().compose_node(parent, index)
            if node is None:  # an alias always resolves to its anchored node (or raises); typed loosely upstream
                return node
            used = copy.copy(node)
            used.start_mark, used.end_mark = event.start_mark, event.end_mark
            return used
        return super().compose_node(parent, index)


def yaml_error_text(err: yaml.YAMLError) -> str:
    what = " ".join(x for x in (getattr(err, "context", None), getattr(err, "problem", None)) if x) or str(err)
    return f"YAML syntax: {clip(what, 160)}"


class Scanned(NamedTuple):
    problems: list[Problem]
    """What stops the file before it is composed; empty when it passes."""
    loader: Any
    """The loader to compose its nodes with: libyaml's when it is there, `AliasAtUseLoader` for a file with aliases."""
    data: Any
    """Its values, built in the same pass (`yamlbuild`), or `NOT_BUILT`: compose and construct them with `loader`."""


def scan(text: str, file: str) -> Scanned:
    """The problems that must stop a file before it is composed (too big, too deep, aliases that
    explode or loop, and YAML syntax errors, named with the task and field they are in), the
    loader to compose it with, and its values when they could be built from the same events."""
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_BYTES:
        return Scanned([Problem(file=file, message=f"is {size / 1e6:.1f} MB; a scenario file is at most "
                                                    f"{MAX_BYTES // (1024 * 1024)} MB")], FAST_LOADER, NOT_BUILT)
    s, b = _Scan(file), Builder()
    problems = _events(s, b, text, file)
    return Scanned(problems, AliasAtUseLoader if s.expanded_by_alias else FAST_LOADER,
                   NOT_BUILT if problems else b.result())


def _events(s: _Scan, b: Builder, text: str, file: str) -> list[Problem]:
    try:
        for ev in yaml.parse(text, Loader=FAST_LOADER):
            found = s.event(ev)
            if found is not None:
                return [found]
            b.event(ev)
    except yaml.reader.ReaderError as err:  # a character YAML forbids: no mark, a position
        before = text[: err.position]
        line, col = before.count("\n") + 1, err.position - (before.rfind("\n") + 1) + 1
        char = f"#x{err.character:04x}" if isinstance(err.character, int) else repr(err.character)
        return [Problem(file=file, message=f"YAML syntax: character {char} is not allowed in YAML ({err.reason})",
                        line=line, column=col)]
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
        if "maximum nesting depth" in str(err):  # libyaml's own limit (1,000 flow levels) came first
            return [s.problem(f"nested more than {MAX_DEPTH} levels deep (a scenario needs about 10)", mark)]
        return [s.problem(yaml_error_text(err), mark)]
    return []
