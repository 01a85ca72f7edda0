"""`{name}` templates in scenario files, and merging setups.

A template names a user slot (filled from the L0 intent, or from the user's
answer at L1/L2) or a value an earlier task of a sequence produced.
"""

from __future__ import annotations

import re
from typing import Any

TEMPLATE = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def fill_text(text: str, values: dict[str, str]) -> str:
    """Replace `{name}` with `values[name]`; unknown names stay as written."""
    return TEMPLATE.sub(lambda m: str(values[m[1]]) if m[1] in values else m[0], text)


def fill_any(obj: Any, values: dict[str, str]) -> Any:
    if isinstance(obj, str):
        return fill_text(obj, values)
    if isinstance(obj, list):
        return [fill_any(x, values) for x in obj]
    if isinstance(obj, dict):
        return {k: fill_any(v, values) for k, v in obj.items()}
    return obj


def strings(obj: Any) -> list[str]:
    """Every string in `obj` (mapping keys too), in order.

    A loop over a stack, not a recursive generator: checking the built-in packs asks this of every task,
    and the generator's frame per value made it 140,000 calls."""
    out: list[str] = []
    todo = [obj]
    while todo:
        x = todo.pop()
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, list):
            todo.extend(reversed(x))
        elif isinstance(x, dict):
            for k, v in reversed(x.items()):
                todo.append(v)
                todo.append(k)
    return out


def deep_merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """`extra` over `base`: mappings merge key by key, anything else is replaced."""
    out = dict(base)
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = v
    return out
