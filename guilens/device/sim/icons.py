"""Icons drawn with shapes, so they render the same everywhere and need no image files.

Each icon is `draw(canvas, rect, color)` and fits itself into `rect`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from guilens.device.sim.kit import Canvas, Color, Rect, View

if TYPE_CHECKING:
    from PIL import Image

Icon = Callable[[Canvas, Rect, Color], None]


def tinted(icon: Icon, col: Color) -> Callable[[Canvas, Rect], None]:
    """`icon` fixed in one colour, as a row's `lead` drawing.

    A closure over its arguments binds a loop's icon when it is made, which a lambda
    does only through a default argument, and mypy cannot type such a lambda.
    """
    return lambda c, r: icon(c, r, col)


def _box(r: Rect) -> tuple[float, float, float]:
    x1, y1, x2, y2 = r
    s = min(x2 - x1, y2 - y1)
    return (x1 + x2) / 2, (y1 + y2) / 2, s


def _w(s: float) -> int:
    return max(2, round(s / 11))


def back(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    h = s * 0.36
    c.line([(cx + h, cy), (cx - h, cy)], col, _w(s))
    c.line([(cx - h * 0.1, cy - h * 0.95), (cx - h, cy), (cx - h * 0.1, cy + h * 0.95)], col, _w(s))


def chevron(direction: str) -> Icon:
    def draw(c: Canvas, r: Rect, col: Color) -> None:
        cx, cy, s = _box(r)
        h = s * 0.22
        sign = -1 if direction == "left" else 1
        c.line([(cx - sign * h, cy - 2 * h), (cx + sign * h, cy), (cx - sign * h, cy + 2 * h)], col, _w(s))

    return draw


def plus(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    h = s * 0.34
    c.line([(cx - h, cy), (cx + h, cy)], col, _w(s))
    c.line([(cx, cy - h), (cx, cy + h)], col, _w(s))


def minus(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    c.line([(cx - s * 0.3, cy), (cx + s * 0.3, cy)], col, _w(s))


def close(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    h = s * 0.28
    c.line([(cx - h, cy - h), (cx + h, cy + h)], col, _w(s))
    c.line([(cx - h, cy + h), (cx + h, cy - h)], col, _w(s))


def check(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    h = s * 0.3
    c.line([(cx - h, cy), (cx - h * 0.3, cy + h * 0.7), (cx + h, cy - h * 0.7)], col, _w(s))


def search(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    rr = s * 0.24
    ox, oy = cx - s * 0.08, cy - s * 0.08
    c.ellipse((round(ox - rr), round(oy - rr), round(ox + rr), round(oy + rr)), None, col, _w(s))
    c.line([(ox + rr * 0.7, oy + rr * 0.7), (cx + s * 0.34, cy + s * 0.34)], col, _w(s) + 1)


def star(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    pts = []
    for i in range(10):
        rad = s * (0.48 if i % 2 == 0 else 0.2)
        a = -math.pi / 2 + i * math.pi / 5
        pts.append((cx + rad * math.cos(a), cy + rad * math.sin(a)))
    c.polygon(pts, col)


def cart(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    w = _w(s)
    c.line([(cx - s * 0.42, cy - s * 0.3), (cx - s * 0.28, cy - s * 0.3), (cx - s * 0.16, cy + s * 0.12),
            (cx + s * 0.3, cy + s * 0.12), (cx + s * 0.38, cy - s * 0.18), (cx - s * 0.24, cy - s * 0.18)], col, w)
    for dx in (-0.1, 0.22):
        x, y, q = cx + s * dx, cy + s * 0.3, s * 0.07
        c.ellipse((round(x - q), round(y - q), round(x + q), round(y + q)), col)


def trash(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    w = _w(s)
    c.line([(cx - s * 0.32, cy - s * 0.24), (cx + s * 0.32, cy - s * 0.24)], col, w)
    c.line([(cx - s * 0.1, cy - s * 0.34), (cx + s * 0.1, cy - s * 0.34)], col, w)
    c.line([(cx - s * 0.24, cy - s * 0.2), (cx - s * 0.18, cy + s * 0.36), (cx + s * 0.18, cy + s * 0.36),
            (cx + s * 0.24, cy - s * 0.2)], col, w)


def send(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    c.polygon([(cx - s * 0.36, cy - s * 0.34), (cx + s * 0.4, cy), (cx - s * 0.36, cy + s * 0.34),
               (cx - s * 0.24, cy)], col)


def more(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    q = s * 0.06
    for dy in (-0.25, 0, 0.25):
        y = cy + s * dy
        c.ellipse((round(cx - q), round(y - q), round(cx + q), round(y + q)), col)


def pencil(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    c.line([(cx - s * 0.3, cy + s * 0.3), (cx + s * 0.25, cy - s * 0.25)], col, _w(s) * 2)
    c.polygon([(cx - s * 0.38, cy + s * 0.38), (cx - s * 0.34, cy + s * 0.2), (cx - s * 0.2, cy + s * 0.34)], col)


def clock(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    rr = s * 0.38
    c.ellipse((round(cx - rr), round(cy - rr), round(cx + rr), round(cy + rr)), None, col, _w(s))
    c.line([(cx, cy - rr * 0.6), (cx, cy), (cx + rr * 0.45, cy + rr * 0.3)], col, _w(s))


def bell(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    c.polygon([(cx - s * 0.3, cy + s * 0.2), (cx - s * 0.22, cy - s * 0.2), (cx, cy - s * 0.34),
               (cx + s * 0.22, cy - s * 0.2), (cx + s * 0.3, cy + s * 0.2)], col)
    q = s * 0.08
    c.ellipse((round(cx - q), round(cy + s * 0.22), round(cx + q), round(cy + s * 0.22 + 2 * q)), col)


def person(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    q = s * 0.17
    c.ellipse((round(cx - q), round(cy - s * 0.36), round(cx + q), round(cy - s * 0.36 + 2 * q)), col)
    c.ellipse((round(cx - s * 0.34), round(cy + s * 0.02), round(cx + s * 0.34), round(cy + s * 0.6)), col)


def bubble(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    c.rect((round(cx - s * 0.38), round(cy - s * 0.3), round(cx + s * 0.38), round(cy + s * 0.2)), col,
           radius=round(s * 0.12))
    c.polygon([(cx - s * 0.2, cy + s * 0.15), (cx - s * 0.26, cy + s * 0.4), (cx, cy + s * 0.15)], col)


def phone(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    rr = s * 0.34
    box = (round(cx - rr), round(cy - rr), round(cx + rr), round(cy + rr))
    c.arc(box, 100, 170, col, _w(s) * 2)
    for a in (92, 178):
        x = cx + rr * math.cos(math.radians(a))
        y = cy + rr * math.sin(math.radians(a))
        q = s * 0.12
        c.ellipse((round(x - q), round(y - q), round(x + q), round(y + q)), col)


def pin(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    q = s * 0.26
    c.ellipse((round(cx - q), round(cy - s * 0.4), round(cx + q), round(cy - s * 0.4 + 2 * q)), col)
    c.polygon([(cx - q * 0.9, cy - s * 0.06), (cx, cy + s * 0.42), (cx + q * 0.9, cy - s * 0.06)], col)


def gear(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    for i in range(8):
        a = i * math.pi / 4
        c.line([(cx, cy), (cx + s * 0.4 * math.cos(a), cy + s * 0.4 * math.sin(a))], col, _w(s) * 2)
    q = s * 0.28
    c.ellipse((round(cx - q), round(cy - q), round(cx + q), round(cy + q)), col)


def note(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    c.rect((round(cx - s * 0.3), round(cy - s * 0.38), round(cx + s * 0.3), round(cy + s * 0.38)), None, col,
           width=_w(s), radius=round(s * 0.06))
    for dy in (-0.16, 0.02, 0.2):
        c.line([(cx - s * 0.16, cy + s * dy), (cx + s * 0.16, cy + s * dy)], col, _w(s))


def calendar(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    c.rect((round(cx - s * 0.36), round(cy - s * 0.3), round(cx + s * 0.36), round(cy + s * 0.36)), None, col,
           width=_w(s), radius=round(s * 0.06))
    c.line([(cx - s * 0.36, cy - s * 0.12), (cx + s * 0.36, cy - s * 0.12)], col, _w(s))
    for dx in (-0.18, 0.18):
        c.line([(cx + s * dx, cy - s * 0.4), (cx + s * dx, cy - s * 0.22)], col, _w(s))


def grid(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    q = s * 0.13
    for dx in (-0.2, 0, 0.2):
        for dy in (-0.22, 0, 0.22):
            x, y = cx + s * dx, cy + s * dy
            c.rect((round(x - q * 0.7), round(y - q * 0.6), round(x + q * 0.7), round(y + q * 0.6)), col)


def wallet(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    c.rect((round(cx - s * 0.38), round(cy - s * 0.26), round(cx + s * 0.38), round(cy + s * 0.3)), None, col,
           width=_w(s), radius=round(s * 0.08))
    c.rect((round(cx + s * 0.08), round(cy - s * 0.06), round(cx + s * 0.38), round(cy + s * 0.12)), col)


def globe(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    rr = s * 0.38
    c.ellipse((round(cx - rr), round(cy - rr), round(cx + rr), round(cy + rr)), None, col, _w(s))
    c.ellipse((round(cx - rr * 0.45), round(cy - rr), round(cx + rr * 0.45), round(cy + rr)), None, col, _w(s))
    c.line([(cx - rr, cy), (cx + rr, cy)], col, _w(s))


def car(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    c.rect((round(cx - s * 0.4), round(cy - s * 0.06), round(cx + s * 0.4), round(cy + s * 0.22)), col,
           radius=round(s * 0.06))
    c.polygon([(cx - s * 0.26, cy - s * 0.06), (cx - s * 0.16, cy - s * 0.28), (cx + s * 0.16, cy - s * 0.28),
               (cx + s * 0.26, cy - s * 0.06)], col)
    for dx in (-0.22, 0.22):
        q = s * 0.09
        x, y = cx + s * dx, cy + s * 0.24
        c.ellipse((round(x - q), round(y - q), round(x + q), round(y + q)), col)


def bus(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    c.rect((round(cx - s * 0.3), round(cy - s * 0.36), round(cx + s * 0.3), round(cy + s * 0.28)), col,
           radius=round(s * 0.08))
    for dx in (-0.18, 0.18):
        q = s * 0.08
        x, y = cx + s * dx, cy + s * 0.32
        c.ellipse((round(x - q), round(y - q), round(x + q), round(y + q)), col)


def walk(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    q = s * 0.09
    c.ellipse((round(cx - q), round(cy - s * 0.42), round(cx + q), round(cy - s * 0.42 + 2 * q)), col)
    w = _w(s)
    c.line([(cx, cy - s * 0.2), (cx - s * 0.04, cy + s * 0.1)], col, w + 1)
    c.line([(cx - s * 0.04, cy + s * 0.1), (cx - s * 0.18, cy + s * 0.4)], col, w)
    c.line([(cx - s * 0.04, cy + s * 0.1), (cx + s * 0.14, cy + s * 0.4)], col, w)
    c.line([(cx - s * 0.2, cy - s * 0.04), (cx, cy - s * 0.16), (cx + s * 0.18, cy)], col, w)


def wifi(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    for k in (0.42, 0.28, 0.14):
        rr = s * k
        c.arc((round(cx - rr), round(cy + s * 0.3 - rr), round(cx + rr), round(cy + s * 0.3 + rr)), 225, 315,
              col, _w(s))
    q = s * 0.05
    c.ellipse((round(cx - q), round(cy + s * 0.26), round(cx + q), round(cy + s * 0.26 + 2 * q)), col)


def bluetooth(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    h = s * 0.38
    c.line([(cx - h * 0.5, cy - h * 0.45), (cx + h * 0.5, cy + h * 0.45), (cx, cy + h), (cx, cy - h),
            (cx + h * 0.5, cy - h * 0.45), (cx - h * 0.5, cy + h * 0.45)], col, _w(s))


_MOON: dict[int, Image.Image] = {}


def moon(c: Canvas, r: Rect, col: Color) -> None:
    """A crescent: a disc with an offset disc cut out of it (as a cached mask)."""
    from PIL import Image, ImageDraw

    cx, cy, s = _box(r)
    n = max(8, round(s * 0.8))
    mask = _MOON.get(n)
    if mask is None:
        m = Image.new("L", (n, n), 0)
        dm = ImageDraw.Draw(m)
        dm.ellipse((0, 0, n - 1, n - 1), fill=255)
        k = n * 0.42
        dm.ellipse((k, -n * 0.22, k + n * 0.85, n * 0.63), fill=0)
        mask = _MOON[n] = m
    x, y = round(cx - n / 2), round(cy - n / 2)
    c.paste(("moon", n, col), col, (x, y, x + n, y + n), mask)


def plane(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    c.line([(cx, cy - s * 0.4), (cx, cy + s * 0.34)], col, _w(s) + 2)
    c.polygon([(cx - s * 0.38, cy + s * 0.06), (cx, cy - s * 0.14), (cx + s * 0.38, cy + s * 0.06)], col)
    c.polygon([(cx - s * 0.16, cy + s * 0.38), (cx, cy + s * 0.26), (cx + s * 0.16, cy + s * 0.38)], col)


def sun(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    for i in range(8):
        a = i * math.pi / 4
        c.line([(cx + s * 0.26 * math.cos(a), cy + s * 0.26 * math.sin(a)),
                (cx + s * 0.42 * math.cos(a), cy + s * 0.42 * math.sin(a))], col, _w(s))
    q = s * 0.18
    c.ellipse((round(cx - q), round(cy - q), round(cx + q), round(cy + q)), col)


def language(c: Canvas, r: Rect, col: Color) -> None:
    globe(c, r, col)


def filters(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    for dy, k in ((-0.22, 0.38), (0, 0.26), (0.22, 0.14)):
        c.line([(cx - s * k, cy + s * dy), (cx + s * k, cy + s * dy)], col, _w(s))


def sort(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    for dy, k in ((-0.22, 0.14), (0, 0.26), (0.22, 0.38)):
        c.line([(cx - s * 0.38, cy + s * dy), (cx - s * 0.38 + 2 * s * k, cy + s * dy)], col, _w(s))


def history(c: Canvas, r: Rect, col: Color) -> None:
    clock(c, r, col)


def calculator(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    c.rect((round(cx - s * 0.3), round(cy - s * 0.38), round(cx + s * 0.3), round(cy + s * 0.38)), None, col,
           width=_w(s), radius=round(s * 0.06))
    c.rect((round(cx - s * 0.18), round(cy - s * 0.26), round(cx + s * 0.18), round(cy - s * 0.1)), col)
    q = s * 0.05
    for dx in (-0.14, 0, 0.14):
        for dy in (0.06, 0.22):
            x, y = cx + s * dx, cy + s * dy
            c.ellipse((round(x - q), round(y - q), round(x + q), round(y + q)), col)


def bag(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    c.rect((round(cx - s * 0.32), round(cy - s * 0.16), round(cx + s * 0.32), round(cy + s * 0.38)), col,
           radius=round(s * 0.06))
    c.arc((round(cx - s * 0.16), round(cy - s * 0.4), round(cx + s * 0.16), round(cy + s * 0.04)), 180, 360, col,
          _w(s))


def dot(c: Canvas, r: Rect, col: Color) -> None:
    cx, cy, s = _box(r)
    q = s * 0.2
    c.ellipse((round(cx - q), round(cy - q), round(cx + q), round(cy + q)), col)


def battery(c: Canvas, r: Rect, col: Color) -> None:
    x1, y1, x2, y2 = r
    w = max(2, (x2 - x1) // 10)
    c.rect(r, None, col, width=w, radius=w + 2)
    c.rect((x1 + 2 * w, y1 + (y2 - y1) * 3 // 8, x2 - 2 * w, y2 - 2 * w), col)


def disc(icon: Icon, fill: Color, fg: Color) -> Callable[[Canvas, View], None]:
    """A `paint` callback: `icon` in `fg` on a filled circle (a logo, a success badge)."""

    def paint(c: Canvas, v: View) -> None:
        bounds = v.bounds
        c.ellipse(bounds, fill)
        icon(c, bounds, fg)

    return paint
