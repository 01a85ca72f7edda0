"""The finger gesture that performs a `Scroll` on a touch screen.

A device with no notion of scrolling (a real phone over ADB, where only
`input swipe` exists) performs `Scroll` as this swipe, and the paper formats
whose scroll is a gesture (GUI Odyssey's finger direction) read into `Scroll`
with `content_direction`. One definition keeps the sim, ADB and the parsers in
step: the finger starts at the point (the container a person would touch) and
travels 30% of the screen's height (35% of its width sideways) against the
content's direction, in 400 ms.
"""

from __future__ import annotations

from typing import Any

from guilens.actions.model import OPPOSITE, ActionError, Direction, Swipe, is_direction

TRAVEL = {"vertical": 0.30, "horizontal": 0.35}
"""How far the finger moves, as a share of the screen's height (up/down) or width (left/right)."""
DURATION_MS = 400
_EDGE = 2
"""Keep the stroke this many pixels inside the screen: Android drops touches on its very edge."""


def direction(value: object, what: str = "scroll direction") -> Direction:
    """A direction from a model's or a person's text (`Down`, ` up `), or one clear error."""
    d = str(value).strip().lower()
    if not is_direction(d):
        raise ActionError(f"{what} {value!r} is not up, down, left or right")
    return d


def content_direction(finger: str) -> Direction:
    """The content's direction for a finger's (GUI Odyssey's `SCROLL: UP` is a scroll `down`)."""
    return OPPOSITE[direction(finger)]


def scroll_distance(d: Direction, size: tuple[int, int]) -> int:
    """How far one scroll moves the content, in pixels of a `size` screen."""
    w, h = size
    return round(h * TRAVEL["vertical"]) if d in ("up", "down") else round(w * TRAVEL["horizontal"])


def scroll_gesture(d: Direction, size: tuple[int, int], at: tuple[int, int] | None = None) -> Swipe:
    """The swipe that scrolls `d` on a `size` screen, starting at `at` (default: the screen's centre).

    The finger moves against `d` (up for `down`). When the point is too near the
    edge for the whole stroke, the stroke is moved back so it keeps its length:
    a clamped, shorter stroke would read as a tap.
    """
    w, h = size
    x, y = at if at is not None else (w // 2, h // 2)
    x, y = min(max(x, _EDGE), w - 1 - _EDGE), min(max(y, _EDGE), h - 1 - _EDGE)
    travel = scroll_distance(d, size)
    fx, fy = {"down": (0, -1), "up": (0, 1), "right": (-1, 0), "left": (1, 0)}[d]  # the finger's way
    x2, y2 = x + fx * travel, y + fy * travel
    # Shift the whole stroke back inside the screen when its end would leave it.
    sx = (_EDGE - x2) if x2 < _EDGE else (w - 1 - _EDGE - x2) if x2 > w - 1 - _EDGE else 0
    sy = (_EDGE - y2) if y2 < _EDGE else (h - 1 - _EDGE - y2) if y2 > h - 1 - _EDGE else 0
    x1, y1 = min(max(x + sx, 0), w - 1), min(max(y + sy, 0), h - 1)
    x2, y2 = min(max(x2 + sx, 0), w - 1), min(max(y2 + sy, 0), h - 1)
    return Swipe(x1=x1, y1=y1, x2=x2, y2=y2, duration_ms=DURATION_MS)


def stroke_of(action: dict[str, Any], size: tuple[int, int]) -> dict[str, Any]:
    """A recorded action as something to draw: a scroll becomes the swipe that performs it on a
    `size` screen (so views and the judge's images draw it as an arrow); any other action, or a
    scroll that cannot be read, is returned as it is."""
    if action.get("type") != "scroll":
        return action
    x, y = action.get("x"), action.get("y")
    at = (int(x), int(y)) if isinstance(x, int | float) and isinstance(y, int | float) else None
    try:
        return scroll_gesture(direction(action.get("direction")), size, at).model_dump()
    except ActionError:
        return action
