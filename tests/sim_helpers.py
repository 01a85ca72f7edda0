"""Driving the simulated phone the way a reference solution does: find nodes by text or id, tap their centres."""

from __future__ import annotations

from typing import Any

from guilens.actions import KeyPress, LongPress, OpenApp, Swipe, Tap, Type, Wait
from guilens.device.sim import SimDevice
from guilens.device.uitree import UINode, clickable_ancestor, find_nodes


class Driver:
    def __init__(self, dev: SimDevice | None = None, **kw: Any) -> None:
        self.dev = dev or SimDevice(**kw)
        self.log: list[str] = []

    @property
    def ui(self) -> UINode:
        root = self.dev.observe().ui
        assert root is not None
        return root

    def node(self, selector: str) -> UINode:
        """The first node matching `selector` (to read its text or flags)."""
        hits = find_nodes(self.ui, selector)
        assert hits, f"nothing matches {selector!r} on {self.dev.state()['screen']}"
        return hits[0]

    def target(self, selector: str) -> UINode:
        """The node a tap on `selector` lands on, as the runner resolves a `target`."""
        return clickable_ancestor(self.node(selector))

    def has(self, selector: str) -> bool:
        return bool(find_nodes(self.ui, selector))

    def texts(self, rid: str) -> list[str]:
        """Texts of every node with this resource-id suffix, in screen order."""
        return [n.text for n in self.ui.iter() if n.short_id == rid]

    def _do(self, action: Any) -> str:
        out = self.dev.act(action)
        self.log.append(out)
        return out

    def tap(self, selector: str) -> str:
        x, y = self.target(selector).center
        return self._do(Tap(x=x, y=y))

    def long_press(self, selector: str) -> str:
        x, y = self.target(selector).center
        return self._do(LongPress(x=x, y=y))

    def type(self, text: str) -> str:
        return self._do(Type(text=text))

    def key(self, key: str) -> str:
        return self._do(KeyPress(key=key))  # type: ignore[arg-type]

    def open(self, app: str) -> str:
        return self._do(OpenApp(app=app))

    def wait(self, seconds: float) -> str:
        return self._do(Wait(seconds=seconds))

    def swipe_up(self, distance: int = 900) -> str:
        w, h = self.dev.size
        return self._do(Swipe(x1=w // 2, y1=h * 3 // 4, x2=w // 2, y2=h * 3 // 4 - distance))

    def scroll_to(self, selector: str, tries: int = 8) -> UINode:
        for _ in range(tries):
            if self.has(selector):
                return self.target(selector)
            self.swipe_up()
        raise AssertionError(f"{selector!r} never scrolled into view on {self.dev.state()['screen']}")

    def fill(self, field_id: str, text: str) -> None:
        """Focus a field, empty it with its clear button if it has text, and type."""
        self.tap(f"id:{field_id}")
        if self.has(f"id:{field_id}_clear"):
            self.tap(f"id:{field_id}_clear")
        self.type(text)

    def state(self) -> dict[str, Any]:
        return self.dev.state()

    def app(self, short: str) -> dict[str, Any]:
        return self.dev.state()["apps"][short]  # type: ignore[no-any-return]
