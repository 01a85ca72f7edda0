"""An agent may scroll an element by its number or text, as it taps one: the runner resolves it against
the UI tree the agent saw, so a device that only knows pixels (a phone over ADB) can perform it."""

from __future__ import annotations

from guilens.actions import OpenApp, Scroll, Tap
from guilens.device.sim import SimDevice
from guilens.device.uitree import actionable_elements
from guilens.run.resolve import resolve_action


def test_a_scroll_naming_an_element_is_resolved_to_its_centre() -> None:
    sim = SimDevice()
    sim.act(OpenApp(app="Shop"))
    obs = sim.observe()
    assert obs.ui is not None
    elements = actionable_elements(obs.ui)
    k = next(i for i, n in enumerate(elements) if n.scrollable) if any(n.scrollable for n in elements) else 0
    action, target = resolve_action(Scroll(direction="down", element=k), obs)
    assert isinstance(action, Scroll) and action.resolved and action.direction == "down"
    x1, y1, x2, y2 = elements[k].bounds
    assert x1 <= action.x < x2 and y1 <= action.y < y2
    assert target is not None and target["element"] == k and target["bounds"] == [x1, y1, x2, y2]
    # A scroll with no point stays as it is (the device scrolls its main list), as a tap with pixels does.
    bare = Scroll(direction="up")
    assert resolve_action(bare, obs) == (bare, None)
    tap = Tap(x=10, y=300)
    assert resolve_action(tap, obs)[0] == tap
