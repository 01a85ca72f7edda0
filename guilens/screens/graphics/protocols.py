"""The three image protocols terminals speak, behind one interface.

- `SixelProtocol`: DEC Sixel (xterm `-ti vt340`, mlterm, foot, WezTerm, Windows Terminal, ...).
  The image is painted into the cells, like text: whatever Textual writes over
  those cells afterwards erases it there, so it is drawn again after every
  screen update that touches it. Encoding: `sixel.encode_sixel` (about 15 ms
  for a 450x1000 phone).
- `KittyProtocol`: the Kitty graphics protocol with direct placement (kitty before
  and after Unicode placeholders, Ghostty, WezTerm). The image is transmitted
  once per frame (raw RGB, zlib-compressed) and *placed* at a cell; it stays
  above the text until deleted, so it is placed again only when it moves, and
  deleted when anything covers it. Every command is sent with `q=2`: a reply
  would land in Textual's input as stray keys.
- `ITermProtocol`: iTerm2's inline images (OSC 1337, also WezTerm, mintty,
  Konsole): a PNG painted into the cells, like Sixel.

`encode` runs on a worker thread and does the expensive part once per frame;
`draw` runs on the event loop and only cuts what the layer asks for (rows that
nothing covers). Nothing here imports Textual: `layer.py` decides when and
where to draw.
"""

from __future__ import annotations

import base64
import io
import itertools
import threading
import zlib
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from PIL import Image

SIXEL_BAND = 6
"""Sixel paints 6 pixel rows at a time; images are sized to a multiple of it, so the last band does
not spill into the row below the phone."""


@dataclass(frozen=True)
class Place:
    """Where an encoded frame goes: its top-left cell on the screen, and which of its cell rows
    to draw (`rows`: runs of (first row, count) relative to the image; the rest is covered or
    scrolled away)."""

    col: int
    row: int
    runs: tuple[tuple[int, int], ...]


@dataclass
class Encoded:
    """A frame ready to draw: `cols x rows` cells, `image` exactly the pixels it covers."""

    image: Image.Image
    cols: int
    rows: int
    cell: tuple[int, int]
    data: Any = None
    """The protocol's encoding of the whole image (Sixel text, Kitty chunks, iTerm PNG)."""
    serial: int = 0
    cache: dict[tuple[int, int], str] = field(default_factory=dict)
    """Encodings of row runs, made on demand when part of the image is covered."""

    @property
    def px(self) -> tuple[int, int]:
        return self.image.size


class ImageProtocol(Protocol):
    name: str
    persistent: bool
    """True when an image stays on the terminal until deleted (Kitty), False when it is painted
    into the cells and text erases it (Sixel, iTerm2)."""

    def pixel_size(self, cols: int, rows: int, cell: tuple[int, int], aspect: float) -> tuple[int, int]:
        """The pixel size to scale a frame of `aspect` (w/h) to, to fit `cols x rows` cells."""
        ...

    def encode(self, image: Image.Image, cols: int, rows: int, cell: tuple[int, int]) -> Encoded: ...

    def draw(self, frame: Encoded, place: Place) -> str: ...

    def erase(self) -> str:
        """What removes everything this protocol put on the screen ("" where text does it)."""
        ...


def _move(col: int, row: int) -> str:
    return f"\x1b[{row + 1};{col + 1}H"


SAVE, RESTORE = "\x1b7", "\x1b8"


def fit_pixels(cols: int, rows: int, cell: tuple[int, int], aspect: float, *, max_px: tuple[int, int] | None = None,
               multiple: int = 1) -> tuple[int, int]:
    """The largest `w x h` of `aspect` that fits `cols x rows` cells (and `max_px`), h a multiple of `multiple`."""
    box_w, box_h = max(1, cols * cell[0]), max(1, rows * cell[1])
    if max_px is not None:
        box_w, box_h = min(box_w, max_px[0]), min(box_h, max_px[1])
    w, h = box_w, round(box_w / aspect)
    if h > box_h:
        h, w = box_h, round(box_h * aspect)
    h = max(multiple, h - h % multiple)
    return max(1, min(w, box_w)), h


class SixelProtocol:
    name = "sixel"
    persistent = False

    def __init__(self, *, colors: int | None = None, max_px: tuple[int, int] | None = None) -> None:
        self.colors = max(2, min(256, colors or 256))
        """Colour registers to use: at most 256 (Sixel's usual), fewer if the terminal has fewer."""
        self.max_px = max_px

    def pixel_size(self, cols: int, rows: int, cell: tuple[int, int], aspect: float) -> tuple[int, int]:
        return fit_pixels(cols, rows, cell, aspect, max_px=self.max_px, multiple=SIXEL_BAND)

    def _sixels(self, image: Image.Image) -> str:
        from guilens.screens.graphics.sixel import encode_sixel

        return encode_sixel(image, self.colors)

    def encode(self, image: Image.Image, cols: int, rows: int, cell: tuple[int, int]) -> Encoded:
        return Encoded(image, cols, rows, cell, self._sixels(image))

    def _run(self, frame: Encoded, first: int, count: int) -> str:
        if first == 0 and count >= frame.rows:
            return str(frame.data)
        key = (first, count)
        if key not in frame.cache:
            top = first * frame.cell[1]
            bottom = min(frame.image.height, (first + count) * frame.cell[1])
            bottom = top + (bottom - top) // SIXEL_BAND * SIXEL_BAND
            if bottom <= top:
                return ""
            frame.cache[key] = self._sixels(frame.image.crop((0, top, frame.image.width, bottom)))
        return frame.cache[key]

    def draw(self, frame: Encoded, place: Place) -> str:
        out = [SAVE]
        for first, count in place.runs:
            data = self._run(frame, first, count)
            if data:
                out += [_move(place.col, place.row + first), data]
        out.append(RESTORE)
        return "".join(out)

    def erase(self) -> str:
        return ""


class KittyProtocol:
    name = "tgp"
    persistent = True
    CHUNK = 4096
    Z = 0
    """Above the text, in the plane of the cells. (Below it, `z < 0`, kitty 0.26 blends the window's
    background into every later frame: old text ghosts through and the background tints. What
    covers the phone is handled by the layer, which lifts the image off those rows.)"""

    _ids: ClassVar[itertools.count[int]] = itertools.count(1)
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self) -> None:
        self.shown: int | None = None
        """Image id currently placed, if any."""

    def pixel_size(self, cols: int, rows: int, cell: tuple[int, int], aspect: float) -> tuple[int, int]:
        return fit_pixels(cols, rows, cell, aspect)

    def encode(self, image: Image.Image, cols: int, rows: int, cell: tuple[int, int]) -> Encoded:
        rgb = image.convert("RGB")
        payload = base64.standard_b64encode(zlib.compress(rgb.tobytes(), 1)).decode("ascii")
        with self._lock:
            image_id = 0x47_0000 + next(self._ids) % 0xFFFF  # ids above 24 bits' low range: clear of other apps'
        chunks = [payload[i : i + self.CHUNK] for i in range(0, len(payload), self.CHUNK)] or [""]
        head = f"a=t,q=2,f=24,o=z,s={rgb.width},v={rgb.height},i={image_id}"
        parts = []
        for n, chunk in enumerate(chunks):
            more = 1 if n < len(chunks) - 1 else 0
            keys = f"{head},m={more}" if n == 0 else f"q=2,m={more}"
            parts.append(f"\x1b_G{keys};{chunk}\x1b\\")
        return Encoded(rgb, cols, rows, cell, data=("".join(parts), image_id))

    def draw(self, frame: Encoded, place: Place) -> str:
        transmit, image_id = frame.data
        out = [SAVE]
        if self.shown != image_id:
            out.append(transmit)
        w, h = frame.image.size
        ch = frame.cell[1]
        for n, (first, count) in enumerate(place.runs, 1):
            y = first * ch
            hh = min(h - y, count * ch)
            if hh <= 0:
                continue
            out.append(_move(place.col, place.row + first))
            out.append(f"\x1b_Ga=p,q=2,i={image_id},p={n},x=0,y={y},w={w},h={hh},c={frame.cols},r={count},"
                       f"C=1,z={self.Z}\x1b\\")
        old = self.shown
        if old is not None and old != image_id:
            out.append(f"\x1b_Ga=d,q=2,d=I,i={old}\x1b\\")  # the previous frame, data and all
        elif old == image_id:
            # Same frame, new place: drop the placements beyond the ones just made.
            for n in range(len(place.runs) + 1, len(place.runs) + 8):
                out.append(f"\x1b_Ga=d,q=2,d=i,i={image_id},p={n}\x1b\\")
        self.shown = image_id
        out.append(RESTORE)
        return "".join(out)

    def erase(self) -> str:
        if self.shown is None:
            return ""
        old, self.shown = self.shown, None
        return f"\x1b_Ga=d,q=2,d=I,i={old}\x1b\\"


class ITermProtocol:
    name = "iterm"
    persistent = False

    def pixel_size(self, cols: int, rows: int, cell: tuple[int, int], aspect: float) -> tuple[int, int]:
        return fit_pixels(cols, rows, cell, aspect)

    @staticmethod
    def _file(image: Image.Image, cols: int, rows: int) -> str:
        buf = io.BytesIO()
        image.convert("RGB").save(buf, "PNG", compress_level=1)
        data = buf.getvalue()
        b64 = base64.standard_b64encode(data).decode("ascii")
        return (f"\x1b]1337;File=inline=1;size={len(data)};width={cols};height={rows};"
                f"preserveAspectRatio=0;doNotMoveCursor=1:{b64}\x07")

    def encode(self, image: Image.Image, cols: int, rows: int, cell: tuple[int, int]) -> Encoded:
        return Encoded(image, cols, rows, cell, self._file(image, cols, rows))

    def draw(self, frame: Encoded, place: Place) -> str:
        out = [SAVE]
        for first, count in place.runs:
            if first == 0 and count >= frame.rows:
                data = str(frame.data)
            else:
                key = (first, count)
                if key not in frame.cache:
                    ch = frame.cell[1]
                    part = frame.image.crop((0, first * ch, frame.image.width,
                                             min(frame.image.height, (first + count) * ch)))
                    frame.cache[key] = self._file(part, frame.cols, count)
                data = frame.cache[key]
            out += [_move(place.col, place.row + first), data]
        out.append(RESTORE)
        return "".join(out)

    def erase(self) -> str:
        return ""


def make_protocol(name: str, *, sixel_colors: int | None = None,
                  sixel_max: tuple[int, int] | None = None) -> ImageProtocol:
    if name == "sixel":
        return SixelProtocol(colors=sixel_colors, max_px=sixel_max)
    if name == "tgp":
        return KittyProtocol()
    if name == "iterm":
        return ITermProtocol()
    raise ValueError(f"no image protocol {name!r}")
