"""Which element a recorded tap or swipe touched, and how a reference step names it again.

A reference names elements by id, text or content-desc, never pixels, and the
reference player (`guilens.scenarios.reference.find_target`) finds the
`index`-th visible match, lifts it to what a tap lands on, and taps its centre.
So a selector is right only when, played that way on the very UI tree the
step saw, it taps the node the recorded pixels hit. The tapped node is found
the way the simulated phone dispatches a touch (the topmost tappable view at
the point: the last in document order), and every candidate selector is
checked by playing it on that tree: the one the actor named first (`tap
"id:product_name"` stays `id: product_name`), then the node's own id, text
and description, then its children's. A selector that finds the node first is
preferred over one that needs an `index`.

Swipes are written as the player performs them (from the centre of the screen
or of an element, a share of its height or width) with the share and the
element chosen so the replay moves the same scroll container by the same
distance, or drags a slider to the same value.

Hand-written rather than a library: the rules are those of guilens' own UI
tree, reference player and simulated phone, which no library knows.
"""

from __future__ import annotations

from typing import Any

from guilens.device.uitree import UINode, clickable_ancestor
from guilens.scenarios.checks import select

SEEKBAR = "android.widget.SeekBar"
Spec = dict[str, Any] | str
"""A selector as a scenario file writes it: a bare text, or `{id|text|desc: ..., index: n}`."""


class TargetError(ValueError):
    """No selector finds the touched element again; the message says what was touched."""


def _contains(node: UINode, x: int, y: int) -> bool:
    x1, y1, x2, y2 = node.bounds
    return x1 <= x < x2 and y1 <= y < y2


def _takes(node: UINode, long: bool) -> bool:
    if not node.enabled or node.area <= 0:
        return False
    if long:
        return node.long_clickable or node.clickable
    return node.clickable or node.cls == SEEKBAR


def hit_node(root: UINode, x: int, y: int, *, long: bool = False) -> UINode | None:
    """The node a touch at (x, y) lands on: the last one in document order that takes it (the sim's rule)."""
    best: UINode | None = None
    for node in root.iter():
        if _takes(node, long) and _contains(node, x, y):
            best = node
    return best


def _same(a: UINode | None, b: UINode) -> bool:
    return a is not None and (a is b or (a.bounds == b.bounds and a.resource_id == b.resource_id))


def _kind(spec: Spec) -> tuple[str, str, int]:
    """(selector string as `select` reads it, value, index) of a spec."""
    if isinstance(spec, str):
        return spec, spec, 0
    kind = next(k for k in ("id", "text", "desc") if k in spec)
    return f"{kind}:{spec[kind]}", str(spec[kind]), int(spec.get("index", 0))


def plays_on(root: UINode, spec: Spec, *, long: bool = False) -> UINode | None:
    """The node the reference player's tap for `spec` lands on in `root` (None when it finds nothing)."""
    text, _, idx = _kind(spec)
    nodes = [n for n in select(root, text) if n.area > 0]
    if len(nodes) <= idx:
        return None
    cx, cy = clickable_ancestor(nodes[idx]).center
    return hit_node(root, cx, cy, long=long)


def _spec_of(selector: str) -> Spec:
    kind, sep, value = selector.partition(":")
    if sep and kind in ("id", "text", "desc") and value:
        return {kind: value}
    return {"text": selector} if ":" in selector else selector


def _candidates(node: UINode, named: str | None) -> list[Spec]:
    out: list[Spec] = []
    if named:
        out.append(_spec_of(named))
    for n in node.iter():  # the node itself first, then what it holds, in reading order
        if n.short_id:
            out.append({"id": n.short_id})
        if n.text:
            out.append({"text": n.text} if ":" in n.text else n.text)
        if n.content_desc:
            out.append({"desc": n.content_desc})
    seen: list[Spec] = []
    for c in out:
        if c not in seen:
            seen.append(c)
    return seen


def _indexed(root: UINode, spec: Spec, target: UINode, long: bool) -> Spec | None:
    """`spec` with the `index` at which the player lands on `target`, or None."""
    text, value, _ = _kind(spec)
    nodes = [n for n in select(root, text) if n.area > 0]
    for i, n in enumerate(nodes):
        cx, cy = clickable_ancestor(n).center
        if _same(hit_node(root, cx, cy, long=long), target):
            if i == 0:
                return spec
            base = spec if isinstance(spec, dict) else {"text": value}
            return {**base, "index": i}
    return None


def selector_for(root: UINode, target: UINode, named: str | None = None, *, long: bool = False) -> Spec:
    """A selector the player plays as a touch on `target`; first-match selectors win over indexed ones."""
    candidates = _candidates(target, named)
    for spec in candidates:
        if _same(plays_on(root, spec, long=long), target):
            return spec
    for spec in candidates:
        found = _indexed(root, spec, target, long)
        if found is not None:
            return found
    raise TargetError(f"no id, text or description finds {target.label()!r} {list(target.bounds)} again")


def touched(root: UINode, x: int, y: int, *, long: bool = False) -> UINode:
    node = hit_node(root, x, y, long=long)
    if node is None:
        raise TargetError(f"nothing at ({x}, {y}) takes a {'long press' if long else 'tap'}")
    return node


# --- swipes ---------------------------------------------------------------------------------------


def _scroller_at(root: UINode, x: int, y: int) -> UINode | None:
    """The innermost scrolling container under (x, y) (the sim scrolls the one the finger starts on)."""
    best: UINode | None = None
    for node in root.iter():
        if node.scrollable and _contains(node, x, y):
            best = node
    return best


def _player_start(box: tuple[int, int, int, int], direction: str, distance: float) -> tuple[int, int]:
    """Where the reference player puts the finger down (`ReferencePlayer._swipe`)."""
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
    dx, dy = round((x2 - x1) * distance / 2), round((y2 - y1) * distance / 2)
    return {"up": (cx, cy + dy), "down": (cx, cy - dy), "left": (cx + dx, cy), "right": (cx - dx, cy)}[direction]


def _swipe_spec(direction: str, distance: float, within: Spec | None = None) -> dict[str, Any]:
    distance = round(min(0.9, distance), 6)
    if within is None and abs(distance - 0.3) < 1e-9:
        return {"swipe": direction}
    spec: dict[str, Any] = {"direction": direction}
    if within is not None:
        spec["within"] = within
    spec["distance"] = distance
    return {"swipe": spec}


def swipe_step(a: dict[str, Any], root: UINode | None, size: tuple[int, int]) -> dict[str, Any]:
    """The reference step that moves the phone as the recorded swipe did (see the module docstring)."""
    x1, y1, x2, y2 = (int(a[k]) for k in ("x1", "y1", "x2", "y2"))
    dx, dy = x2 - x1, y2 - y1
    w, h = size
    screen = (0, 0, w, h)
    if abs(dx) < 24 and abs(dy) < 24:  # the phone takes it as a tap where the finger went down
        if root is None:
            raise TargetError(f"a swipe of a few pixels at ({x1}, {y1}) is a tap, and there is no UI tree to name it")
        node = touched(root, x1, y1)
        return {"tap": selector_for(root, node)}
    if abs(dy) >= abs(dx):
        direction = "up" if dy < 0 else "down"
        scroller = _scroller_at(root, x1, y1) if root is not None else None
        dist = abs(dy) / h
        if root is None or _same_or_none(_scroller_at(root, *_player_start(screen, direction, min(0.9, dist))), scroller):
            return _swipe_spec(direction, dist)
        if scroller is None:  # nothing scrolls where the finger went down: the phone did nothing either
            return _swipe_spec(direction, dist)
        within = selector_for_container(root, scroller)
        share = abs(dy) / max(1, scroller.bounds[3] - scroller.bounds[1])
        if not _same_or_none(_scroller_at(root, *_player_start(scroller.bounds, direction, min(0.9, share))), scroller):
            raise TargetError(f"a swipe inside {scroller.label()!r} cannot be replayed from its centre")
        return _swipe_spec(direction, share, within)
    direction = "left" if dx < 0 else "right"
    bar = hit_node(root, x1, y1) if root is not None else None
    if root is not None and bar is not None and bar.cls == SEEKBAR:
        # The slider takes the value under the finger's end: start on the far side of its centre, end at x2.
        bx1, _, bx2, _ = bar.bounds
        cx = (bx1 + bx2) // 2
        dist = 2 * abs(x2 - cx) / max(1, bx2 - bx1)
        if dist <= 0:
            return {"tap": selector_for(root, bar)}
        return _swipe_spec("right" if x2 > cx else "left", dist, selector_for(root, bar))
    return _swipe_spec(direction, abs(dx) / w)


def _same_or_none(a: UINode | None, b: UINode | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return _same(a, b)


def selector_for_container(root: UINode, node: UINode) -> Spec:
    """A selector whose first match is `node` itself (a scroll container is named, not tapped)."""
    for spec in _candidates(node, None):
        text, _, _ = _kind(spec)
        hits = [n for n in select(root, text) if n.area > 0]
        for i, hit in enumerate(hits):
            if hit is node and clickable_ancestor(hit) is node:
                return spec if i == 0 else {**(spec if isinstance(spec, dict) else {"text": spec}), "index": i}
    raise TargetError(f"the scrolled container {node.label()!r} {list(node.bounds)} has no id or text to name it")
