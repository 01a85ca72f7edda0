"""Turning a phone screenshot into half-cell terminal lines, fast enough for live frames.

Each terminal cell shows two image pixels: the upper one as the foreground of
`▀`, the lower one as the background. textual-image's `HalfcellImage` does the
same, but re-converts the full-size image and builds a `Style` per cell on
every render (about 81 ms for a 1080x2400 frame). Here the frame is shrunk to
the widget's cell size once, off the event loop (the runner's thread calls
`prepare_frame`), adjacent cells of the same colour pair are merged into one
segment, and one `Style` per colour pair is kept in a cache shared by all
frames, so the event loop only hands finished `Strip`s to Textual.

Nothing here depends on a running app: the geometry (`Fit`) also maps mouse
cells back to device pixels, and tests call it directly.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageDraw
from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from guilens.actions import stroke_of

UPPER_HALF = "▀"
DEFAULT_CELL = (10, 20)
"""Cell size in pixels when the terminal does not say: the VT340's, which textual-image assumes too."""

Rgb = tuple[int, int, int]


@dataclass(frozen=True)
class Fit:
    """Where a device screen lands inside a box of terminal cells, and at what scale.

    The image is fitted whole, keeping its aspect ratio (corrected for the cell's
    pixel shape), and centred. `cols x rows` cells hold `cols x 2*rows` image pixels.
    """

    src_w: int
    src_h: int
    box_cols: int
    box_rows: int
    cols: int
    rows: int
    left: int
    top: int
    ox: int = 0
    """Device x of the image's left edge: non-zero when the magnifier shows part of the screen."""
    oy: int = 0

    @property
    def px_size(self) -> tuple[int, int]:
        """Size of the shrunk image: one pixel per half cell."""
        return self.cols, self.rows * 2

    def cell_to_device(self, x: int, y: int, *, lower: bool | None = None) -> tuple[int, int] | None:
        """The device pixel under cell (x, y) of the box: the centre of the cell (or of its
        upper/lower half), or None when the cell is outside the phone."""
        cx, cy = x - self.left, y - self.top
        if not (0 <= cx < self.cols and 0 <= cy < self.rows):
            return None
        fy = cy + (0.5 if lower is None else (0.75 if lower else 0.25))
        dx = min(self.src_w - 1, int((cx + 0.5) * self.src_w / self.cols))
        dy = min(self.src_h - 1, int(fy * self.src_h / self.rows))
        return self.ox + dx, self.oy + dy

    @property
    def scale(self) -> tuple[float, float]:
        """Device pixels to shrunk-image pixels, (x, y)."""
        return self.cols / self.src_w, self.rows * 2 / self.src_h

    def device_to_px(self, x: float, y: float) -> tuple[float, float]:
        """A device pixel in the coordinates of the shrunk image."""
        sx, sy = self.scale
        return (x - self.ox) * sx, (y - self.oy) * sy

    def device_to_cell(self, x: float, y: float) -> tuple[int, int]:
        px, py = self.device_to_px(x, y)
        return self.left + int(px), self.top + int(py / 2)


def fit_image(
    src_size: tuple[int, int], box_cols: int, box_rows: int, cell: tuple[int, int] = DEFAULT_CELL
) -> Fit:
    """Fit a `src_size` screen into `box_cols x box_rows` cells of `cell` pixels each."""
    src_w, src_h = max(1, src_size[0]), max(1, src_size[1])
    box_cols, box_rows = max(0, box_cols), max(0, box_rows)
    cell_w, cell_h = max(1, cell[0]), max(1, cell[1])
    # A half cell is cell_w x cell_h/2 pixels on screen; compare in screen pixels.
    scale = min(box_cols * cell_w / src_w, box_rows * cell_h / src_h) if box_cols and box_rows else 0.0
    cols = min(box_cols, max(1, round(src_w * scale / cell_w))) if scale else 0
    rows = min(box_rows, max(1, round(src_h * scale / cell_h))) if scale else 0
    return Fit(src_w, src_h, box_cols, box_rows, cols, rows, (box_cols - cols) // 2, (box_rows - rows) // 2)


SAMPLES = 4
"""Samples per shrunk pixel along each axis."""


def shrink(img: Image.Image, fit: Fit) -> Image.Image:
    """The screen at one pixel per half cell: the average of a 4x4 grid of samples under each
    pixel. Looks like a box filter on UI screens (text becomes the grey smudge it should) and
    costs a fifth of one, because it reads 16 pixels per output pixel instead of all ~460."""
    if img.mode != "RGB":
        img = img.convert("RGB")
    w, h = fit.px_size
    if w <= 0 or h <= 0:
        return Image.new("RGB", (max(w, 0), max(h, 0)))
    if img.width < w * SAMPLES or img.height < h * SAMPLES:  # a small source: a plain box filter
        return img.resize((w, h), Image.Resampling.BOX)
    return img.resize((w * SAMPLES, h * SAMPLES), Image.Resampling.NEAREST).reduce(SAMPLES)


# -- action overlay -------------------------------------------------------------------------


@dataclass(frozen=True)
class OverlayColors:
    """Colours of the action marks. The app passes its theme's accent and error colours."""

    mark: Rgb = (255, 64, 160)
    ring: Rgb = (255, 255, 255)


def action_points(action: dict[str, Any] | None) -> tuple[str, list[tuple[float, float]]]:
    """(kind, device points) of an action worth drawing: a tap point, a swipe path, or the
    corners of an element's bounds (`{"type": "element", "bounds": [x1, y1, x2, y2]}`)."""
    if not action:
        return "", []
    kind = str(action.get("type", ""))
    if kind == "element" and action.get("bounds"):
        x1, y1, x2, y2 = (float(v) for v in action["bounds"])
        return kind, [(x1, y1), (x2, y2)]
    if kind in ("tap", "long_press") and action.get("x") is not None and action.get("y") is not None:
        return kind, [(float(action["x"]), float(action["y"]))]
    if kind == "swipe":
        return kind, [(float(action["x1"]), float(action["y1"])), (float(action["x2"]), float(action["y2"]))]
    return "", []


def shift_action(action: dict[str, Any] | None, dx: int, dy: int) -> dict[str, Any] | None:
    """The action in the coordinates of a crop of the screen whose top-left is device (dx, dy)."""
    if not action or (dx == 0 and dy == 0):
        return action
    out = dict(action)
    for kx, ky in (("x", "y"), ("x1", "y1"), ("x2", "y2")):
        if out.get(kx) is not None and out.get(ky) is not None:
            out[kx], out[ky] = float(out[kx]) - dx, float(out[ky]) - dy
    if out.get("bounds"):
        x1, y1, x2, y2 = out["bounds"]
        out["bounds"] = [x1 - dx, y1 - dy, x2 - dx, y2 - dy]
    return out


def draw_action(
    img: Image.Image, action: dict[str, Any] | None, scale: tuple[float, float], colors: OverlayColors
) -> Image.Image:
    """A copy of `img` with the action drawn on it; `scale` maps device pixels to `img` pixels (x, y).

    Marks are sized in image pixels with a floor, so they stay visible on a
    50-pixel-wide shrunk phone and are not huge on the full-size one.
    """
    if action and action.get("type") == "scroll":  # drawn as the stroke that performs it, on this screen
        action = stroke_of(action, (round(img.width / scale[0]), round(img.height / scale[1])))
    kind, points = action_points(action)
    if not points:
        return img
    out = img.copy()
    draw = ImageDraw.Draw(out)
    sx, sy = scale
    r = max(1.6, 26 * sx)
    width = max(1, round(8 * sx))
    pts = [(x * sx, y * sy) for x, y in points]
    if kind == "element":
        (x1, y1), (x2, y2) = pts
        draw.rectangle([x1, y1, max(x1, x2 - 1), max(y1, y2 - 1)], outline=colors.mark, width=width)
        return out
    if kind == "swipe":
        (x1, y1), (x2, y2) = pts
        draw.line([(x1, y1), (x2, y2)], fill=colors.mark, width=width)
        draw.ellipse([x1 - r * 0.6, y1 - r * 0.6, x1 + r * 0.6, y1 + r * 0.6], outline=colors.mark, width=width)
        # An arrow head at the end, so the direction reads at a glance.
        ang = math.atan2(y2 - y1, x2 - x1)
        head = max(2.5, 40 * sx)
        for da in (2.6, -2.6):
            draw.line([(x2, y2), (x2 + head * math.cos(ang + da), y2 + head * math.sin(ang + da))],
                      fill=colors.mark, width=width)
        return out
    x, y = pts[0]
    outer = r + max(1.0, 10 * sx)
    draw.ellipse([x - outer, y - outer, x + outer, y + outer], outline=colors.ring, width=width)
    draw.ellipse([x - r, y - r, x + r, y + r], fill=colors.mark)
    if kind == "long_press":
        draw.ellipse([x - outer * 1.5, y - outer * 1.5, x + outer * 1.5, y + outer * 1.5],
                     outline=colors.mark, width=width)
    return out


# -- strips -------------------------------------------------------------------------------------

_STYLES: dict[bytes, Style] = {}
"""One Style per (upper, lower) colour pair, shared by every frame: a UI screen has few colours,
and building a Style is what makes per-cell rendering slow. Filled from any thread; a lost
race only builds an equal Style twice."""
_COLORS: dict[bytes, Color] = {}


def _color(rgb: bytes) -> Color:
    color = _COLORS.get(rgb)
    if color is None:
        color = _COLORS[rgb] = Color.from_rgb(rgb[0], rgb[1], rgb[2])
    return color


def _style(key: bytes) -> Style:
    style = _STYLES.get(key)
    if style is None:
        if len(_STYLES) > 65536:  # a photo-like stream of frames must not grow these without bound
            _STYLES.clear()
            _COLORS.clear()
        # `from_color` skips the parsing `Style(...)` does: three times cheaper.
        style = _STYLES[key] = Style.from_color(_color(key[:3]), _color(key[3:]))
    return style


def build_strips(small: Image.Image) -> list[Strip]:
    """One `Strip` per cell row of a shrunk RGB image; runs of equal cells share one segment."""
    w, h = small.size
    data = small.tobytes()
    stride = w * 3
    strips: list[Strip] = []
    for row in range(h // 2):
        top = row * 2 * stride
        bot = top + stride
        segments: list[Segment] = []
        run_key = b""
        run = 0
        for x in range(0, stride, 3):
            key = data[top + x : top + x + 3] + data[bot + x : bot + x + 3]
            if key == run_key:
                run += 1
                continue
            if run:
                segments.append(Segment(UPPER_HALF * run, _style(run_key)))
            run_key, run = key, 1
        if run:
            segments.append(Segment(UPPER_HALF * run, _style(run_key)))
        strips.append(Strip(segments, w))
    return strips


@dataclass(frozen=True)
class HalfcellFrame:
    """A screen ready for the half-cell view: its geometry, the shrunk image and the lines."""

    fit: Fit
    base: Image.Image
    """The shrunk screen without marks, kept so a new action redraws without shrinking again."""
    strips: list[Strip]
    action: dict[str, Any] | None = None
    colors: OverlayColors = field(default_factory=OverlayColors)

    def with_action(self, action: dict[str, Any] | None, colors: OverlayColors | None = None) -> HalfcellFrame:
        colors = colors or self.colors
        marked = draw_action(self.base, shift_action(action, self.fit.ox, self.fit.oy), self.fit.scale, colors)
        return HalfcellFrame(self.fit, self.base, build_strips(marked), action, colors)


def prepare_frame(
    img: Image.Image,
    box: tuple[int, int],
    *,
    action: dict[str, Any] | None = None,
    cell: tuple[int, int] = DEFAULT_CELL,
    colors: OverlayColors | None = None,
    viewport: tuple[int, int, int, int] | None = None,
) -> HalfcellFrame:
    """Shrink `img` (or the `viewport` part of it, device pixels x1, y1, x2, y2: the magnifier)
    into a `box` of (cols, rows) cells and build its lines; call it off the event loop."""
    colors = colors or OverlayColors()
    ox = oy = 0
    if viewport is not None:
        ox, oy = viewport[0], viewport[1]
        img = img.crop(viewport)
    fit = dataclasses.replace(fit_image(img.size, box[0], box[1], cell), ox=ox, oy=oy)
    base = shrink(img, fit)
    marked = draw_action(base, shift_action(action, ox, oy), fit.scale, colors)
    return HalfcellFrame(fit, base, build_strips(marked), action, colors)
