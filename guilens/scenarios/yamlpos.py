"""Where a value sits in a scenario file: from a field path to its line and column, and back.

The composed YAML node tree keeps the marks; these walk it by a path of keys
and indexes (`("tasks", 0, "apps")`), so every problem can say where it is.
"""

from __future__ import annotations

import yaml

PathT = tuple[str | int, ...]


def node_at(root: yaml.Node | None, path: PathT) -> tuple[yaml.Node | None, bool]:
    """The YAML node at a path (or its deepest existing ancestor); the flag says whether it was reached."""
    cur = root
    for p in path:
        if isinstance(cur, yaml.MappingNode):
            nxt = next((v for k, v in cur.value if getattr(k, "value", None) == p), None)
        elif isinstance(cur, yaml.SequenceNode) and isinstance(p, int) and 0 <= p < len(cur.value):
            nxt = cur.value[p]
        else:
            nxt = None
        if nxt is None:
            return cur, False
        cur = nxt
    return cur, True


def key_node(root: yaml.Node | None, path: PathT) -> yaml.Node | None:
    """The node of the key itself (for an unknown key), not its value."""
    if not path:
        return root
    parent, ok = node_at(root, path[:-1])
    if ok and isinstance(parent, yaml.MappingNode):
        for k, _ in parent.value:
            if getattr(k, "value", None) == path[-1]:
                return k
    return None


def position(root: yaml.Node | None, path: PathT, *, key: bool = False) -> tuple[int | None, int | None]:
    node = key_node(root, path) if key else None
    if node is None:
        node, _ = node_at(root, path)
    if node is None:
        return None, None
    return node.start_mark.line + 1, node.start_mark.column + 1


def path_at(root: yaml.Node | None, line: int, column: int) -> PathT:
    """The path of the innermost key or value whose text holds a position (0-based line and column),
    for problems that come with a position only (a duplicate key found while building the values)."""
    here = (line, column)
    path: list[str | int] = []
    cur = root

    def holds(node: yaml.Node) -> bool:
        start = (node.start_mark.line, node.start_mark.column)
        end = (node.end_mark.line, node.end_mark.column)
        return start <= here < end or start == here

    while cur is not None:
        nxt: yaml.Node | None = None
        if isinstance(cur, yaml.MappingNode):
            for k, v in cur.value:
                if not isinstance(k, yaml.ScalarNode):
                    continue
                if holds(k):  # the key itself (a duplicate key): its field, and no deeper
                    path.append(k.value)
                    return tuple(path)
                if holds(v):
                    path.append(k.value)
                    nxt = v
                    break
        elif isinstance(cur, yaml.SequenceNode):
            for i, v in enumerate(cur.value):
                if holds(v):
                    path.append(i)
                    nxt = v
                    break
        cur = nxt
    return tuple(path)
