"""The phone view: the device screen with the last action drawn on it, as pixels, text, or both.

One widget, several rooms behind it:
- the pixels: `HalfcellView` (half cells, any terminal, fast enough for 60 fps)
  or a `GraphicsSurface` drawn at full resolution by the graphics layer in
  terminals that speak Sixel, Kitty graphics or iTerm2 images;
- the text: `TextPhone`, every element of the UI tree written at its place, so
  the phone can be read in tmux, in any terminal and in the browser.

`v` cycles pixels → text → both side by side. The magnifier (`magnifier.py`: `+`/`-`, arrows
to pan) shows a part of the screen at a higher density, by default around the
last action's target; it applies to the pixels and the text alike. Frames are
prepared off the event loop (shrunk, or scaled and encoded for the terminal),
and a frame that is overtaken by a newer one is dropped.

A person at the controls clicks on the phone to tap the device pixel under the
cursor (or the element under it, in the text), or drags to swipe: the view
posts `PhoneView.Tapped` / `PhoneView.Swiped`.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import Any, TypeAlias

from PIL import Image
from textual import events, work
from textual.app import ComposeResult
from textual.message import Message
from textual.reactive import reactive

from guilens.screens.graphics.probe import DEFAULT_CELL
from guilens.screens.graphics.protocols import make_protocol
from guilens.screens.phone_setup import VIEWS, PhoneSetup, View, fixed
from guilens.screens.widgets.graphics_view import GraphicsSurface, encode_screen
from guilens.screens.widgets.halfcell import Fit, HalfcellFrame, OverlayColors, prepare_frame
from guilens.screens.widgets.halfcell_view import HalfcellView
from guilens.screens.widgets.magnifier import Magnifier

Renderer: TypeAlias = PhoneSetup | str
"""What screens hand their phone views: the app's `PhoneSetup`, or a renderer name (`halfcell`,
`sixel`, `tgp`, `iterm`, `text`) for a setup that asks the terminal nothing (tests)."""

__all__ = ["HalfcellView", "PhoneView", "Renderer", "Shown", "cell_size"]

_cell: list[tuple[int, int]] = [DEFAULT_CELL]


def set_cell_size(cell: tuple[int, int]) -> None:
    """Record the terminal's cell size (the launcher probes it before the app starts)."""
    _cell[0] = cell


def cell_size() -> tuple[int, int]:
    return _cell[0]


@dataclass
class Shown:
    """What the view shows: the full-size screen, its UI tree, and the action drawn on it."""

    image: Image.Image | None = None
    action: dict[str, Any] | None = None
    serial: int = 0
    ui_xml: str | None = None


class PhoneView(Magnifier, can_focus=True):
    """The device screen, live or replayed, as the `PhoneSetup` says."""

    DEFAULT_CSS = """
    PhoneView { layout: horizontal; width: 1fr; height: 1fr; }
    PhoneView > #pixels { width: 1fr; height: 1fr; }
    PhoneView > #text { width: 1fr; height: 1fr; display: none; }
    PhoneView.-view-text > #pixels { display: none; }
    PhoneView.-view-text > #text { display: block; }
    PhoneView.-view-both > #text { display: block; border-left: vkey $primary 40%; }
    """

    view: reactive[View] = reactive("pixels", init=False)

    @dataclass
    class Tapped(Message):
        """A click on the phone, at device pixels."""

        phone: PhoneView
        x: int
        y: int

        @property
        def control(self) -> PhoneView:
            return self.phone

    @dataclass
    class Swiped(Message):
        """A drag on the phone, at device pixels."""

        phone: PhoneView
        x1: int
        y1: int
        x2: int
        y2: int

        @property
        def control(self) -> PhoneView:
            return self.phone

    def __init__(
        self,
        setup: PhoneSetup | str = "halfcell",
        *,
        view: View | None = None,
        colors: OverlayColors | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        if isinstance(setup, str):
            setup = fixed(setup, cell=cell_size())
        self.setup = setup
        self.renderer: str = setup.renderer
        self.cell = setup.cell
        self.overlay_colors = colors or OverlayColors()
        self.shown = Shown()
        self._serial_lock = threading.Lock()
        self.box: tuple[int, int] = (0, 0)
        """Cells available to the pixels. Read from the runner's thread to pre-shrink frames."""
        self._text_expected = (0, 0)
        """The text view's size before its first layout (`expect`), for the text made ahead of it."""
        self._press: tuple[int, int] | None = None
        self.canvas: HalfcellView | None = None
        self.surface: GraphicsSurface | None = None
        self.text: Any = None
        self.protocol = (None if self.renderer == "halfcell" else
                         make_protocol(self.renderer, sixel_colors=setup.sixel_colors, sixel_max=setup.sixel_max))
        """The terminal image protocol of a full-resolution view (None for half cells)."""
        self._graphics_fit: Fit | None = None
        self._frame_for: Image.Image | None = None
        """The screen the canvas's current frame was made from (a preparation may be in flight)."""
        self.set_reactive(PhoneView.view, view or setup.view)
        self.set_class(True, f"-view-{self.view}")

    def compose(self) -> ComposeResult:
        if self.renderer == "halfcell":
            self.canvas = HalfcellView(id="pixels")
            yield self.canvas
        else:
            assert self.protocol is not None
            self.surface = GraphicsSurface(self.protocol, id="pixels")
            yield self.surface
        if self.view != "pixels":
            yield self._make_text()

    def _make_text(self) -> Any:
        """The text view, made when a view first shows it: most phone views never do, and mounting
        one (its CSS and component classes) cost a replay's first paint 7 ms, twice."""
        from guilens.screens.widgets.textphone import TextPhone

        self.text = TextPhone(id="text")
        self.text.expect_size(*self._text_expected)
        return self.text

    # -- sizes -------------------------------------------------------------------------------
    @property
    def screen_size(self) -> tuple[int, int]:
        img = self.shown.image
        return img.size if img is not None else (1080, 2400)

    def pixel_cols(self, rows: int) -> int:
        """Columns the pixels take at `rows` rows: the screen's aspect, corrected for the cell's shape."""
        w, h = self.screen_size
        return max(4, round(rows * self.cell[1] * w / (h * self.cell[0])))

    def wanted_width(self, rows: int) -> int:
        """Columns this view wants (borders excluded) at `rows` rows, for its current view."""
        pix = self.pixel_cols(rows)
        text = max(pix, 36)
        if self.view == "pixels":
            return pix
        if self.view == "text":
            return text
        return pix + 1 + text

    def box_for(self, width: int, height: int) -> tuple[int, int]:
        """The cells the pixels get in a content area of `width` x `height`, for the current view:
        all of it, the pixels' columns of it beside the text, or none (text alone)."""
        if self.view == "both":
            return min(max(4, width // 2), self.pixel_cols(height)), height
        return (width, height) if self.view == "pixels" else (0, 0)

    def text_for(self, width: int, height: int) -> tuple[int, int]:
        """The cells the text gets in a content area of `width` x `height`: what the pixels leave, less
        the rule between them (`box_for`), all of it alone, or none."""
        if self.view == "both":
            return max(0, width - self.box_for(width, height)[0] - 1), height
        return (width, height) if self.view == "text" else (0, 0)

    def expect(self, width: int, height: int) -> None:
        """The content area the first layout will give this view, told before that layout (the replay
        knows it from the terminal's size), so the first step's frames and text are made for it on
        other threads and are in the first paint. Without it the text view learnt its size from its
        first resize, which Textual sends after the first paint: that paint showed the text empty and
        the next one, 100 ms later, laid it out on the event loop. A wrong guess is only slower: the
        resize makes both again. The pixels' box is set for half cells only: they alone shrink
        frames for a box ahead of time."""
        if self.renderer == "halfcell":
            self.box = self.box_for(width, height)
        self._text_expected = self.text_for(width, height)
        if self.text is not None:
            self.text.expect_size(*self._text_expected)

    def on_resize(self, event: events.Resize) -> None:
        self._layout_parts()

    def _layout_parts(self) -> None:
        """Split the width between the pixels and the text, and prepare frames for the pixels' part.

        The box is computed from the same rule that sizes the part, not read back from the layout,
        which settles a refresh later: the runner's thread reads `box` to pre-shrink frames."""
        width, height = self.content_region.size
        box = self.box_for(width, height)
        self.query_one("#pixels").styles.width = box[0] if self.view == "both" else "1fr"
        if box == self.box:
            return
        self.box = box
        if self.shown.image is not None and box[0] > 0 and box[1] > 0:
            self._prepare(self.shown.image, self.shown.action, self._next_serial())

    def watch_view(self, old: View, new: View) -> None:
        self.set_class(False, f"-view-{old}")
        self.set_class(True, f"-view-{new}")
        if new != "pixels":
            if self.text is None and (self.canvas is not None or self.surface is not None):  # composed
                self.mount(self._make_text())
            self._show_text()
        self._layout_parts()

    def cycle_view(self) -> View:
        """Pixels → text → both → pixels; returns the new view."""
        self.view = VIEWS[(VIEWS.index(self.view) + 1) % len(VIEWS)]
        return self.view

    # -- frames ------------------------------------------------------------------------------
    def _next_serial(self) -> int:
        with self._serial_lock:
            self.shown.serial += 1
            return self.shown.serial

    def show(
        self,
        image: Image.Image | None,
        action: dict[str, Any] | None = None,
        frame: HalfcellFrame | None = None,
        ui_xml: str | None = None,
        text: Any = None,
    ) -> None:
        """Show a new screen (and its UI tree, for the text view). `frame` is the same screen already
        prepared off the loop for `box`; without it (or if the box changed since) the view prepares it
        in a thread. `text`: its UI tree laid out off the loop (`prepare_text`), used if it still fits."""
        serial = self._next_serial()
        self.shown.image, self.shown.action, self.shown.ui_xml = image, action, ui_xml
        self._show_text(text)
        if image is None:
            if self.canvas is not None:
                self.canvas.set_frame(None)
            elif self.surface is not None:
                self.surface.set_frame(None)
            return
        if (
            self.canvas is not None
            and frame is not None
            and self.viewport is None
            and (frame.fit.box_cols, frame.fit.box_rows) == self.box
            and frame.action == action
        ):
            self._frame_for = image
            self.canvas.set_frame(frame)
            return
        self._prepare(image, action, serial)

    def _show_text(self, prepared: Any = None) -> None:
        if self.text is not None and self.view != "pixels":
            self.text.show(self.shown.ui_xml, self.screen_size, self.shown.action, viewport=self.viewport,
                           prepared=prepared)

    def text_size(self) -> tuple[int, int]:
        """Cells of the text view (0, 0 when it is not shown or not laid out yet)."""
        text = self.text
        if self.view == "pixels":
            return (0, 0)
        if text is None:  # not composed yet: the size `expect` was told, if any
            return self._text_expected
        return text.cells

    def prepare_text(self, ui_xml: str | None, screen_size: tuple[int, int], action: dict[str, Any] | None) -> Any:
        """The text view's layout of a screen for this view as it is now, from any thread (the replay's
        loader lays out the next steps' text as it shrinks their frames); None when no text is shown."""
        cols, rows = self.text_size()
        if cols <= 0 or rows <= 0:
            return None
        from guilens.screens.widgets.textphone import text_frame

        return text_frame(ui_xml, screen_size, cols, rows, self.viewport, action)

    def show_action(self, action: dict[str, Any] | None) -> None:
        """Draw (or clear) the action on the screen already shown."""
        if self.shown.image is None or action == self.shown.action:
            return
        serial = self._next_serial()
        self.shown.action = action
        self._show_text()
        canvas = self.canvas
        frame = canvas.frame if canvas is not None else None
        if (
            canvas is not None
            and frame is not None
            and self._frame_for is self.shown.image
            and (frame.fit.box_cols, frame.fit.box_rows) == self.box
        ):
            canvas.set_frame(frame.with_action(action, self.overlay_colors))
            return
        self._prepare(self.shown.image, action, serial)

    def prepare(self, image: Image.Image, action: dict[str, Any] | None = None) -> HalfcellFrame | None:
        """Prepare a half-cell frame for this view, from any thread (the observer calls it on the runner's)."""
        if self.renderer != "halfcell" or self.box[0] <= 0 or self.box[1] <= 0:
            return None
        return prepare_frame(image, self.box, action=action, cell=self.cell, colors=self.overlay_colors,
                             viewport=self.viewport)

    @work(thread=True, exclusive=True, group="phone-prepare")
    def _prepare(self, image: Image.Image, action: dict[str, Any] | None, serial: int) -> None:
        if self.box[0] <= 0 or self.box[1] <= 0:
            return
        if self.renderer == "halfcell":
            frame = self.prepare(image, action)
            if frame is not None and serial == self.shown.serial:
                self.app.call_from_thread(self._set_frame, frame, serial, image)
            return
        encoded, fit = self.encode(image, action, serial)
        if serial == self.shown.serial:
            self.app.call_from_thread(self._set_encoded, encoded, fit, serial)

    def encode(self, image: Image.Image, action: dict[str, Any] | None, serial: int = 0) -> tuple[Any, Fit]:
        """The screen encoded for the terminal's image protocol at this view's box (`encode_screen`).
        Runs on a worker thread."""
        assert self.protocol is not None
        return encode_screen(self.protocol, image, action, self.box, self.cell, self.viewport,
                             self.overlay_colors, serial)

    def _set_frame(self, frame: HalfcellFrame, serial: int, image: Image.Image) -> None:
        if serial == self.shown.serial and self.canvas is not None:
            self._frame_for = image
            self.canvas.set_frame(frame)

    def _set_encoded(self, encoded: Any, fit: Fit, serial: int) -> None:
        if serial != self.shown.serial or self.surface is None:
            return
        self._graphics_fit = fit
        self.surface.set_frame(encoded)

    # -- the magnifier (`Magnifier`) ---------------------------------------------------------
    def aimed_at(self) -> dict[str, Any] | None:
        return self.shown.action

    def viewport_changed(self) -> None:
        self._show_text()
        if self.shown.image is not None:
            self._prepare(self.shown.image, self.shown.action, self._next_serial())

    # -- mouse -------------------------------------------------------------------------------
    @property
    def fit(self) -> Fit | None:
        """The screen's geometry within the pixels part's content area."""
        if self.canvas is not None:
            return self.canvas.placed
        if self._graphics_fit is None or self.surface is None or self.surface.frame is None:
            return None
        left, top, cols, rows = self.surface.placed or (0, 0, 0, 0)
        return dataclasses.replace(self._graphics_fit, left=left, top=top)

    def device_at(self, event: events.MouseEvent) -> tuple[int, int] | None:
        part = self.canvas if self.canvas is not None else self.surface
        fit = self.fit
        if fit is None or part is None or not part.display or self.view == "text":
            return None
        cr = part.content_region
        return fit.cell_to_device(event.screen_x - cr.x, event.screen_y - cr.y)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        point = self.device_at(event)
        if point is not None and event.button == 1:
            self._press = point
            self.capture_mouse()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        start, self._press = self._press, None
        self.release_mouse()
        if start is None:
            return
        end = self.device_at(event) or start
        fit = self.fit
        # Less than a cell of movement is a tap: a click always wobbles a little.
        moved = fit is not None and (
            abs(end[0] - start[0]) * fit.cols / fit.src_w >= 1 or abs(end[1] - start[1]) * fit.rows / fit.src_h >= 1
        )
        if moved:
            self.post_message(self.Swiped(self, start[0], start[1], end[0], end[1]))
        else:
            self.post_message(self.Tapped(self, start[0], start[1]))
        event.stop()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        point = self.device_at(event)
        if self.zoom <= 1:
            self.retitle(subtitle=f"{point[0]},{point[1]}" if point else "")

    def on_text_phone_tapped(self, event: Any) -> None:
        event.stop()
        self.post_message(self.Tapped(self, int(event.x), int(event.y)))
