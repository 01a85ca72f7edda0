"""A PNG writer for successive screenshots of one phone.

Consecutive screens of an episode mostly repeat each other: a tap changes a
button, a typed word changes one field, the status bar ticks. This writer cuts
a frame into bands of rows and compresses each band as an independent deflate
segment (a full flush resets the dictionary), so a band whose pixels equal the
same band of an earlier frame reuses its compressed bytes (on the memory pack
about three bands in five). It skips PNG's per-row filter search too, which is
most of what Pillow's encoder spends on a 1080x2400 frame, and deflate's window
still catches the vertical repetition of UI screens. No library writes a PNG
out of reused compressed segments, hence this module; the deflate itself is a
library's.

The deflate is Intel's ISA-L (`isal`, igzip) where it is installed (a main
dependency; wheels for Linux, macOS and Windows), else the standard `zlib`.
Measured on the 409 screens of the memory pack, 32-row bands, all bands
compressed (the worst case: nothing reused), on one core:

    zlib level 6    19.9 ms/frame   57 kB      zlib-ng level 1   3.2 ms/frame  134 kB
    zlib level 1    14.5 ms/frame   91 kB      zlib-ng level 6   6.5 ms/frame   78 kB
    isal level 1     2.7 ms/frame   90 kB      isal level 3     11.6 ms/frame   99 kB
    isal level 2     2.8 ms/frame   90 kB

ISA-L at level 2 is seven times faster than the zlib level it replaces, for
1.6x the bytes (about 1.4x what Pillow's own adaptive-filter PNG stores for a
sim screen: 90 kB against 64 kB); on photo-like frames it is both faster and
smaller than zlib level 1. Disk is the cheap side of that trade: recording is
most of a run on the simulated phone (issue 14). PNG's Up filter, tried on
the same frames, made ISA-L's output larger, not smaller. In a run a frame
costs about 2 ms of CPU once unchanged bands are reused (median 1.9 ms over the
memory pack), of which 0.9 ms is taking the pixels out of Pillow, band by band
(`_bands_at`), holding the GIL as the band loop does. With plain `zlib`
(no `isal`), a band that barely compresses (photos, video) gets deflate's
fastest level, since higher levels buy little there at many times the cost.

A renderer that knows what it drew can say so, and spare the writer reading
bands it did not touch: `BandHistory`, attached to a frame (the sim's, through
`guilens.device.sim.paint.Canvas`), lists for each band the drawing operations
that painted it, in order. A band whose list equals the one of the band the
writer holds has the same pixels, so its bytes are reused without taking its
pixels out of Pillow or comparing them; only the other bands are read, and
compressed again. Over 300 screens of a seeded walk through the sim's apps,
about three bands in five went unread and a frame cost 2.9-3.3 ms against
4.3-4.4 ms read whole; the sim spends 0.1-0.35 ms more a screen keeping the
lists (`benchmarks/bench_device.py --sim-only`, beside the last tree). The
pixels of bands a history stands for are not kept either (7.8 MB a screen):
the memory pack's peak RSS went from 190 MB to 178 MB (`benchmarks/bench_pack.py`).
One in-process sim went from 76.8 and 80.3 to 88.7 and 86.0 steps/s (two runs
of `benchmarks/bench_parallel.py --baseline`, 5 rounds), as its encoding holds
the GIL less. A frame someone drew on after the renderer (Pillow copies its
pixels first), a copy of it or one made from it carries no history that holds,
and is read whole.

A band is compared with more than the last frame's: the writer keeps, per
band, the last `VERSIONS` (16) it stored with a history, by the history's
hash (equality of the histories themselves decides, never the hash alone). An
agent goes back and forth (the launcher after each app, a list after its
detail page, a dialog shown and dismissed), so a screen is often one seen a few
frames before. On the memory pack with two sims in processes, the bands
compressed fell from 12,263 to 5,267 for the run's 360 new screens, and two
sims went from 203.9 to 217.7 steps/s, 1.60x to 1.66x the throughput of one
(`benchmarks/bench_parallel.py --baseline`, 9 rounds; 1.52x to 1.62x in another
run of 5); a sim in the run's process gains nothing measurable there, as its
encoding is off its step loop. The versions hold compressed bytes
and histories, not pixels: a few MB at most per writer.

The output is an ordinary PNG (8-bit, filter type 0 on every row) that any
decoder reads back to the same pixels.
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections import OrderedDict
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np
from PIL import Image

from guilens.band_history import BAND_ROWS, BandHistory


def _load_deflate() -> tuple[ModuleType, str, int, int]:
    """ISA-L's deflate (see the module docstring), else zlib's: module, name, level, level for noisy bands."""
    try:
        from isal import isal_zlib
    except ImportError:  # pragma: no cover - isal is a main dependency; zlib is the fallback
        return zlib, "zlib", 6, 1
    return isal_zlib, "isal", 2, 2


_deflate, DEFLATE, _LEVEL, _NOISY_LEVEL = _load_deflate()
"""`DEFLATE`: which deflate the writer uses, `isal` (ISA-L) or `zlib` (the standard one, slower)."""

VERSIONS = 16
"""Bands kept per position of a frame, each drawn differently, so a screen shown again (the launcher
after an app, a list after its detail page) reuses its bytes though the frames between were others."""

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


def _digest(drawn: list[Any] | None) -> int | None:
    """A band history's hash, to find an earlier band drawn the same way; None if it holds something
    unhashable (then only the last frame's band is compared with it)."""
    try:
        return hash(tuple(drawn)) if drawn is not None else None
    except TypeError:
        return None


def _history(img: Image.Image, band_rows: int) -> list[list[Any]] | None:
    history = BandHistory.of(img)
    return history.bands if history is not None and history.band_rows == band_rows else None


class _Band:
    __slots__ = ("adler", "compressed", "filtered_len", "history", "noisy", "raw")

    def __init__(self, raw: bytes | None, compressed: bytes, adler: int, filtered_len: int, noisy: bool) -> None:
        self.raw = raw
        """The band's pixels, to compare the next frame's with; None when a history stands in for them."""
        self.compressed = compressed
        self.adler = adler
        self.filtered_len = filtered_len
        self.noisy = noisy
        self.history: list[Any] | None = None
        """What drew these pixels (`BandHistory`), when the frame that last showed them said so."""


class FrameEncoder:
    """Encodes frames to PNG, reusing compressed bands that did not change. Thread-safe."""

    def __init__(self, band_rows: int = BAND_ROWS, level: int | None = None, noisy_ratio: float = 0.35) -> None:
        """`level`: the deflate level of every band, in the backend's range (0-3 for `isal`, 0-9 for
        `zlib`; default: the backend's own choice, see `DEFLATE`); a band
        that compressed to more than `noisy_ratio` of its size is compressed at the backend's
        level for noisy bands next time."""
        self.band_rows = band_rows
        self.level = _LEVEL if level is None else level
        self.noisy_level = _NOISY_LEVEL if level is None else min(level, _NOISY_LEVEL)
        self.noisy_ratio = noisy_ratio
        self._lock = threading.Lock()
        self._bands: dict[tuple[str, int, int, int], _Band] = {}
        self._drawn: dict[tuple[str, int, int, int], OrderedDict[int, _Band]] = {}
        """Per band, the last `VERSIONS` bands stored with a history, by its hash: a screen shown again."""
        self.bands_reused = 0
        self.bands_encoded = 0
        self.bands_unread = 0
        """Of `bands_reused`, those a frame's `BandHistory` vouched for, so their pixels were never read."""

    def encode(self, img: Image.Image) -> bytes:
        history = None
        if img.mode not in _COLOR_TYPE:
            img = img.convert(output_mode(img))
        else:
            history = _history(img, self.band_rows)
        width, height = img.size
        stride = width * _BYTES_PER_PIXEL[img.mode]
        keys = [(img.mode, width, height, index) for index in range(-(-height // self.band_rows))]
        with self._lock:
            cached = [self._bands.get(key) for key in keys]
            known: list[_Band | None] = [None] * len(keys) if history is None else [
                self._known(key, band, drawn) for key, band, drawn in zip(keys, cached, history, strict=True)]
        raws = _bands_at(img, stride, self.band_rows, [i for i, band in enumerate(known) if band is None])
        segments: list[bytes] = []
        adler, total = 1, 0
        for index, last in enumerate(cached):
            cached[index] = None  # a replaced band's pixels go now, not after the frame (7.8 MB at once)
            band = known[index]
            if band is not None:
                self.bands_reused += 1
                self.bands_unread += 1
            else:
                band_raw = next(raws)
                if last is not None and last.raw is not None and last.raw == band_raw:
                    band = last
                    self.bands_reused += 1
                else:
                    band = self._compress(band_raw, stride, noisy=last.noisy if last else False)
                    self.bands_encoded += 1
                if history is not None:
                    # The history is what later frames are compared by; the pixels need not stay
                    # (7.8 MB a screen). Of the bands read on a walk through the sim's apps, 463 in
                    # 25,992 (1.8%) had pixels equal to the last frame's; those are compressed again.
                    band.history, band.raw = history[index], None
                    self._remember(keys[index], band)
            if band is not last:
                with self._lock:
                    self._bands[keys[index]] = band
            segments.append(band.compressed)
            adler = adler32_combine(adler, band.adler, band.filtered_len)
            total += band.filtered_len
        stream = b"".join((b"\x78\x9c", *segments, _FINAL_BLOCK, struct.pack(">I", adler)))
        header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPE[img.mode], 0, 0, 0)
        return b"".join((_SIGNATURE, _chunk(b"IHDR", header), _chunk(b"IDAT", stream), _chunk(b"IEND", b"")))

    @property
    def cached_bytes(self) -> int:
        """Bytes of pixels the band cache holds: about one frame's, until `clear`, or none for frames
        that carry their `BandHistory`."""
        with self._lock:
            return sum(len(band.raw) for band in self._bands.values() if band.raw is not None)

    def clear(self) -> None:
        """Forget the bands seen so far: the cache holds a copy of the last frame's pixels (7.8 MB
        for 1080x2400 RGB), which an encoder kept past its episode would hold for nothing."""
        with self._lock:
            self._bands = {}
            self._drawn = {}

    def _known(self, key: tuple[str, int, int, int], last: _Band | None, drawn: list[Any]) -> _Band | None:
        """The stored band drawn as `drawn` says, if any: the last frame's, else an earlier one's."""
        if last is not None and last.history == drawn:
            return last
        versions = self._drawn.get(key)
        digest = _digest(drawn) if versions else None
        if versions is None or digest is None:
            return None
        band = versions.get(digest)
        if band is None or band.history != drawn:  # absent, or another history with the same hash
            return None
        versions.move_to_end(digest)
        return band

    def _remember(self, key: tuple[str, int, int, int], band: _Band) -> None:
        """Keep `band` (compressed bytes and history, no pixels) among its position's recent versions."""
        digest = _digest(band.history)
        if digest is None:
            return
        with self._lock:
            versions = self._drawn.setdefault(key, OrderedDict())
            versions[digest] = band
            versions.move_to_end(digest)
            if len(versions) > VERSIONS:
                versions.popitem(last=False)

    def _compress(self, band_raw: bytes, stride: int, *, noisy: bool) -> _Band:
        rows = np.frombuffer(band_raw, np.uint8).reshape(-1, stride)
        filtered = np.zeros((rows.shape[0], stride + 1), np.uint8)  # column 0: each row's filter byte (none)
        filtered[:, 1:] = rows
        level = self.noisy_level if noisy else self.level
        co = _deflate.compressobj(level, zlib.DEFLATED, -15, 9)
        compressed = co.compress(filtered) + co.flush(zlib.Z_FULL_FLUSH)
        return _Band(
            raw=band_raw,
            compressed=compressed,
            adler=_deflate.adler32(filtered),
            filtered_len=filtered.nbytes,
            noisy=len(compressed) > self.noisy_ratio * filtered.nbytes,
        )


def _bands_at(img: Image.Image, stride: int, rows: int, indices: list[int]) -> Iterator[bytes]:
    """The image's pixels in bands of `rows` rows (`stride` bytes each), only the bands at `indices`
    (ascending), each run of neighbours read in one go.

    Straight from Pillow's raw encoder, a band per call, rather than slicing `tobytes()`:
    that builds the whole 7.8 MB frame first (fresh pages to fault in, per frame and per
    encoder thread) and is then copied again band by band; this is a quarter faster and
    holds one band at a time. `Image._getencoder` is private but unchanged for a decade; a
    Pillow without it gets `tobytes`.
    """
    runs: list[tuple[int, int]] = []
    for index in indices:
        if runs and runs[-1][1] == index:
            runs[-1] = (runs[-1][0], index + 1)
        else:
            runs.append((index, index + 1))
    for first, end in runs:
        yield from _rows_of(img, stride * rows, first * rows, min(img.height, end * rows))


def _rows_of(img: Image.Image, size: int, top: int, bottom: int) -> Iterator[bytes]:
    """Rows `top` to `bottom` of the image's pixels, `size` bytes at a time (see `_bands_at`)."""
    try:
        enc = Image._getencoder(img.mode, "raw", (img.mode,))
        enc.setimage(img.im, (0, top, img.width, bottom))
    except Exception:  # pragma: no cover - a Pillow without the hook
        raw = memoryview(img.crop((0, top, img.width, bottom)).tobytes())
        for start in range(0, len(raw), size):
            yield bytes(raw[start : start + size])
        return
    try:
        while True:
            _, err, data = enc.encode(size)
            if data:
                yield data
            if err:
                break
        if err < 0:
            raise RuntimeError(f"Pillow's raw encoder failed ({err})")
    finally:
        enc.cleanup()


def output_mode(img: Image.Image) -> str:
    """The mode `FrameEncoder.encode` writes `img` in (and a decoder reads back)."""
    return img.mode if img.mode in _COLOR_TYPE else ("RGBA" if "A" in img.getbands() else "RGB")
