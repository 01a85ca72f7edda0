"""A PNG writer for successive screenshots of one phone.

Consecutive screens of an episode mostly repeat each other: a tap changes a
button, a typed word changes one field, the status bar ticks. This writer cuts
a frame into bands of rows and compresses each band as an independent deflate
segment (a full flush resets the dictionary), so a band whose pixels equal the
same band of an earlier frame reuses its compressed bytes. It skips PNG's
per-row filter search too, which is most of what Pillow's encoder spends on a
1080x2400 frame, and deflate's window still catches the vertical repetition of
UI screens. Bands that barely compress (photos, video) get deflate's fastest
level, since higher levels buy little there at many times the cost.

The output is an ordinary PNG (8-bit, filter type 0 on every row) that any
decoder reads back to the same pixels.
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Iterator

from PIL import Image

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_TYPE = {"L": 0, "RGB": 2, "RGBA": 6}
_BYTES_PER_PIXEL = {"L": 1, "RGB": 3, "RGBA": 4}
_ADLER_BASE = 65521
# A deflate stream's last block: an empty, final, fixed-Huffman block.
_FINAL_BLOCK = b"\x03\x00"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


def adler32_combine(adler1: int, adler2: int, len2: int) -> int:
    """The Adler-32 of A+B from those of A and B (zlib's `adler32_combine`, absent from Python's zlib)."""
    rem = len2 % _ADLER_BASE
    sum1 = adler1 & 0xFFFF
    sum2 = (rem * sum1) % _ADLER_BASE
    sum1 += (adler2 & 0xFFFF) + _ADLER_BASE - 1
    sum2 += ((adler1 >> 16) & 0xFFFF) + ((adler2 >> 16) & 0xFFFF) + _ADLER_BASE - rem
    sum1 %= _ADLER_BASE
    sum2 %= _ADLER_BASE
    return sum1 | (sum2 << 16)


class _Band:
    __slots__ = ("adler", "compressed", "filtered_len", "noisy", "raw")

    def __init__(self, raw: bytes, compressed: bytes, adler: int, filtered_len: int, noisy: bool) -> None:
        self.raw = raw
        self.compressed = compressed
        self.adler = adler
        self.filtered_len = filtered_len
        self.noisy = noisy


class FrameEncoder:
    """Encodes frames to PNG, reusing compressed bands that did not change. Thread-safe."""

    def __init__(self, band_rows: int = 32, level: int = 6, noisy_ratio: float = 0.35) -> None:
        self.band_rows = band_rows
        self.level = level
        self.noisy_ratio = noisy_ratio
        self._lock = threading.Lock()
        self._bands: dict[tuple[str, int, int, int], _Band] = {}
        self.bands_reused = 0
        self.bands_encoded = 0

    def encode(self, img: Image.Image) -> bytes:
        if img.mode not in _COLOR_TYPE:
            img = img.convert("RGBA" if "A" in img.getbands() else "RGB")
        width, height = img.size
        stride = width * _BYTES_PER_PIXEL[img.mode]
        raw = img.tobytes()
        segments: list[bytes] = []
        adler, total = 1, 0
        for index, band_raw in enumerate(self._bands_of(raw, stride * self.band_rows)):
            key = (img.mode, width, height, index)
            with self._lock:
                cached = self._bands.get(key)
            if cached is not None and cached.raw == band_raw:
                band = cached
                self.bands_reused += 1
            else:
                band = self._compress(band_raw, stride, noisy=cached.noisy if cached else False)
                with self._lock:
                    self._bands[key] = band
                self.bands_encoded += 1
            segments.append(band.compressed)
            adler = adler32_combine(adler, band.adler, band.filtered_len)
            total += band.filtered_len
        stream = b"".join((b"\x78\x9c", *segments, _FINAL_BLOCK, struct.pack(">I", adler)))
        header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPE[img.mode], 0, 0, 0)
        return b"".join((_SIGNATURE, _chunk(b"IHDR", header), _chunk(b"IDAT", stream), _chunk(b"IEND", b"")))

    @staticmethod
    def _bands_of(raw: bytes, size: int) -> Iterator[bytes]:
        view = memoryview(raw)
        for start in range(0, len(raw), size):
            yield bytes(view[start : start + size])

    def _compress(self, band_raw: bytes, stride: int, *, noisy: bool) -> _Band:
        view = memoryview(band_raw)
        filtered = b"".join(b"\x00" + view[i : i + stride] for i in range(0, len(band_raw), stride))
        level = 1 if noisy else self.level
        co = zlib.compressobj(level, zlib.DEFLATED, -15, 9)
        compressed = co.compress(filtered) + co.flush(zlib.Z_FULL_FLUSH)
        return _Band(
            raw=band_raw,
            compressed=compressed,
            adler=zlib.adler32(filtered),
            filtered_len=len(filtered),
            noisy=len(compressed) > self.noisy_ratio * len(filtered),
        )
