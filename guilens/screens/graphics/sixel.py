"""A Sixel encoder fast enough for live phone frames (a 450x1000 screen in about 15 ms).

Sixel paints an image in bands of 6 pixel rows; within a band, each colour is
one line of characters, each character a 6-bit column of pixels of that colour.
The work is finding, for every band, which colours it holds and their bit
columns. Done pixel by pixel in Python that is far too slow; done band by band
in numpy it is dominated by per-call overhead (hundreds of bands, dozens of
colours each). Here every band is done at once: one array of
(band, colour, column) bit masks filled with six vectorised writes, then the
non-empty (band, colour) lines are taken out in one piece and compressed with
one regular expression over the whole image.

Written here rather than taken from textual-image, whose encoder is private
API and spends half its time on a colour-count check this use never needs;
Pillow quantises the colours (fast octree), numpy does the rest.
"""

from __future__ import annotations

import re

import numpy as np
from PIL import Image

BAND = 6
_WEIGHTS = (1 << np.arange(BAND, dtype=np.uint8)).reshape(1, BAND, 1)
_RUN = re.compile(rb"([\x3f-\x7e])\1{3,}")
"""Four or more equal sixel characters: written as `!N<char>`. Colour introducers (`#`, digits) and
the band controls (`$`, `-`) are outside this range, so runs never cross them."""


def _compress(match: re.Match[bytes]) -> bytes:
    return b"!%d%s" % (match.end() - match.start(), match.group(1))


def encode_sixel(image: Image.Image, colors: int = 256, *, transparent_rest: bool = True) -> str:
    """`image` as a Sixel string (DCS ... ST), quantised to at most `colors` colours.

    With `transparent_rest`, pixels a band leaves unset keep what was on the screen, so an
    image whose height is not a multiple of 6 does not paint a strip below itself.
    """
    rgb = image.convert("RGB")
    w, h = rgb.size
    pal_img = rgb.quantize(max(2, min(256, colors)), method=Image.Quantize.FASTOCTREE)
    palette = pal_img.getpalette() or []
    idx = np.asarray(pal_img, dtype=np.uint8)
    bands = -(-h // BAND)
    pad = bands * BAND - h
    if pad:
        # Padding rows take a colour index no pixel uses, so they set no bits of any real colour.
        idx = np.concatenate([idx, np.full((pad, w), 255, dtype=np.uint8)])
    used = np.unique(idx[:h]) if h else np.zeros(0, dtype=np.uint8)
    slot = np.full(256, len(used), dtype=np.intp)  # dense colour numbers; the padding gets one past them
    slot[used] = np.arange(len(used))
    n = len(used) + 1
    dense = slot[idx].reshape(bands, BAND, w)
    masks = np.zeros((bands, n, w), dtype=np.uint8)
    band_ix = np.arange(bands)[:, None]
    col_ix = np.arange(w)[None, :]
    for r in range(BAND):
        masks[band_ix, dense[:, r, :], col_ix] |= np.uint8(1 << r)
    masks = masks[:, : n - 1, :]
    present = masks.any(axis=2)  # (bands, colours)
    rows = masks[present]  # (K, w): one line per colour present in a band
    bands_of, colours_of = np.nonzero(present)
    # Trailing empty columns of a line are left out: `$` returns to the band's start anyway.
    nonzero = rows != 0
    ends = w - np.argmax(nonzero[:, ::-1], axis=1)
    data = (rows + np.uint8(63)).tobytes()

    out = [b'\x1bP0;%d;0q"1;1;%d;%d' % (1 if transparent_rest else 0, w, h)]
    for i, c in enumerate(used.tolist()):
        r, g, b = palette[3 * c : 3 * c + 3]
        out.append(b"#%d;2;%d;%d;%d" % (i, r * 100 // 255, g * 100 // 255, b * 100 // 255))
    current, fresh = 0, True
    starts = np.arange(len(rows)) * w
    for band, colour, start, end in zip(bands_of.tolist(), colours_of.tolist(), starts.tolist(), ends.tolist(),
                                        strict=True):
        if band != current:
            out.append(b"-" * (band - current))  # to the next band with pixels (empty ones skipped)
            current, fresh = band, True
        if not fresh:
            out.append(b"$")  # back to the band's start for the next colour
        fresh = False
        out.append(b"#%d" % colour)
        out.append(data[start : start + end])
    body = _RUN.sub(_compress, b"".join(out))
    return (body + b"\x1b\\").decode("ascii")
