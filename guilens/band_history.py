"""`BandHistory`: what a renderer drew over each band of a frame's rows, so a PNG writer can skip the
bands that did not change without reading their pixels (`guilens.png.FrameEncoder`).

Hand-written: Pillow keeps no record of what was drawn where, and a frame's
pixels cannot be compared without reading them, which is the cost this saves.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

BAND_ROWS = 32
"""Rows per band: `FrameEncoder`'s default, and what a renderer's `BandHistory` should use."""


class BandHistory:
    """What a renderer drew over each band of `band_rows` rows of one frame, in drawing order.

    Each entry is a value (a tuple) that fully determines what one drawing
    operation does to the rows it covers, given what was under it: which
    operation, where, with what colours and text, and through what clip. Two
    frames whose entries for a band are equal have the same pixels in that band,
    which is what lets `FrameEncoder` reuse its bytes unseen. A renderer must
    therefore log every operation, over every band it may touch (erring wide is
    safe; erring narrow stores a stale band).

    `seal` ties the history to the frame's pixels (its Pillow core) and hangs it
    on the frame as an attribute, not in `Image.info`: Pillow copies `info` into
    every image made from a frame (a resized copy an agent keeps, a converted
    one), which would then hold the whole frame's pixels alive through the tie.
    `share` hands it to a view of the same pixels (`readonly_view`). A view
    someone drew on (Pillow copies its pixels first) no longer matches, and is
    read whole; a copy, or a pickled frame, has none.
    """

    __slots__ = ("band_rows", "bands", "core")

    def __init__(self, height: int, band_rows: int = BAND_ROWS) -> None:
        self.band_rows = band_rows
        self.bands: list[list[Any]] = [[] for _ in range(-(-height // band_rows))]
        self.core: Any = None

    def add(self, y1: int, y2: int, op: Any) -> None:
        """Log `op` over rows `y1` to `y2` (end excluded); rows outside the frame are ignored."""
        rows = self.band_rows
        for band in self.bands[max(0, y1 // rows) : max(0, -(-y2 // rows))]:
            band.append(op)

    def seal(self, img: Image.Image) -> None:
        """Attach this history to `img`, the frame it describes (drawn, and not to be drawn on again)."""
        self.core = img.im
        setattr(img, _ATTRIBUTE, self)

    @staticmethod
    def of(img: Image.Image) -> BandHistory | None:
        """The history `img` carries, if it still describes its pixels."""
        history = img.__dict__.get(_ATTRIBUTE)
        if isinstance(history, BandHistory) and history.core is not None and img.im is history.core:
            return history
        return None

    @staticmethod
    def share(img: Image.Image, view: Image.Image) -> None:
        """Give `view`, a view of `img`'s pixels, the history `img` carries."""
        history = img.__dict__.get(_ATTRIBUTE)
        if history is not None:
            setattr(view, _ATTRIBUTE, history)


_ATTRIBUTE = "_guilens_band_history"
