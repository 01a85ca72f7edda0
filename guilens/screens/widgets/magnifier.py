"""The phone view's magnifier: a part of the device screen shown larger, moved with the arrows.

Apart from `phone.py`, which had passed 450 lines, because it is about which part of the screen is
shown, not how a frame is made: `+`/`-` change the level, the arrows pan by a quarter of the part in
view, and the part starts around the last action's target. The view beneath (`PhoneView`) tells the
screen's size and the action, and redraws its pixels and text when the part changes.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.reactive import reactive

from guilens.actions import stroke_of
from guilens.screens.widgets.border_titles import BorderTitles
from guilens.screens.widgets.halfcell import action_points

MAX_ZOOM = 6


class Magnifier(BorderTitles):
    """A view of a device screen that can show `1/zoom` of it around `center` (`viewport`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("plus,equals_sign", "zoom(1)", "Magnify", key_display="+", show=False),
        Binding("minus", "zoom(-1)", "Less", key_display="-", show=False),
        Binding("left", "pan(-1,0)", "Pan", show=False),
        Binding("right", "pan(1,0)", "Pan", show=False),
        Binding("up", "pan(0,-1)", "Pan", show=False),
        Binding("down", "pan(0,1)", "Pan", show=False),
    ]

    zoom: reactive[int] = reactive(1, init=False)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.viewport: tuple[int, int, int, int] | None = None
        """The part of the screen shown (device pixels x1, y1, x2, y2) while magnified; None: all of it."""
        self.center: tuple[int, int] | None = None

    # -- what the view beneath tells -----------------------------------------------------------
    @property
    def screen_size(self) -> tuple[int, int]:
        """The device screen's size in pixels."""
        raise NotImplementedError

    def aimed_at(self) -> dict[str, Any] | None:
        """The action whose target the magnifier starts around (None: the screen's middle)."""
        raise NotImplementedError

    def viewport_changed(self) -> None:
        """Redraw for the new `viewport`."""
        raise NotImplementedError

    # -- the magnifier -----------------------------------------------------------------------
    def _target(self) -> tuple[int, int]:
        action = self.aimed_at()
        kind, points = action_points(stroke_of(action, self.screen_size) if action else None)
        if points:
            xs, ys = [p[0] for p in points], [p[1] for p in points]
            return int(sum(xs) / len(xs)), int(sum(ys) / len(ys))
        w, h = self.screen_size
        return w // 2, h // 2

    def magnify(self, level: int, center: tuple[int, int] | None = None) -> None:
        """Show `1/level` of the screen's width and height around `center` (default: the last
        action's target); level 1 shows the whole screen."""
        level = max(1, min(MAX_ZOOM, level))
        if level > 1:
            self.center = center or (self.center if self.zoom > 1 and self.center else self._target())
        self.zoom = level

    def watch_zoom(self, level: int) -> None:
        self._update_viewport()

    def _update_viewport(self) -> None:
        level = self.zoom
        if level <= 1:
            self.viewport = None
            self.retitle(subtitle="")
        else:
            w, h = self.screen_size
            vw, vh = max(1, w // level), max(1, h // level)
            cx, cy = self.center or self._target()
            x1 = min(max(0, cx - vw // 2), w - vw)
            y1 = min(max(0, cy - vh // 2), h - vh)
            self.center = (x1 + vw // 2, y1 + vh // 2)
            self.viewport = (x1, y1, x1 + vw, y1 + vh)
            self.retitle(subtitle=f"×{level} · +/- · arrows pan")
        self.viewport_changed()

    def action_zoom(self, delta: int) -> None:
        self.magnify(self.zoom + delta)

    def action_pan(self, dx: int, dy: int) -> None:
        if self.viewport is None:
            return
        x1, y1, x2, y2 = self.viewport
        cx, cy = self.center or ((x1 + x2) // 2, (y1 + y2) // 2)
        self.center = (cx + dx * (x2 - x1) // 4, cy + dy * (y2 - y1) // 4)
        self._update_viewport()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "pan":
            return self.zoom > 1  # unmagnified, the arrows belong to whatever else wants them
        return True
