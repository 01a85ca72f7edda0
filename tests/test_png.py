"""The band-reusing PNG writer: any decoder reads back the same pixels, whatever changed between frames."""

from __future__ import annotations

import io
import random
import zlib
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from guilens.png import FrameEncoder, adler32_combine


def decode(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    img.load()
    return img


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L"])
def test_round_trip_each_mode(mode: str) -> None:
    img = Image.effect_noise((97, 61), 60).convert(mode)
    out = decode(FrameEncoder(band_rows=8).encode(img))
    assert out.mode == mode and out.size == img.size and out.tobytes() == img.tobytes()


def test_unchanged_bands_are_reused_and_changed_ones_are_not() -> None:
    enc = FrameEncoder(band_rows=16)
    frame = Image.new("RGB", (200, 320), (240, 240, 250))
    first = enc.encode(frame)
    assert enc.bands_reused == 0 and enc.bands_encoded == 20
    changed = frame.copy()
    ImageDraw.Draw(changed).rectangle((10, 100, 150, 120), fill=(200, 30, 30))  # rows 100-120: bands 6 and 7
    second = enc.encode(changed)
    assert enc.bands_encoded == 22 and enc.bands_reused == 18
    assert decode(second).tobytes() == changed.tobytes()
    assert decode(first).tobytes() == frame.tobytes()
    assert decode(enc.encode(frame)).tobytes() == frame.tobytes()


def test_the_band_cache_keeps_sizes_apart() -> None:
    enc = FrameEncoder(band_rows=4)
    small = Image.new("RGB", (10, 10), "white")
    wide = Image.new("RGB", (20, 10), "white")
    assert decode(enc.encode(small)).size == (10, 10)
    assert decode(enc.encode(wide)).tobytes() == wide.tobytes()


def test_adler32_combine_matches_zlib() -> None:
    rng = random.Random(3)
    for _ in range(50):
        a = rng.randbytes(rng.randrange(0, 5000))
        b = rng.randbytes(rng.randrange(0, 70000))
        assert adler32_combine(zlib.adler32(a), zlib.adler32(b), len(b)) == zlib.adler32(a + b)


def test_threads_sharing_one_encoder_write_correct_frames() -> None:
    enc = FrameEncoder(band_rows=8)
    frames = []
    for i in range(24):
        img = Image.new("RGB", (120, 200), (250, 250, 250))
        ImageDraw.Draw(img).rectangle((0, (i * 13) % 180, 119, (i * 13) % 180 + 15), fill=(i * 9, 40, 90))
        frames.append(img)
    with ThreadPoolExecutor(max_workers=4) as pool:
        outs = list(pool.map(enc.encode, frames))
    for img, data in zip(frames, outs, strict=True):
        assert decode(data).tobytes() == img.tobytes()


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 40),
    st.integers(1, 40),
    st.integers(1, 9),
    st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39), st.integers(0, 255)), max_size=6),
)
def test_any_sequence_of_edits_round_trips(w: int, h: int, rows: int, edits: list[tuple[int, int, int]]) -> None:
    enc = FrameEncoder(band_rows=rows)
    img = Image.new("RGB", (w, h), (1, 2, 3))
    assert decode(enc.encode(img)).tobytes() == img.tobytes()
    for x, y, v in edits:
        img.putpixel((x % w, y % h), (v, 255 - v, v // 2))
        assert decode(enc.encode(img)).tobytes() == img.tobytes()
