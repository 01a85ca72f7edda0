"""The phone view: the device screen with the last action drawn on it.

Two renderers behind one widget. `halfcell` (our own, `HalfcellView`) draws
frames shrunk off the event loop and is fast enough for 60 fps; `tgp` (Kitty
graphics) and `sixel` draw the screen at full resolution through textual-image,
so small text on the phone can be read, where the terminal supports them.
The renderer is chosen explicitly (`detect_renderer()` once, before the app
starts, for `auto`); tests pin `halfcell`.

A person at the controls clicks on the phone to tap the device pixel under the
cursor, or drags to swipe: the view posts `PhoneView.Tapped` / `PhoneView.Swiped`.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import Any, Literal

from PIL import Image
from rich.segment import Segment
from textual import events, work
from textual.app import ComposeResult
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from guilens.screens.widgets.halfcell import (
    DEFAULT_CELL,
    Fit,
    HalfcellFrame,
    OverlayColors,
    draw_action,
    fit_image,
    prepare_frame,
)

Renderer = Literal["halfcell", "tgp", "sixel"]
RENDERERS: tuple[str, ...] = ("auto", "halfcell", "tgp", "sixel")


def cell_size() -> tuple[int, int]:
    """The terminal's cell size in pixels, as textual-image measured it before the app started."""
    try:
        from textual_image._terminal import get_cell_size

        size = get_cell_size()
        return int(size.width), int(size.height)
    except Exception:  # no terminal (closed stdout): the default keeps the geometry sane
        return DEFAULT_CELL


def detect_renderer() -> Renderer:
    """The best renderer this terminal supports. Must run before the Textual app starts:
    textual-image asks the terminal at import time, and Textual owns stdin afterwards."""
    try:
        import textual_image.renderable as tir
        import textual_image.widget  # noqa: F401  (caches the cell size)
    except Exception:
        return "halfcell"
    if tir.Image is tir.SixelImage:
        return "sixel"
    if tir.Image is tir.TGPImage:
        return "tgp"
    return "halfcell"


def resolve_renderer(name: str | None) -> Renderer:
    if name in (None, "", "auto"):
        return detect_renderer()
    if name not in RENDERERS:
        raise ValueError(f"unknown renderer {name!r}; choose from {', '.join(RENDERERS)}")
    return name  # type: ignore[return-value]


class HalfcellView(Widget):
    """Hands finished strips to Textual: all the per-pixel work happened in `prepare_frame`."""

    COMPONENT_CLASSES = {"halfcell--placeholder"}
    DEFAULT_CSS = """
    HalfcellView { width: 1fr; height: 1fr; }
    HalfcellView > .halfcell--placeholder { color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.frame: HalfcellFrame | None = None
        self.placeholder = "no screen yet"
        self._lines: dict[int, Strip] = {}
        self._placed: Fit | None = None
        # `Widget.size` looks the widget up in the compositor on every call: too slow per line.
        self._width = 0
        self._height = 0

    def on_resize(self, event: events.Resize) -> None:
        self._width, self._height = event.size
        self._lines.clear()
        self._placed = None

    def set_frame(self, frame: HalfcellFrame | None) -> None:
        self.frame = frame
        self._lines.clear()
        self._placed = None
        self.refresh()

    @property
    def placed(self) -> Fit | None:
        """The frame's geometry, centred in the widget as it is now (for mouse mapping)."""
        if self.frame is None:
            return None
        if self._placed is None:
            fit = self.frame.fit
            self._placed = dataclasses.replace(
                fit,
                box_cols=self._width,
                box_rows=self._height,
                left=max(0, (self._width - fit.cols) // 2),
                top=max(0, (self._height - fit.rows) // 2),
            )
        return self._placed

    def render_line(self, y: int) -> Strip:
        line = self._lines.get(y)
        if line is not None:
            return line
        width = self._width
        fit = self.placed
        if fit is None or self.frame is None:
            if y == self._height // 2 and self.placeholder:
                text = self.placeholder[:width]
                pad = (width - len(text)) // 2
                style = self.get_component_rich_style("halfcell--placeholder")
                return Strip.join([Strip.blank(pad), Strip([Segment(text, style)]), Strip.blank(width - pad - len(text))])
            return Strip.blank(width)
        row = y - fit.top
        if 0 <= row < len(self.frame.strips):
            strip = self.frame.strips[row]
            if fit.left or strip.cell_length != width:
                strip = strip.crop(0, width - fit.left)
                strip = Strip.join([Strip.blank(fit.left), strip, Strip.blank(width - fit.left - strip.cell_length)])
            line = strip
        else:
            line = Strip.blank(width)
        self._lines[y] = line
        return line


@dataclass
class Shown:
    """What the view shows: the full-size screen and the action drawn on it."""

    image: Image.Image | None = None
    action: dict[str, Any] | None = None
    serial: int = 0


class PhoneView(Widget):
    """The device screen, live or replayed, in the renderer chosen at construction."""

    DEFAULT_CSS = """
    PhoneView { width: 1fr; height: 1fr; align: center middle; }
    PhoneView > HalfcellView { width: 1fr; height: 1fr; }
    PhoneView > .fullres { width: auto; height: auto; }
    """

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
        renderer: Renderer = "halfcell",
        *,
        colors: OverlayColors | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.renderer: Renderer = renderer
        self.overlay_colors = colors or OverlayColors()
        self.shown = Shown()
        self._serial_lock = threading.Lock()
        self.box: tuple[int, int] = (0, 0)
        """Cells available to the screen. Read from the runner's thread to pre-shrink frames."""
        self.cell = cell_size()
        self._press: tuple[int, int] | None = None
        self.canvas: HalfcellView | None = None
        self._fullres: Widget | None = None
        self._fullres_fit: Fit | None = None
        self._frame_for: Image.Image | None = None
        """The screen the canvas's current frame was made from (a preparation may be in flight)."""

    def compose(self) -> ComposeResult:
        if self.renderer == "halfcell":
            self.canvas = HalfcellView()
            yield self.canvas
        else:
            from textual_image.widget import SixelImage, TGPImage

            cls = TGPImage if self.renderer == "tgp" else SixelImage
            self._fullres = cls(classes="fullres")
            yield self._fullres

    # -- frames ------------------------------------------------------------------------------
    def _next_serial(self) -> int:
        with self._serial_lock:
            self.shown.serial += 1
            return self.shown.serial

    def show(
        self, image: Image.Image | None, action: dict[str, Any] | None = None, frame: HalfcellFrame | None = None
    ) -> None:
        """Show a new screen. `frame` is the same screen already prepared off the loop for `box`;
        without it (or if the box changed since) the view prepares it in a thread."""
        serial = self._next_serial()
        self.shown.image, self.shown.action = image, action
        if image is None:
            if self.canvas is not None:
                self.canvas.set_frame(None)
            elif self._fullres is not None:
                self._fullres.image = None  # type: ignore[attr-defined]
            return
        if (
            self.canvas is not None
            and frame is not None
            and (frame.fit.box_cols, frame.fit.box_rows) == self.box
            and frame.action == action
        ):
            self._frame_for = image
            self.canvas.set_frame(frame)
            return
        self._prepare(image, action, serial)

    def show_action(self, action: dict[str, Any] | None) -> None:
        """Draw (or clear) the action on the screen already shown."""
        if self.shown.image is None or action == self.shown.action:
            return
        serial = self._next_serial()
        self.shown.action = action
        frame = self.canvas.frame if self.canvas is not None else None
        if (
            frame is not None
            and self._frame_for is self.shown.image
            and (frame.fit.box_cols, frame.fit.box_rows) == self.box
        ):
            self.canvas.set_frame(frame.with_action(action, self.overlay_colors))  # type: ignore[union-attr]
            return
        self._prepare(self.shown.image, action, serial)

    def prepare(self, image: Image.Image, action: dict[str, Any] | None = None) -> HalfcellFrame | None:
        """Prepare a frame for this view, from any thread (the observer calls it on the runner's)."""
        if self.renderer != "halfcell" or self.box[0] <= 0 or self.box[1] <= 0:
            return None
        return prepare_frame(image, self.box, action=action, cell=self.cell, colors=self.overlay_colors)

    @work(thread=True, exclusive=True, group="phone-prepare")
    def _prepare(self, image: Image.Image, action: dict[str, Any] | None, serial: int) -> None:
        if self.renderer == "halfcell":
            frame = self.prepare(image, action)
            if frame is not None and serial == self.shown.serial:
                self.app.call_from_thread(self._set_frame, frame, serial, image)
            return
        scaled, fit = self._fullres_image(image, action)
        if serial == self.shown.serial:
            self.app.call_from_thread(self._set_fullres, scaled, fit, serial)

    def _set_frame(self, frame: HalfcellFrame, serial: int, image: Image.Image) -> None:
        if serial == self.shown.serial and self.canvas is not None:
            self._frame_for = image
            self.canvas.set_frame(frame)

    def _fullres_image(self, image: Image.Image, action: dict[str, Any] | None) -> tuple[Image.Image, Fit]:
        """The screen scaled to the exact pixels of its cells, action drawn at that scale."""
        fit = fit_image(image.size, self.box[0], self.box[1], self.cell)
        w, h = max(1, fit.cols * self.cell[0]), max(1, fit.rows * self.cell[1])
        scaled = image.convert("RGB").resize((w, h), Image.Resampling.LANCZOS)
        return draw_action(scaled, action, (w / image.width, h / image.height), self.overlay_colors), fit

    def _set_fullres(self, image: Image.Image, fit: Fit, serial: int) -> None:
        if serial != self.shown.serial or self._fullres is None:
            return
        self._fullres_fit = fit
        self._fullres.styles.width = fit.cols
        self._fullres.styles.height = fit.rows
        self._fullres.image = image  # type: ignore[attr-defined]

    def on_resize(self, event: events.Resize) -> None:
        size = self.content_region.size
        if (size.width, size.height) == self.box:
            return
        self.box = (size.width, size.height)
        if self.shown.image is not None:
            self._prepare(self.shown.image, self.shown.action, self._next_serial())

    # -- mouse -------------------------------------------------------------------------------
    @property
    def fit(self) -> Fit | None:
        """The screen's geometry within this widget's content area."""
        if self.canvas is not None:
            return self.canvas.placed
        if self._fullres_fit is None or self._fullres is None:
            return None
        fr = self._fullres.region
        cr = self.content_region
        return dataclasses.replace(self._fullres_fit, left=fr.x - cr.x, top=fr.y - cr.y)

    def device_at(self, event: events.MouseEvent) -> tuple[int, int] | None:
        fit = self.fit
        if fit is None:
            return None
        cr = self.content_region
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
        self.border_subtitle = f"{point[0]},{point[1]}" if point else ""
