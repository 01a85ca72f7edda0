"""The band-reusing PNG writer: any decoder reads back the same pixels, whatever changed between frames."""

from __future__ import annotations

import io
import pickle
import random
import zlib
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from guilens.band_history import BandHistory
from guilens.device.base import readonly_view
from guilens.png import VERSIONS, FrameEncoder, adler32_combine


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


def _frame(bar_at: int) -> Image.Image:
    """A 200x320 frame with a bar at rows `bar_at` to `bar_at + 20`, and the history that says so."""
    img = Image.new("RGB", (200, 320), (240, 240, 250))
    ImageDraw.Draw(img).rectangle((10, bar_at, 150, bar_at + 19), fill=(200, 30, 30))
    history = BandHistory(320, band_rows=16)
    history.add(0, 320, ("new", (240, 240, 250)))
    history.add(bar_at, bar_at + 20, ("bar", bar_at))
    history.seal(img)
    return img


def test_bands_a_history_vouches_for_are_reused_unread() -> None:
    enc = FrameEncoder(band_rows=16)
    enc.encode(_frame(100))
    assert enc.bands_unread == 0
    moved = _frame(200)  # bands 6-7 lose the bar, 12-13 gain it
    assert decode(enc.encode(moved)).tobytes() == moved.tobytes()
    assert enc.bands_unread == 16 and enc.bands_encoded == 24
    again = _frame(200)
    assert decode(enc.encode(again)).tobytes() == again.tobytes() and enc.bands_unread == 36


def test_a_screen_shown_again_reuses_its_bands_though_others_came_between() -> None:
    enc = FrameEncoder(band_rows=16)
    enc.encode(_frame(100))
    enc.encode(_frame(200))  # bands 6-7 and 12-13 change
    encoded = enc.bands_encoded
    again = _frame(100)
    assert decode(enc.encode(again)).tobytes() == again.tobytes()
    assert enc.bands_encoded == encoded and enc.bands_unread == 16 + 20


def _top(shade: int) -> Image.Image:
    """A frame whose top band alone differs with `shade`, as its history says."""
    img = Image.new("RGB", (64, 48), (240, 240, 250))
    ImageDraw.Draw(img).rectangle((0, 0, 63, 15), fill=(shade, 30, 30))
    history = BandHistory(48, band_rows=16)
    history.add(0, 48, ("new", (240, 240, 250)))
    history.add(0, 16, ("top", shade))
    history.seal(img)
    return img


def test_versions_per_band_are_bounded_and_the_oldest_goes_first() -> None:
    enc = FrameEncoder(band_rows=16)
    for shade in range(VERSIONS + 1):  # the top band drawn VERSIONS + 1 ways: the first is forgotten
        enc.encode(_top(shade))
    assert all(len(v) <= VERSIONS for v in enc._drawn.values())
    encoded = enc.bands_encoded
    enc.encode(_top(1))  # the oldest still held
    assert enc.bands_encoded == encoded
    first = _top(0)
    assert decode(enc.encode(first)).tobytes() == first.tobytes()
    assert enc.bands_encoded == encoded + 1


def test_bands_whose_histories_share_a_hash_are_not_confused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("guilens.png._digest", lambda drawn: 0 if drawn is not None else None)
    enc = FrameEncoder(band_rows=16)
    for at in (100, 200, 100, 40):
        img = _frame(at)
        assert decode(enc.encode(img)).tobytes() == img.tobytes()


def test_a_history_that_cannot_be_hashed_still_stores_the_right_pixels() -> None:
    enc = FrameEncoder(band_rows=16)
    for at in (100, 200, 100):
        img = _frame(at)
        BandHistory.of(img).add(0, 16, ["unhashable", at])  # type: ignore[union-attr]
        assert decode(enc.encode(img)).tobytes() == img.tobytes()


def test_a_history_is_ignored_once_its_frame_is_drawn_on_or_copied() -> None:
    enc = FrameEncoder(band_rows=16)
    enc.encode(_frame(100))
    view = readonly_view(_frame(100))
    ImageDraw.Draw(view).rectangle((0, 0, 199, 5), fill=(0, 0, 0))  # Pillow copies the pixels first
    assert decode(enc.encode(view)).tobytes() == view.tobytes()
    copy = _frame(100).copy()
    copy.paste((0, 0, 0), (0, 300, 200, 320))
    assert decode(enc.encode(copy)).tobytes() == copy.tobytes()
    assert enc.bands_unread == 0
    other = FrameEncoder(band_rows=8)  # bands of other heights than the history's: read whole
    other.encode(_frame(100))
    other.encode(_frame(100))
    assert other.bands_unread == 0 and other.bands_reused == 40


def test_images_made_from_a_frame_carry_no_history_and_views_share_it() -> None:
    frame = _frame(100)
    assert BandHistory.of(readonly_view(frame)) is BandHistory.of(frame) is not None
    for made in (pickle.loads(pickle.dumps(frame)), frame.copy(), frame.resize((100, 160)), frame.convert("L")):
        assert BandHistory.of(made) is None and not any(isinstance(v, BandHistory) for v in vars(made).values())
        assert not any(isinstance(v, BandHistory) for v in made.info.values())
    enc = FrameEncoder(band_rows=16)
    enc.encode(_frame(100))
    again = pickle.loads(pickle.dumps(_frame(100)))
    assert decode(enc.encode(again)).tobytes() == again.tobytes() and enc.bands_unread == 0
