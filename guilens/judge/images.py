"""The pictures the judge shows a model: composites of screens and before/after panels.

A model reads a phone screen best whole and upright, so screens are stitched
side by side under a label band ("Step 12", "Final") and the result is scaled
to at most 1568 px on its long side, the size beyond which the API would
downscale anyway (and charge for the pixels first). The action of a step is
drawn the way MemGUI-Eval draws it, because its Step Descriptor prompt tells
the model what to look for: a red circle at the touch point, a green square
around it, and a "C" label in the square's corner; swipes get an arrow.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from functools import cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from guilens.actions import stroke_of

MAX_SIDE = 1568
RED = (230, 20, 20)
GREEN = (20, 180, 40)
BAND = (32, 32, 40)


@cache
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """A scalable font that exists everywhere Pillow does (its bundled default)."""
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow without FreeType: the fixed bitmap font
        return ImageFont.load_default()


def fit(img: Image.Image, max_side: int = MAX_SIDE) -> Image.Image:
    """Scale down so the long side is at most `max_side`; never scale up."""
    w, h = img.size
    scale = max_side / max(w, h)
    if scale >= 1:
        return img
    return img.resize((max(1, round(w * scale)), max(1, round(h * scale))), Image.Resampling.LANCZOS)


def action_point(action: dict[str, Any] | None) -> tuple[int, int] | None:
    if not action or action.get("type") not in ("tap", "long_press"):
        return None
    x, y = action.get("x"), action.get("y")
    if isinstance(x, int | float) and isinstance(y, int | float):
        return int(x), int(y)
    return None


def draw_action(img: Image.Image, action: dict[str, Any] | None) -> Image.Image:
    """A copy of `img` with the action marked (taps and swipes; other actions leave no mark)."""
    out = img.convert("RGB")
    if not action:
        return out
    d = ImageDraw.Draw(out)
    s = out.width / 1080  # MemGUI-Eval's sizes are for a 1080-wide screen
    r, line, half = max(4, round(35 * s)), max(2, round(6 * s)), max(12, round(100 * s))
    point = action_point(action)
    if action.get("type") == "scroll":  # drawn as the finger's stroke that performs it
        action = stroke_of(action, out.size)
    if action.get("type") == "swipe":
        try:
            x1, y1, x2, y2 = (int(action[k]) for k in ("x1", "y1", "x2", "y2"))
        except (KeyError, TypeError, ValueError):
            return out
        d.line((x1, y1, x2, y2), fill=RED, width=line)
        ang = math.atan2(y2 - y1, x2 - x1)
        head = max(10, round(45 * s))
        for da in (2.6, -2.6):
            d.line((x2, y2, x2 + head * math.cos(ang + da), y2 + head * math.sin(ang + da)), fill=RED, width=line)
        point = (x1, y1)
    if point is None:
        return out
    x, y = point
    d.ellipse((x - r, y - r, x + r, y + r), outline=RED, width=line)
    d.rectangle((x - half, y - half, x + half, y + half), outline=GREEN, width=max(2, round(8 * s)))
    f = font(max(10, round(48 * s)))
    box = d.textbbox((0, 0), "C", font=f)
    pad = max(2, round(6 * s))
    bx, by = x + half, y - half
    d.rectangle((bx - (box[2] - box[0]) - 2 * pad, by, bx, by + (box[3] - box[1]) + 2 * pad + box[1]), fill=(0, 0, 0))
    d.text((bx - (box[2] - box[0]) - pad - box[0], by + pad), "C", fill=(255, 255, 255), font=f)
    return out


def action_type_detail(action: dict[str, Any] | None) -> tuple[str, str]:
    """The raw log entry MemGUI-Eval's descriptor receives: `Action Type` and `Action Detail`."""
    if not action:
        return "none", "No action was recorded for this step."
    kind = str(action.get("type", "unknown"))
    match kind:
        case "tap" | "long_press":
            p = action_point(action)
            where = f"[{p[0]}, {p[1]}]" if p else json.dumps({k: v for k, v in action.items() if k != "type"})
            return kind, f"Click position {where} is marked with a red circle."
        case "swipe":
            return kind, (
                f"Swipe from ({action.get('x1')},{action.get('y1')}) to ({action.get('x2')},{action.get('y2')}), "
                "drawn as a red arrow."
            )
        case "scroll":
            x, y = action.get("x"), action.get("y")
            where = f" at [{x}, {y}]" if x is not None and y is not None else ""
            lies = {"down": "below", "up": "above", "left": "to the left", "right": "to the right"}
            return kind, (f"Scrolled {action.get('direction')}{where}, to show what lies "
                          f"{lies.get(str(action.get('direction')), 'beyond')}; the finger's stroke is drawn "
                          "as a red arrow.")
        case "type" if action.get("clear"):
            return kind, f'The field was cleared, then the text "{action.get("text", "")}" was inputted.'
        case "type":
            return kind, f'The text "{action.get("text", "")}" has been inputted.'
        case "key":
            return kind, f"Pressed the {action.get('key')} key."
        case "open_app":
            return kind, f"Opened the app {action.get('app')!r}."
        case "wait":
            return kind, f"Waited {action.get('seconds')} seconds; no action has been taken."
        case "ask_user":
            return kind, f'Asked the user: "{action.get("question", "")}"'
        case "answer":
            return kind, f'The answer is "{action.get("text", "")}".'
        case "finish":
            return kind, f"Finished, reporting {action.get('status', 'success')}."
    return kind, json.dumps({k: v for k, v in action.items() if k != "type"}, ensure_ascii=False)


def _label_band(width: int, label: str, height: int) -> Image.Image:
    band = Image.new("RGB", (width, height), BAND)
    d = ImageDraw.Draw(band)
    f = font(max(10, int(height * 0.55)))
    box = d.textbbox((0, 0), label, font=f)
    d.text(((width - (box[2] - box[0])) // 2 - box[0], (height - (box[3] - box[1])) // 2 - box[1]), label,
           fill=(255, 255, 255), font=f)
    return band


def composite(frames: Sequence[tuple[str, Image.Image]], max_side: int = MAX_SIDE) -> Image.Image:
    """Screens side by side, each under its label, scaled to `max_side`.

    Frames are brought to one height first (screens of one episode share a size;
    this only matters for odd inputs), so the labels line up.
    """
    if not frames:
        raise ValueError("a composite needs at least one screen")
    h = max(img.height for _, img in frames)
    scaled = [img.convert("RGB") if img.height == h else img.convert("RGB").resize(
        (round(img.width * h / img.height), h)) for _, img in frames]
    band_h = max(40, h // 24)
    gap = max(8, h // 120)
    width = sum(img.width for img in scaled) + gap * (len(scaled) - 1)
    out = Image.new("RGB", (width, h + band_h), (255, 255, 255))
    x = 0
    for (label, _), img in zip(frames, scaled, strict=True):
        out.paste(_label_band(img.width, label, band_h), (x, 0))
        out.paste(img, (x, band_h))
        x += img.width + gap
    return fit(out, max_side)


def _strip(width: int, lines: list[tuple[str, str]], scale: float) -> Image.Image:
    f = font(max(10, round(44 * scale)))
    pad = max(6, round(20 * scale))
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    rows: list[tuple[str, str]] = []
    for label, value in lines:
        # Wrap long details so they stay readable after scaling.
        words, cur = value.split(), ""
        for w in words:
            trial = f"{cur} {w}".strip()
            if probe.textlength(f"{label}: {trial}", font=f) > width - 2 * pad and cur:
                rows.append((label, cur))
                label, cur = "", w
            else:
                cur = trial
        rows.append((label, cur))
    line_h = round(f.size * 1.3) if hasattr(f, "size") else 14
    rule = max(3, round(10 * scale))
    strip = Image.new("RGB", (width, rule + 2 * pad + line_h * len(rows)), (255, 255, 255))
    d = ImageDraw.Draw(strip)
    d.rectangle((0, 0, width, rule), fill=(40, 90, 200))
    y = rule + pad
    for label, value in rows:
        x = pad
        if label:
            d.text((x, y), f"{label}:", fill=RED, font=f)
            x += round(probe.textlength(f"{label}: ", font=f))
        d.text((x, y), value, fill=(0, 0, 0), font=f)
        y += line_h
    return strip


def action_panel(before: Image.Image, after: Image.Image | None, action: dict[str, Any] | None,
                 max_side: int = MAX_SIDE) -> Image.Image:
    """MemGUI-Eval's two-panel step image: 'Before Action' with the action drawn, 'After Action', and
    the raw action written underneath. With no after-screen the right panel repeats the left one,
    which the descriptor prompt reads as "this was the final action"."""
    left = draw_action(before, action)
    right = (after if after is not None else before).convert("RGB")
    if right.size != left.size:
        right = right.resize(left.size)
    s = left.width / 1080
    border, header, gap = max(2, round(14 * s)), max(30, round(140 * s)), max(8, round(40 * s))
    fw, fh = left.width + 2 * border, left.height + 2 * border + header
    kind, detail = action_type_detail(action)
    strip = _strip(2 * fw + gap, [("Action", kind), ("Detail", detail)], s)
    out = Image.new("RGB", (2 * fw + gap, fh + strip.height), (255, 255, 255))
    for i, (title, img) in enumerate((("Before Action", left), ("After Action", right))):
        x0 = i * (fw + gap)
        frame = Image.new("RGB", (fw, fh), (150, 150, 150))
        frame.paste(_label_band(fw, title, header), (0, 0))
        frame.paste(img, (border, header + border))
        out.paste(frame, (x0, 0))
    out.paste(strip, (0, fh))
    return fit(out, max_side)


def chunks(seq: Sequence[int], size: int) -> list[list[int]]:
    return [list(seq[i : i + size]) for i in range(0, len(seq), size)]
