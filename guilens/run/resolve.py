"""Turning what an agent emitted into an action a device can perform.

Agents may point at elements (`{"type": "tap", "element": 12}`, `tap "Search"`)
rather than pixels. The device only knows pixels, so the runner resolves the
element against the UI tree of the very observation the agent saw, and records
both: the pixels it tapped and the element it meant. Every failure is an
`ActionError` whose message the agent is shown on its next step, so it names
what was wrong in terms the agent can act on.
"""

from __future__ import annotations

from typing import Any

from guilens.actions import LOCATED, ActionError, check_on_screen, parse_action, parse_command
from guilens.device.base import Observation
from guilens.device.uitree import UINode, actionable_elements, clickable_ancestor, find_nodes


def _visible(node: UINode, size: tuple[int, int]) -> tuple[int, int, int, int] | None:
    """The node's bounds clipped to the screen, or None when nothing of it is on screen."""
    w, h = size
    x1, y1, x2, y2 = node.bounds
    x1, y1, x2, y2 = max(0, x1), max(0, y1), min(w, x2), min(h, y2)
    if x2 <= x1 or y2 <= y1:
        return None
    return x1, y1, x2, y2


def _pick_target(root: UINode, selector: str, size: tuple[int, int]) -> UINode:
    hits = find_nodes(root, selector)
    if not hits:
        raise ActionError(f"no element on this screen matches {selector!r}")
    # Prefer a match a person could see and tap; among those, the first in document order.
    for node in hits:
        landing = clickable_ancestor(node)
        if _visible(landing, size) is not None and landing.actionable:
            return landing
    for node in hits:
        if _visible(node, size) is not None:
            return clickable_ancestor(node)
    raise ActionError(f"the element matching {selector!r} is not on screen (scroll to it first)")


def resolve_action(action: Any, obs: Observation) -> tuple[Any, dict[str, Any] | None]:
    """Resolve an element-targeted tap, long press or scroll to pixels; check coordinates are on screen.

    Returns the action to perform and, for a resolved target, what it resolved
    to (`element`, `selector`, `label`, `bounds`) for the step record.
    """
    size = obs.size
    if isinstance(action, LOCATED) and action.names_element:
        root = obs.ui
        if root is None:
            raise ActionError(
                f"{action.type} names an element but this screen has no UI tree; give x and y in pixels"
            )
        if action.element is not None:
            elements = actionable_elements(root)
            if action.element >= len(elements):
                last = f"0-{len(elements) - 1}" if elements else "none"
                raise ActionError(
                    f"element {action.element} does not exist: this screen has {len(elements)} "
                    f"actionable elements ({last})"
                )
            node = elements[action.element]
        else:
            assert action.target is not None
            node = _pick_target(root, action.target, size)
        box = _visible(node, size)
        if box is None:
            raise ActionError(f"element {node.label()!r} is off screen (scroll to it first)")
        x, y = (box[0] + box[2] - 1) // 2, (box[1] + box[3] - 1) // 2
        fields = action.model_dump(exclude={"element", "target", "x", "y"})
        resolved = type(action)(**fields, x=x, y=y)
        target = {
            "element": action.element,
            "selector": action.target,
            "label": node.label(),
            "resource_id": node.resource_id or None,
            "bounds": list(node.bounds),
        }
        return resolved, target
    check_on_screen(action, size[0], size[1])
    if isinstance(action, LOCATED) and (action.target is not None or action.element is not None):
        # Pixels and a selector both given (the oracle resolves its own): tap the pixels, record the selector.
        label = action.target
        bounds = None
        if obs.ui is not None and action.target is not None:
            hits = find_nodes(obs.ui, action.target)
            if hits:
                node = clickable_ancestor(hits[0])
                label, bounds = node.label() or label, list(node.bounds)
        fields = action.model_dump(exclude={"element", "target"})
        target = {"element": action.element, "selector": action.target, "label": label, "bounds": bounds}
        return type(action)(**fields), target
    return action, None


def parse_person_action(text: str, size: tuple[int, int]) -> Any:
    """What a person typed: a command (`tap "Search"`, `type hello`) or a JSON action."""
    s = text.strip()
    if s.startswith("{"):
        return parse_action(s, size)
    return parse_command(s, size)
