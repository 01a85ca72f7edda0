"""Screenshots as Messages API image blocks, scaled to what the model reads at full detail."""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image


def fit_size(width: int, height: int, max_side: int = 1568) -> tuple[int, int]:
    """The size `image_block` scales a `width` x `height` image to (aspect kept, long side <= max_side)."""
    long_side = max(width, height)
    if long_side <= max_side:
        return width, height
    scale = max_side / long_side
    return max(1, round(width * scale)), max(1, round(height * scale))


def image_block(img: Image.Image, max_side: int = 1568, *, fmt: str = "PNG") -> dict[str, Any]:
    """A base64 image content block, scaled so the long side is at most `max_side`.

    PNG by default: UI screens are flat colours, where PNG is both lossless and small.
    """
    from PIL import Image

    size = fit_size(img.width, img.height, max_side)
    if size != img.size:
        img = img.resize(size, Image.Resampling.LANCZOS)
    fmt = fmt.upper()
    if img.mode not in ("RGB", "L") and not (fmt == "PNG" and img.mode == "RGBA"):
        img = img.convert("RGB")
    buf = io.BytesIO()
    img.save(buf, format=fmt, **({"quality": 90} if fmt == "JPEG" else {"compress_level": 6}))
    media = "image/jpeg" if fmt == "JPEG" else f"image/{fmt.lower()}"
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}
