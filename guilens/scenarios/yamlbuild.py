"""A scenario file's values, built from the YAML events the scan reads anyway, as PyYAML's safe load builds them.

Why by hand: PyYAML's way to a checked load parses the text twice (once for the scan's events,
once more in libyaml's composer), makes a node for every value, and then walks the nodes in
Python to build the values: 115 ms for the built-in packs, where their events alone take 36.
Building the values from the events as the scan reads them, with PyYAML's own resolver and
scalar constructors (so `yes`, `0o17`, `1_000`, `.inf` and `2026-11-21` become what a safe load
makes of them), brings the whole checked parse to about 50 ms, which is most of what
`scenarios list` does on its first run after an install or an edit. No node is composed unless
a problem needs a line to point at (the loader composes them then).

Only what is plain is built here: mappings and sequences (block or flow) without tags, and
scalars with none or with the implicit ones. Anything else gives up the build: an alias (which
also needs its own position), an explicit tag (`!!int 3`), a merge key (`<<`), a key that is not
a scalar, a duplicate key, a scalar its tag cannot build, a second document. The loader then
composes and constructs the file the old way, which says what is wrong, with its line, or builds
what only PyYAML knows how to. No library offers this: PyYAML's constructors work on nodes, and
libyaml's composer cannot hand its nodes over without the Python walk.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import yaml

NOT_BUILT: Final = object()
"""`Builder.result()` when the build gave up: the loader composes and constructs the file instead."""

_STR = "tag:yaml.org,2002:str"
_RESOLVE = yaml.resolver.Resolver().resolve
_CTOR = yaml.SafeLoader("")
_SCALARS: dict[str, Callable[[Any, yaml.ScalarNode], Any]] = {
    tag: make for tag, make in yaml.SafeLoader.yaml_constructors.items()
    if tag is not None and tag.rsplit(":", 1)[-1] in ("null", "bool", "int", "float", "timestamp")
}
"""The implicit scalar tags a safe load builds (`~`, `yes`, `0x1f`, `1e3`, `2026-11-21`), with PyYAML's own
constructors; the resolver's other implicit tags (`<<` merge, `=` value) give the build up."""
_CANNOT = (ValueError, KeyError, TypeError, AttributeError, IndexError, OverflowError, yaml.YAMLError)
"""What PyYAML's scalar constructors raise on a value their tag cannot build (the loader names it)."""


class Builder:
    """Fed every event of one document stream in order (`event`); `result()` is then the values, or `NOT_BUILT`."""

    def __init__(self) -> None:
        self._data: Any = None
        self._stack: list[list[Any]] = []
        """One `[container, key, want_key]` per open mapping or sequence, innermost last."""
        self._documents = 0
        self._built = True

    def result(self) -> Any:
        """The values of the stream's document (None for an empty stream), or `NOT_BUILT`."""
        return self._data if self._built and not self._stack else NOT_BUILT

    def event(self, ev: Any) -> None:
        if not self._built:
            return
        kind = ev.__class__
        if kind is yaml.ScalarEvent:
            if ev.tag is not None:
                self._give_up()
                return
            value = ev.value
            if ev.implicit[0]:  # plain: the resolver decides, as the composer would (quoted is always a str)
                tag = _RESOLVE(yaml.ScalarNode, value, ev.implicit)
                if tag != _STR:
                    make = _SCALARS.get(tag)
                    if make is None:
                        self._give_up()
                        return
                    try:
                        value = make(_CTOR, yaml.ScalarNode(tag, value))
                    except _CANNOT:
                        self._give_up()
                        return
            self._add(value)
        elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            if ev.tag is not None:
                self._give_up()
                return
            self._stack.append([{} if kind is yaml.MappingStartEvent else [], None, True])
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            self._add(self._stack.pop()[0])
        elif kind is yaml.AliasEvent:
            self._give_up()
        elif kind is yaml.DocumentStartEvent:
            self._documents += 1
            if self._documents > 1:
                self._give_up()

    def _add(self, value: Any) -> None:
        """A whole value was read: it is the document, an item, a key, or a key's value."""
        if not self._stack:
            self._data = value
            return
        top = self._stack[-1]
        into = top[0]
        if into.__class__ is list:
            into.append(value)
        elif top[2]:
            if value.__class__ is dict or value.__class__ is list or value in into:  # not a scalar, or a duplicate
                self._give_up()
                return
            top[1], top[2] = value, False
        else:
            into[top[1]] = value
            top[2] = True

    def _give_up(self) -> None:
        self._built = False
        self._stack.clear()
        self._data = None
