"""What the text view of the phone draws: one label per element that shows text, with its marks.

The UI tree (the XML of `uiautomator dump`, from the sim or a real phone) says
what each element reads, where it is and what it can do. This module turns it
into `Label`s: the element's own text (or content-desc, for icons), the number
the agent's element list gives it, the marks it needs (checkbox, field, focus,
selection) and whether it is the last action's target. `textlayout` places the
labels in terminal cells. Nothing here imports Textual: the run screen, the
tmux acceptance test and the benchmark all read the same definitions.

Rules that decide what is drawn, and why:
- Each node contributes only its *own* text, so a container is not drawn over
  its children; a container whose content-desc repeats what its children say
  (Android rows such as "Wi-Fi, Connected") is dropped for the same reason.
- A label inside a tappable parent carries the parent's number (a tap on it
  lands on the parent, as `clickable_ancestor` resolves it), shown once per
  element, on its first label in reading order.
- An actionable element with no text anywhere inside still gets a label (its
  resource-id, dimmed, or just its checkbox), so every number the agent can
  name is on screen; scroll containers are left out, they are not tap targets.
- `visible_labels` is the list a coverage count is measured against, and
  `count_shown` is the count itself (whole, or cut with "…" after at least 12
  characters), written once so the tests and the tmux acceptance agree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntFlag
from typing import Any

from guilens.device.uitree import UINode, actionable_elements, clickable_ancestor

Rect = tuple[int, int, int, int]
MIN_CUT = 12
"""A label cut with "…" counts as shown when at least this many of its characters are."""


class Mark(IntFlag):
    """Style flags of a piece of the text view; the widget maps them to component classes."""

    TEXT = 0
    DESC = 1 << 0
    """The label is a content-desc (an icon's name), not displayed text."""
    SYNTHETIC = 1 << 1
    """No text anywhere: the element is named by its resource-id."""
    CLICKABLE = 1 << 2
    FOCUSED = 1 << 3
    SELECTED = 1 << 4
    CHECKED = 1 << 5
    UNCHECKED = 1 << 6
    EDITABLE = 1 << 7
    TARGET = 1 << 8
    """Part of the last action's target."""
    NUMBER = 1 << 9
    """The element's number in the agent's list."""
    GLYPH = 1 << 10
    """A mark drawn in front of the text (☑, ☐, ✎, ▸, •, or › after a plain number)."""
    POINT = 1 << 11
    """Where the last action touched the screen, when no label is there."""
    DISABLED = 1 << 12


@dataclass(eq=False)
class Label:
    """One element's text, ready to be placed."""

    node: UINode
    text: str
    """The text on one line (whitespace collapsed)."""
    bounds: Rect
    """The node's bounds, clipped to the viewport (device pixels)."""
    flags: Mark
    owner: UINode | None
    """The element a tap on this label lands on, if any."""
    number: str = ""
    """The element's number, on the first label of the element only."""
    glyph: str = ""
    cursor: str = ""
    """Drawn after the text of a focused field."""

    @property
    def counts(self) -> bool:
        """Is it one of the screen's visible text labels (not a name made up from an id)?"""
        return not self.flags & Mark.SYNTHETIC

    @property
    def tap_point(self) -> tuple[int, int]:
        """The device pixel a click on this label taps: its element's centre."""
        return (self.owner or self.node).center


def one_line(text: str) -> str:
    return " ".join(text.split())


def _key(text: str) -> str:
    """Letters and digits only, case-folded: "Wi-Fi, Connected" and "Wi-Fi Connected" compare equal."""
    return re.sub(r"\W+", "", text.casefold())


def _clip(b: Rect, vp: Rect) -> Rect | None:
    x1, y1, x2, y2 = max(b[0], vp[0]), max(b[1], vp[1]), min(b[2], vp[2]), min(b[3], vp[3])
    return (x1, y1, x2, y2) if x2 > x1 and y2 > y1 else None


def check_viewport(viewport: Rect | None, screen_size: tuple[int, int]) -> Rect:
    """The viewport clipped to the screen; the whole screen for None. Raises ValueError when empty."""
    w, h = screen_size
    if w <= 0 or h <= 0:
        raise ValueError(f"screen size {w}x{h} is empty")
    if viewport is None:
        return (0, 0, w, h)
    x1, y1, x2, y2 = (int(v) for v in viewport)
    clipped = (max(0, x1), max(0, y1), min(w, x2), min(h, y2))
    if clipped[2] <= clipped[0] or clipped[3] <= clipped[1]:
        raise ValueError(f"viewport {list(viewport)} has no area on the {w}x{h} screen")
    return clipped


def _tap_target(n: UINode) -> bool:
    """A node a tap means: actionable for reasons other than scrolling."""
    return n.actionable and (n.clickable or n.long_clickable or n.editable or n.checkable)


def _owner(n: UINode) -> UINode | None:
    if _tap_target(n):
        return n
    up = clickable_ancestor(n)
    return up if up is not n and _tap_target(up) else None


def _covered_by_children(node: UINode, text: str) -> bool:
    """Does a container's label only repeat what its descendants say?"""
    if not node.children:
        return False
    inner = _key(" ".join(t for d in node.iter() if d is not node for t in (d.text, d.content_desc) if t))
    key = _key(text)
    return bool(key) and key in inner


def _own_text(node: UINode) -> tuple[str, bool]:
    """The node's own label and whether it is a content-desc."""
    text = one_line(node.text)
    if text:
        return text, False
    return one_line(node.content_desc), True


def collect_labels(root: UINode, viewport: Rect, action: dict[str, Any] | None = None) -> list[Label]:
    """The labels of every element inside `viewport`, numbered and marked, in document order."""
    actionable = actionable_elements(root)
    numbers = {id(n): i for i, n in enumerate(actionable)}
    labels: list[Label] = []
    owners_named: set[int] = set()
    for node in root.iter():
        if node.parent is None or node.area <= 0:
            continue
        bounds = _clip(node.bounds, viewport)
        if bounds is None:
            continue
        text, is_desc = _own_text(node)
        if not text or _covered_by_children(node, text):
            continue
        owner = _owner(node)
        if owner is not None:
            owners_named.add(id(owner))
        labels.append(Label(node, text, bounds, Mark.DESC if is_desc else Mark.TEXT, owner))
    for node in actionable:
        bounds = _clip(node.bounds, viewport)
        if bounds is None or id(node) in owners_named or not _tap_target(node):
            continue
        name = "" if node.checkable else node.short_id
        labels.append(Label(node, name, bounds, Mark.SYNTHETIC, node))
    _mark(labels, numbers)
    if action:
        _mark_target(root, labels, action)
    return labels


def _mark(labels: list[Label], numbers: dict[int, int]) -> None:
    """Flags, numbers and glyphs: the number and glyph go on an element's first label only."""
    seen: set[int] = set()
    for lab in sorted(labels, key=lambda lb: (lb.bounds[1], lb.bounds[0])):
        el = lab.owner or lab.node
        flags = lab.flags
        if lab.owner is not None:
            flags |= Mark.CLICKABLE
        if el.editable or lab.node.editable:
            flags |= Mark.EDITABLE
        if el.focused or lab.node.focused:
            flags |= Mark.FOCUSED
        if el.selected or lab.node.selected:
            flags |= Mark.SELECTED
        if not (el.enabled and lab.node.enabled):
            flags |= Mark.DISABLED
        checkable = el.checkable or lab.node.checkable
        if checkable:
            flags |= Mark.CHECKED if (el.checked or lab.node.checked) else Mark.UNCHECKED
        lab.flags = flags
        if id(el) in seen:
            continue
        seen.add(id(el))
        if id(el) in numbers:
            lab.number = str(numbers[id(el)])
        if checkable:
            lab.glyph = "☑" if flags & Mark.CHECKED else "☐"
        elif flags & Mark.EDITABLE:
            lab.glyph = "✎"
        elif flags & Mark.FOCUSED:
            lab.glyph = "▸"
        elif flags & Mark.SELECTED:
            lab.glyph = "•"
        elif lab.number:
            lab.glyph = "›"  # keeps the number apart from a label that starts with a digit
        if flags & Mark.EDITABLE and flags & Mark.FOCUSED:
            lab.cursor = "▏"


def _contains(b: Rect, x: float, y: float) -> bool:
    return b[0] <= x < b[2] and b[1] <= y < b[3]


def action_point(action: dict[str, Any] | None) -> tuple[int, int] | None:
    """The device point a tap or long press touched."""
    if not action or action.get("type") not in ("tap", "long_press"):
        return None
    x, y = action.get("x"), action.get("y")
    return (int(x), int(y)) if isinstance(x, int | float) and isinstance(y, int | float) else None


def target_rect(root: UINode, action: dict[str, Any] | None) -> Rect | None:
    """The bounds the last action aimed at: the element under a tap, or an element's given bounds."""
    if not action:
        return None
    if action.get("type") == "element":
        b = action.get("bounds")
        if isinstance(b, list | tuple) and len(b) == 4 and all(isinstance(v, int | float) for v in b):
            return (int(b[0]), int(b[1]), int(b[2]), int(b[3]))
        return None
    point = action_point(action)
    if point is None:
        return None
    hit: UINode | None = None
    for n in root.iter():  # the last node in document order is the one drawn on top
        if n.parent is not None and n.area > 0 and _contains(n.bounds, *point):
            hit = n
    if hit is None:
        return None
    owner = _owner(hit)
    if owner is not None:
        return owner.bounds
    # Not a tap target: only a text right under the finger is lit, never a whole container's.
    return hit.bounds if not hit.children and (hit.text or hit.content_desc) else None


def _mark_target(root: UINode, labels: list[Label], action: dict[str, Any]) -> None:
    rect = target_rect(root, action)
    if rect is None:
        return
    area = (rect[2] - rect[0]) * (rect[3] - rect[1])
    for lab in labels:
        cx, cy = lab.node.center
        if _contains(rect, cx, cy) and lab.node.area <= area:
            lab.flags |= Mark.TARGET


def visible_labels(root: UINode, viewport: Rect) -> list[str]:
    """The texts a text view of `viewport` should show: what a coverage figure is measured on."""
    return [lab.text for lab in collect_labels(root, viewport) if lab.counts]


def count_shown(labels: Iterable[str], screen_text: str, min_cut: int = MIN_CUT) -> int:
    """How many `labels` appear in `screen_text` (a terminal capture): whole, or cut with "…"
    after at least `min_cut` characters. Each occurrence is used once, longest labels first,
    so "Shoes" is not found inside an already counted "Running Shoes"."""
    text = screen_text
    shown = 0
    for label in sorted((one_line(x) for x in labels), key=len, reverse=True):
        if not label:
            continue
        at = text.find(label)
        used = len(label)
        if at < 0 and len(label) > min_cut:
            at, used = _find_cut(text, label, min_cut)
        if at >= 0:
            shown += 1
            text = text[:at] + "\0" * used + text[at + used :]
    return shown


def _find_cut(text: str, label: str, min_cut: int) -> tuple[int, int]:
    """An occurrence of a prefix of `label` (at least `min_cut` long) followed by "…"."""
    head = label[:min_cut]
    at = text.find(head)
    while at >= 0:
        k = min_cut
        while k < len(label) and at + k < len(text) and text[at + k] == label[k]:
            k += 1
        if at + k < len(text) and text[at + k] == "…":
            return at, k + 1
        at = text.find(head, at + 1)
    return -1, 0
