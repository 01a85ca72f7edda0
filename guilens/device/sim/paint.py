"""Pixels for the widget kit: the bundled font, text measuring and wrapping, and a tiled canvas.

Rendering speed comes from tiles: a run of text (or a rounded card) drawn on a
known solid background is rendered once into a small RGB image and pasted from
then on, which is ~30x cheaper than asking FreeType again. Everything is drawn
with Pillow's bundled font, so screens are byte-identical on every machine.
"""

from __future__ import annotations

import math
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from guilens.band_history import BandHistory

Rect = tuple[int, int, int, int]
Color = tuple[int, int, int]

_FONTS: dict[int, ImageFont.FreeTypeFont] = {}


def font(size: int) -> ImageFont.FreeTypeFont:
    f = _FONTS.get(size)
    if f is None:
        loaded = ImageFont.load_default(size=size)
        assert isinstance(loaded, ImageFont.FreeTypeFont)  # Pillow >= 10.1 ships a TrueType default
        f = _FONTS[size] = loaded
    return f


# The bundled Aileron face covers ASCII and a little punctuation; everything else is
# drawn through this map (the tree keeps the real text) rather than as empty boxes.
_SUBST = {
    "×": "x", "−": "-", "÷": "/", "–": "-", "—": "-", "•": "·", "★": "*", "☆": "*",
    "€": "EUR", "£": "GBP", "¥": "JPY", "←": "<-", "→": "->", "✓": "v", "\u00a0": " ",
    "\n": " ", "\t": " ",
}
_OK = set(map(chr, range(32, 127))) | set("©«°±´·»‘’“”…‹›⁄™")


@lru_cache(maxsize=4096)
def drawable(s: str) -> str:
    """The text as the bundled font can draw it."""
    if all(ch in _OK for ch in s):
        return s
    out = []
    for ch in s:
        if ch in _OK:
            out.append(ch)
        elif ch in _SUBST:
            out.append(_SUBST[ch])
        else:
            base = "".join(c for c in unicodedata.normalize("NFKD", ch) if c in _OK)
            out.append(base or "?")
    return "".join(out)


@lru_cache(maxsize=8192)
def text_width(s: str, size: int) -> int:
    return int(font(size).getlength(drawable(s)))


def line_height(size: int) -> int:
    asc, desc = font(size).getmetrics()
    return asc + desc


@lru_cache(maxsize=2048)
def wrap(text: str, size: int, width: int, max_lines: int = 0) -> tuple[str, ...]:
    """Greedy word wrap; the last allowed line ends in an ellipsis when text is left over."""
    lines: list[str] = []
    for para in text.split("\n"):
        words = para.split(" ")
        cur = ""
        for w in words:
            cand = w if not cur else f"{cur} {w}"
            if text_width(cand, size) <= width or not cur:
                cur = cand
                while text_width(cur, size) > width and len(cur) > 1:  # one very long word
                    cut = len(cur) - 1
                    while cut > 1 and text_width(cur[:cut], size) > width:
                        cut -= 1
                    lines.append(cur[:cut])
                    cur = cur[cut:]
            else:
                lines.append(cur)
                cur = w
        lines.append(cur)
    if max_lines and len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = ellipsize(lines[-1] + " …", size, width)
    return tuple(lines)


def ellipsize(s: str, size: int, width: int) -> str:
    if text_width(s, size) <= width:
        return s
    while s and text_width(s + "…", size) > width:
        s = s[:-1]
    return s.rstrip() + "…"


class _TileCache:
    """A bounded LRU of pre-rendered RGB tiles; eviction order is deterministic, so output is too.

    Bounded by bytes, not by count: tiles run from a glyph to a whole text block, so 3,000 of them
    held 70 MB by the end of the memory pack, a third of a run's memory. 24 MB keeps what a run
    reuses (the same labels on every screen) at no measured cost in speed (`benchmarks/bench_pack.py`).
    """

    def __init__(self, limit_bytes: int = 24 * 1024 * 1024) -> None:
        self.limit_bytes = limit_bytes
        self.bytes = 0
        self.items: OrderedDict[tuple, Image.Image] = OrderedDict()

    def get(self, key: tuple, make: Callable[[], Image.Image]) -> Image.Image:
        tile = self.items.get(key)
        if tile is None:
            tile = self.items[key] = make()
            self.bytes += _size(tile)
            while self.bytes > self.limit_bytes and len(self.items) > 1:
                _, old = self.items.popitem(last=False)
                self.bytes -= _size(old)
        else:
            self.items.move_to_end(key)
        return tile


def _size(tile: Image.Image) -> int:
    return tile.width * tile.height * len(tile.getbands())


_TILES = _TileCache()


class Canvas:
    """Drawing with an origin offset, so a scroll band can be drawn into a cropped strip.

    Everything drawn on a screen goes through these methods, never through `img`
    directly: each logs itself in the frame's `BandHistory` (`guilens.band_history`)
    over the rows it may touch, with every argument that decides its pixels, so
    the recorder can tell the bands that did not change from the last screen
    without reading them. A canvas over a private image (a cached piece of art)
    has no history and logs nothing.
    """

    def __init__(self, img: Image.Image, ox: int = 0, oy: int = 0, history: BandHistory | None = None,
                 clip: Rect | None = None) -> None:
        self.img = img
        self.d = ImageDraw.Draw(img)
        self.ox = ox
        self.oy = oy
        self.bg: Color | None = None  # the solid colour under the view being painted, when known
        self.history = history
        self.clip: Rect = clip or (ox, oy, ox + img.width, oy + img.height)
        """The rows and columns of the screen this canvas can change (a strip's, or the whole screen)."""
        self._where = (ox, oy, *self.clip)

    def _r(self, r: Rect) -> Rect:
        return (r[0] - self.ox, r[1] - self.oy, r[2] - self.ox, r[3] - self.oy)

    def _log(self, y1: float, y2: float, op: tuple[Any, ...]) -> None:
        """Log `op` over screen rows `y1` to `y2` (widened to whole rows), within the clip."""
        if self.history is not None:
            top, bottom = max(self.clip[1], math.floor(y1)), min(self.clip[3], math.ceil(y2))
            if bottom > top:
                self.history.add(top, bottom, (op, self._where))

    def rect(self, r: Rect, fill: Color | None, outline: Color | None = None, width: int = 2,
             radius: int = 0, bg: Color | None = None) -> None:
        self._log(r[1], r[3], ("rect", r, fill, outline, width, radius, bg))
        x1, y1, x2, y2 = self._r(r)
        if x2 <= x1 or y2 <= y1:
            return
        if radius <= 0:
            self.d.rectangle((x1, y1, x2 - 1, y2 - 1), fill=fill, outline=outline, width=width)
            return
        w, h = x2 - x1, y2 - y1
        if bg is not None and w * h <= 600_000:
            key = ("r", w, h, fill, outline, width, radius, bg)

            def make() -> Image.Image:
                t = Image.new("RGB", (w, h), bg)
                ImageDraw.Draw(t).rounded_rectangle((0, 0, w - 1, h - 1), radius=radius, fill=fill,
                                                    outline=outline, width=width)
                return t

            self.img.paste(_TILES.get(key, make), (x1, y1))
            return
        self.d.rounded_rectangle((x1, y1, x2 - 1, y2 - 1), radius=radius, fill=fill, outline=outline,
                                 width=width)

    def text(self, x: int, y: int, s: str, size: int, fg: Color, bg: Color | None, bold: bool = False) -> None:
        """Draw `s` with its line box's top-left at (x, y)."""
        s = drawable(s)
        if not s.strip():
            return
        h = line_height(size)
        self._log(y, y + h, ("text", x, y, s, size, fg, bg, bold))
        x -= self.ox
        y -= self.oy
        f = font(size)
        w = text_width(s, size) + 2
        stroke = max(1, size // 40) if bold else 0
        if bg is not None:
            def make() -> Image.Image:
                t = Image.new("RGB", (w + 2 * stroke, h), bg)
                ImageDraw.Draw(t).text((stroke, 0), s, font=f, fill=fg, stroke_width=stroke, stroke_fill=fg)
                return t

            self.img.paste(_TILES.get(("t", s, size, fg, bg, stroke), make), (x - stroke, y))
            return

        def make_mask() -> Image.Image:
            t = Image.new("L", (w + 2 * stroke, h), 0)
            ImageDraw.Draw(t).text((stroke, 0), s, font=f, fill=255, stroke_width=stroke, stroke_fill=255)
            return t

        mask = _TILES.get(("m", s, size, stroke), make_mask)
        self.img.paste(fg, (x - stroke, y, x - stroke + mask.width, y + mask.height), mask)

    def line(self, pts: list[tuple[float, float]], fill: Color, width: int) -> None:
        self._log_points(pts, width, ("line", tuple(pts), fill, width))
        self.d.line([(x - self.ox, y - self.oy) for x, y in pts], fill=fill, width=width, joint="curve")

    def ellipse(self, r: Rect, fill: Color | None, outline: Color | None = None, width: int = 2) -> None:
        self._log(r[1] - 1, r[3] + 1, ("ellipse", r, fill, outline, width))
        x1, y1, x2, y2 = self._r(r)
        self.d.ellipse((x1, y1, x2 - 1, y2 - 1), fill=fill, outline=outline, width=width)

    def polygon(self, pts: list[tuple[float, float]], fill: Color) -> None:
        self._log_points(pts, 1, ("polygon", tuple(pts), fill))
        self.d.polygon([(x - self.ox, y - self.oy) for x, y in pts], fill=fill)

    def arc(self, r: Rect, start: float, end: float, fill: Color, width: int) -> None:
        self._log(r[1] - 1, r[3] + 1, ("arc", r, start, end, fill, width))
        x1, y1, x2, y2 = self._r(r)
        self.d.arc((x1, y1, x2 - 1, y2 - 1), start, end, fill=fill, width=width)

    def _log_points(self, pts: list[tuple[float, float]], width: int, op: tuple[Any, ...]) -> None:
        if pts:
            ys = [y for _, y in pts]
            self._log(min(ys) - width - 2, max(ys) + width + 2, op)

    def paste(self, key: Hashable, tile: Image.Image | Color, box: Rect, mask: Image.Image | None = None) -> None:
        """Paste `tile` (an image, or a solid colour through `mask`) at `box` on the screen. `key`
        names what is pasted: equal keys must mean equal pixels (a cached piece of art's key)."""
        self._log(box[1], box[3], ("paste", key, box))
        self.img.paste(tile, self._r(box), mask)

    def dim(self, r: Rect, percent: int) -> None:
        """Darken what is drawn at `r` to `percent` of its brightness (a dialog's scrim)."""
        self._log(r[1], r[3], ("dim", r, percent))
        box = self._r(r)
        region = self.img.crop(box)
        self.img.paste(Image.eval(region, lambda p: p * percent // 100), box[:2])

    def strip(self, r: Rect) -> Canvas:
        """A canvas over a copy of `r`, to draw clipped to it; `put_back` lays it down again."""
        clip = (max(r[0], self.clip[0]), max(r[1], self.clip[1]), min(r[2], self.clip[2]), min(r[3], self.clip[3]))
        return Canvas(self.img.crop(self._r(r)), r[0], r[1], self.history, clip)

    def put_back(self, strip: Canvas) -> None:
        """Lay `strip` (from `strip`) back where it was copied from."""
        self.img.paste(strip.img, (strip.ox - self.ox, strip.oy - self.oy))


def mix(a: Color, b: Color, t: float) -> Color:
    """`a` moved a fraction `t` of the way to `b`."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))
