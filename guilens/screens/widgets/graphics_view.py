"""`GraphicsSurface`: cells reserved for a full-resolution image the graphics layer draws.

The widget itself paints blank cells (so Textual's compositing, borders and
layout work as for any widget) and hands its frame to the app's
`GraphicsLayer`, which draws the image over those cells after each screen
update (see `guilens.screens.graphics.layer`). An app that has no layer (a test
host) shows the blank cells and nothing else.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PIL import Image
from textual.app import App
from textual.strip import Strip
from textual.widget import Widget

from guilens.screens.graphics.layer import GraphicsLayer, GraphicsUpdate
from guilens.screens.graphics.protocols import Encoded, ImageProtocol
from guilens.screens.widgets.halfcell import Fit, OverlayColors, draw_action, fit_image, shift_action


class GraphicsApp(App[Any]):
    """An app whose screen updates carry images: every update Textual writes is followed, in the
    same synchronized write, by what the graphics layer draws."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.graphics = GraphicsLayer()

    def _display(self, screen: Any, renderable: Any) -> None:
        # Textual's private hook, the one place every screen update passes through: wrapping it
        # keeps the images inside Textual's own synchronized update (no flicker, no races).
        from textual._compositor import CompositorUpdate

        wanted = bool(self.graphics.slots or self.graphics._pending_erase)
        if wanted and isinstance(renderable, CompositorUpdate) and not isinstance(renderable, GraphicsUpdate):
            renderable = GraphicsUpdate(renderable, self.graphics, screen)
        super()._display(screen, renderable)

    def _close_graphics(self) -> None:
        """Lift every persistent image off the terminal (Kitty keeps them after the app exits)."""
        seq = self.graphics.clear()
        driver = self._driver
        if seq and driver is not None:
            driver.write(seq)
            driver.flush()

    async def _shutdown(self) -> None:
        self._close_graphics()
        await super()._shutdown()


def layer_of(app: App[Any]) -> GraphicsLayer | None:
    return getattr(app, "graphics", None)


class GraphicsSurface(Widget):
    """Blank cells under a full-resolution image. `set_frame` shows a frame encoded for this size."""

    DEFAULT_CSS = "GraphicsSurface { width: 1fr; height: 1fr; }"

    def __init__(self, protocol: ImageProtocol, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.protocol = protocol
        self.frame: Encoded | None = None
        self._flush_pending = False

    def on_mount(self) -> None:
        layer = layer_of(self.app)
        if layer is not None:
            layer.add(self, self.protocol)

    def on_unmount(self) -> None:
        layer = layer_of(self.app)
        if layer is not None:
            layer.remove(self)
            self._flush()

    def set_frame(self, frame: Encoded | None) -> None:
        self.frame = frame
        layer = layer_of(self.app)
        if layer is None:
            return
        layer.set_frame(self, frame)
        if not self._flush_pending:
            self._flush_pending = True
            self.call_after_refresh(self._flush)

    def _flush(self) -> None:
        self._flush_pending = False
        layer = layer_of(self.app)
        if layer is not None and self.app.is_running:
            layer.flush(self.app)

    @property
    def placed(self) -> tuple[int, int, int, int] | None:
        """(left, top, cols, rows) of the image inside this widget's content, when there is one."""
        if self.frame is None:
            return None
        w, h = self.content_region.size
        return (w - self.frame.cols) // 2, (h - self.frame.rows) // 2, self.frame.cols, self.frame.rows

    def render_line(self, y: int) -> Strip:
        return Strip.blank(self.size.width, self.rich_style)


def encode_screen(protocol: ImageProtocol, image: Image.Image, action: dict[str, Any] | None, box: tuple[int, int],
                  cell: tuple[int, int], viewport: tuple[int, int, int, int] | None, colors: OverlayColors,
                  serial: int = 0) -> tuple[Encoded, Fit]:
    """The screen (or its `viewport`) scaled to the pixels of the cells of `box`, the action drawn at
    that scale, and encoded for the terminal's image protocol; with where it sits in the box. For a
    worker thread: the scaling and the encoding are the expensive part of a frame."""
    ox = oy = 0
    src = image
    if viewport is not None:
        ox, oy = viewport[0], viewport[1]
        src = image.crop(viewport)
    fit = dataclasses.replace(fit_image(src.size, box[0], box[1], cell), ox=ox, oy=oy)
    w, h = protocol.pixel_size(fit.cols, fit.rows, cell, src.width / max(1, src.height))
    scaled = src.convert("RGB").resize((w, h), Image.Resampling.LANCZOS, reducing_gap=1.0)
    scaled = draw_action(scaled, shift_action(action, ox, oy), (w / src.width, h / src.height), colors)
    encoded = protocol.encode(scaled, fit.cols, fit.rows, cell)
    encoded.serial = serial
    return encoded, fit
