"""Values as people mean them: texts ignoring case and spacing, numbers however written, phone
numbers by their digits, and dotted paths into JSON-like state.

Shared by the rule checks and by data flow between the tasks of a sequence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_NUM = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")


def norm(s: Any) -> str:
    """Case- and space-insensitive form of a text (numbers as written without a trailing .0)."""
    return " ".join(num_text(s).split()).casefold()


def num_text(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def numbers_in(v: Any) -> list[float]:
    """Every number written in a value: `$1,234.50 (2 items)` gives [1234.5, 2.0]."""
    if isinstance(v, bool):
        return []
    if isinstance(v, int | float):
        return [float(v)]
    out = []
    for m in _NUM.findall(str(v)):
        try:
            out.append(float(m.replace(",", "")))
        except ValueError:
            continue
    return out


def as_number(v: Any) -> float | None:
    nums = numbers_in(v)
    return nums[0] if nums else None


MISSING: Any = object()
"""What `resolve_path` returns for a path that leads nowhere."""


def resolve_path(root: Any, path: str) -> Any:
    """Follow a dotted path (`notes.notes.0.title`) into JSON-like data; `MISSING` when absent.

    A name applied to a list maps over its items and flattens one level, so
    `messages.text` is every message's text and `threads.messages.text` every
    text of every thread.
    """
    cur = root
    for part in path.split(".") if path else []:
        if isinstance(cur, dict):
            if part not in cur:
                return MISSING
            cur = cur[part]
        elif isinstance(cur, list) and re.fullmatch(r"-?\d+", part):
            i = int(part)
            if not -len(cur) <= i < len(cur):
                return MISSING
            cur = cur[i]
        elif isinstance(cur, list):
            out: list[Any] = []
            for item in cur:
                v = resolve_path(item, part)
                if v is MISSING:
                    continue
                out += v if isinstance(v, list) else [v]
            cur = out
        else:
            return MISSING
    return cur


def resolve_state(state: dict[str, Any], path: str) -> Any:
    """A state path: from an app id (`notes.notes`, read under the sim's `apps`), from a top-level
    key (`screen`, `route.id`), or `phone.` + a top-level key where an app shares its name
    (`phone.clock` is the time, `clock.alarms` the Clock app's alarms)."""
    head, _, rest = path.partition(".")
    if head == "phone":
        return resolve_path(state, rest)
    apps = state.get("apps")
    if isinstance(apps, dict) and head in apps:
        return resolve_path(apps, path)
    return resolve_path(state, path)


def values_equal(a: Any, b: Any, tolerance: float = 0.0) -> bool:
    """Equality the way a person means it: numbers within tolerance, texts ignoring case and spacing."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(b, str) and norm(b) == str(a).lower()) or (
            isinstance(a, str) and norm(a) == str(b).lower())
    pa, pb = _phone(a), _phone(b)
    if pa and pb:
        return pa.endswith(pb) or pb.endswith(pa)
    na, nb = _plain_number(a), _plain_number(b)
    if na is not None and nb is not None:
        return abs(na - nb) <= tolerance + 1e-9
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(values_equal(x, y, tolerance) for x, y in zip(a, b, strict=True))
    return norm(a) == norm(b)


_PHONE = re.compile(r"\+?[\d\s().-]{7,}")


def _phone(v: Any) -> str | None:
    """The digits of a phone number written any way (`+1 415 555 0199`, `(415) 555-0199`), else None."""
    if isinstance(v, str) and _PHONE.fullmatch(v.strip()) and (" " in v or "-" in v or "+" in v or "(" in v):
        d = re.sub(r"\D", "", v)
        return d if len(d) >= 7 else None
    return None


def _plain_number(v: Any) -> float | None:
    """A value that *is* a number (42, 42.5, "42.50", "$42.50"), not a text with one in it."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, str) and re.fullmatch(r"\s*[$€£]?\s*-?[\d,]*\.?\d+\s*", v):
        return as_number(v)
    return None


def filter_items(items: list[Any], where: dict[str, Any]) -> list[Any]:
    return [it for it in items if all(values_equal(resolve_path(it, k), v) for k, v in where.items())]


def as_text(v: Any) -> str:
    if isinstance(v, list):
        return "\n".join(as_text(x) for x in v)
    if isinstance(v, dict):
        return "\n".join(as_text(x) for x in v.values())
    return num_text(v)


def text_contains_all(text: str, parts: Iterable[Any], *, ordered: bool = False) -> bool:
    """Every part occurs in `text` (case- and space-insensitively); in order if `ordered`."""
    hay, pos = norm(text), 0
    for part in parts:
        i = hay.find(norm(part), pos if ordered else 0)
        if i < 0:
            return False
        if ordered:
            pos = i + len(norm(part))
    return True
