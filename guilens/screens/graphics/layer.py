"""When and where full-resolution images are drawn, around Textual's own screen updates.

Textual knows nothing of images: it writes text cells. A `GraphicsSurface`
reserves cells (it renders them blank) and this layer draws its image over them
at the right moments, inside the same synchronized update as Textual's cells
(`GuilensApp._display` appends what `after_update` returns), so nothing
flickers:

- after any update that rewrote cells of a surface, for protocols whose images
  text erases (Sixel, iTerm2): the image is painted again over those cells;
- when a surface gets a new frame, moves, resizes, or is scrolled: drawn anew;
- when something covers part of a surface (a toast, the command palette) only
  the cell rows nothing covers are drawn, and Kitty placements are cut to them;
- when a surface's screen is not the one shown (a modal, another screen) or the
  surface goes away: Kitty images are deleted (they would stay above the
  modal otherwise); painted protocols need nothing, Textual's repaint erased them.

textual-image instead hides Sixel data inside a widget's last line, which breaks
on partial repaints and on modals, and cannot clip; this layer is the piece of
the phone view no library provides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual._compositor import ChopsUpdate, CompositorUpdate, LayoutUpdate
from textual.geometry import Region

from guilens.screens.graphics.protocols import Encoded, ImageProtocol, Place

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen
    from textual.widget import Widget


@dataclass
class Slot:
    """One surface as the layer tracks it: its protocol, its frame, and what the terminal shows."""

    widget: Widget
    protocol: ImageProtocol
    frame: Encoded | None = None
    drawn: tuple[int, Place] | None = None
    """(frame serial, place) last written to the terminal; None when nothing of it is there."""


class GraphicsUpdate(CompositorUpdate):
    """Textual's update with the images drawn after it, written as one piece."""

    def __init__(self, inner: CompositorUpdate | None, layer: GraphicsLayer, screen: Screen[Any]) -> None:
        self.inner = inner
        self.layer = layer
        self.screen = screen

    def render_segments(self, console: Any) -> str:
        text = self.inner.render_segments(console) if self.inner is not None else ""
        return text + self.layer.after_update(self.screen, self.inner)


def touched_rows(update: CompositorUpdate | None, region: Region) -> bool:
    """Whether `update` wrote any cell inside `region`."""
    if update is None:
        return False
    if isinstance(update, LayoutUpdate):
        return bool(update.region.overlaps(region))
    if isinstance(update, ChopsUpdate):
        x1, x2 = region.x, region.right
        y1, y2 = region.y, region.bottom
        return any(y1 <= y < y2 and sx1 < x2 and sx2 > x1 for y, sx1, sx2 in update.spans)
    return True  # an update of a kind this layer does not know: assume it did


class GraphicsLayer:
    """The images of one app. Surfaces register themselves on mount and leave on unmount."""

    def __init__(self) -> None:
        self.slots: dict[int, Slot] = {}
        self._pending_erase: list[str] = []
        self.frames_drawn = 0
        """Frames written to the terminal (for tests and the benchmark)."""

    # -- surfaces ---------------------------------------------------------------------------
    def add(self, widget: Widget, protocol: ImageProtocol) -> Slot:
        slot = self.slots.get(id(widget))
        if slot is None:
            slot = self.slots[id(widget)] = Slot(widget, protocol)
        return slot

    def remove(self, widget: Widget) -> None:
        slot = self.slots.pop(id(widget), None)
        if slot is not None and slot.drawn is not None:
            erase = slot.protocol.erase()
            if erase:
                self._pending_erase.append(erase)

    def set_frame(self, widget: Widget, frame: Encoded | None) -> None:
        slot = self.slots.get(id(widget))
        if slot is not None:
            slot.frame = frame

    # -- drawing ----------------------------------------------------------------------------
    def place_of(self, slot: Slot, screen: Screen[Any]) -> Place | None:
        """Where the slot's frame goes while `screen` is shown, cut to the rows nothing covers; None
        when it should not be on the terminal at all.

        A surface on a screen under modal screens (a question, a prompt) stays drawn where the
        modals' dialogs leave it uncovered, so the person answering still sees the phone.
        """
        widget, frame = slot.widget, slot.frame
        if frame is None or not widget.is_attached or not widget.display:
            return None
        own = widget.screen
        above = _modals_above(own, screen)
        if above is None:
            return None
        try:
            geometry = own.find_widget(widget)
        except Exception:  # not laid out (yet): nothing to draw
            return None
        region = widget.content_region
        if region.width < frame.cols or region.height < frame.rows:
            return None  # a frame for another size: its replacement is being made
        left = region.x + (region.width - frame.cols) // 2
        top = region.y + (region.height - frame.rows) // 2
        image = Region(left, top, frame.cols, frame.rows)
        visible = image.intersection(geometry.clip)
        if not visible:
            return None
        runs = self._uncovered_runs(own, above, widget, image, visible)
        return Place(left, top, tuple(runs)) if runs else None

    @staticmethod
    def _uncovered_runs(own: Screen[Any], above: list[Screen[Any]], widget: Widget, image: Region,
                        visible: Region) -> list[tuple[int, int]]:
        """Runs of image rows that are on screen and that no widget above this one covers."""
        layers = own._compositor.layers_visible  # per screen row, widgets from the top down
        modal_layers = [m._compositor.layers_visible for m in above]
        x1, x2 = image.x, image.right

        def covered(rows: list[Any], y: int, stop: Widget | None) -> bool:
            for other, cropped, _region in rows[y] if y < len(rows) else ():
                if other is stop:
                    return False
                if (cropped.x < x2 and cropped.right > x1 and other.visible and other is not other.screen
                        and not _is_ancestor(other, widget)):
                    return True
            return False

        runs: list[tuple[int, int]] = []
        start: int | None = None
        for y in range(image.y, image.bottom):
            free = visible.y <= y < visible.bottom
            if free:
                free = not covered(layers, y, widget) and not any(covered(m, y, None) for m in modal_layers)
            row = y - image.y
            if free and start is None:
                start = row
            elif not free and start is not None:
                runs.append((start, row - start))
                start = None
        if start is not None:
            runs.append((start, image.height - start))
        return runs

    def after_update(self, screen: Screen[Any], update: CompositorUpdate | None) -> str:
        """What to write after Textual's `update` of `screen`: images drawn, moved or lifted."""
        out = self._pending_erase
        self._pending_erase = []
        for slot in list(self.slots.values()):
            place = self.place_of(slot, screen)
            if place is None:
                if slot.drawn is not None:
                    if slot.protocol.persistent:
                        out.append(slot.protocol.erase())
                    slot.drawn = None
                continue
            assert slot.frame is not None
            key = (slot.frame.serial, place)
            stale = slot.drawn != key
            if not stale and not slot.protocol.persistent:
                region = Region(place.col, place.row, slot.frame.cols, slot.frame.rows)
                stale = touched_rows(update, region)
            if stale:
                out.append(slot.protocol.draw(slot.frame, place))
                slot.drawn = key
                self.frames_drawn += 1
        return "".join(out)

    def flush(self, app: App[Any]) -> None:
        """Draw what changed now, without waiting for Textual's next update of the screen."""
        try:
            screen = app.screen
        except Exception:
            return
        display = getattr(app, "_display", None)
        if display is not None:
            display(screen, GraphicsUpdate(None, self, screen))

    def clear(self) -> str:
        """Everything persistent this layer put on the terminal, removed (at exit)."""
        out = self._pending_erase
        self._pending_erase = []
        for slot in self.slots.values():
            if slot.drawn is not None and slot.protocol.persistent:
                out.append(slot.protocol.erase())
            slot.drawn = None
        return "".join(out)


def _modals_above(own: Screen[Any], shown: Screen[Any]) -> list[Screen[Any]] | None:
    """The modal screens between `own` and the `shown` screen, when only modals are in between
    (so `own` is still drawn under them); None when `own` is not visible."""
    if own is shown:
        return []
    from textual.screen import ModalScreen

    stack = list(shown.app.screen_stack)
    if own not in stack or shown not in stack:
        return None
    between = stack[stack.index(own) + 1 : stack.index(shown) + 1]
    if not between or not all(isinstance(s, ModalScreen) for s in between):
        return None
    return between


def _is_ancestor(node: Widget, widget: Widget) -> bool:
    parent = widget.parent
    while parent is not None:
        if parent is node:
            return True
        parent = parent.parent
    return False
