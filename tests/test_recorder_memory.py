"""The recorder off the critical path: lossless screens through the real hand-off, and what it lets go.

A recorder encodes screens on the process's shared encoder threads (`encoder_pool`)
with ISA-L's deflate where installed; these tests check the stored PNGs decode, with
Pillow, to exactly the pixels handed over (UI-like and photo-like 1080x2400 frames,
through `encode_ahead` and `record_step` both), and that a finished recorder, even one
kept alive, holds no screen.
"""

from __future__ import annotations

import gc
import io
import os
import weakref
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

import guilens.png as png
from guilens.episode import Episode, EpisodeReader, Recorder, Step, Timings
from guilens.png import FrameEncoder
from guilens.recorder import encoder_pool

T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
SIZE = (1080, 2400)


def ui_frame(i: int) -> Image.Image:
    img = Image.new("RGB", SIZE, (246, 246, 250))
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, SIZE[0], 90), fill=(20, 24, 40))
    d.text((40, 30), f"09:{i:02d}", fill=(255, 255, 255))
    for row in range(10):
        y = 200 + row * 210
        d.rounded_rectangle((36, y, SIZE[0] - 36, y + 180), 28, fill=(255, 255, 255), outline=(220, 220, 230))
        d.text((80, y + 60), f"Note {row + i}", fill=(25, 25, 30))
    return img


def photo_frame(i: int) -> Image.Image:
    """Gradients under noise: what deflate barely compresses (a photo, a video frame)."""
    base = Image.linear_gradient("L").resize(SIZE).convert("RGB")
    noise = Image.effect_noise(SIZE, 40 + i).convert("RGB")
    return Image.blend(base, noise, 0.35)


def make_step(i: int) -> Step:
    return Step(index=i, started_at=T0 + timedelta(seconds=i), ended_at=T0 + timedelta(seconds=i),
                thought="", action={"type": "tap", "x": 1, "y": 2}, action_description="tap")


def make_episode() -> Episode:
    return Episode(task="t", scenario="s", agent="oracle", device="sim", timings=Timings(started_at=T0))


@pytest.mark.parametrize("kind", ["ui", "photo"])
def test_recorded_screens_decode_to_the_pixels_the_device_showed(tmp_path: Path, kind: str) -> None:
    make = ui_frame if kind == "ui" else photo_frame
    frames = [make(i) for i in range(4)]
    frames.insert(2, frames[1])  # a step that left the phone alone: the same screen again
    rec = Recorder(tmp_path, make_episode())
    rec.encode_ahead(frames[0])
    for i, img in enumerate(frames[:-1]):
        rec.record_step(make_step(i), img)
        rec.encode_ahead(frames[i + 1])  # the next screen, encoded ahead as the loop does
        rec.wait_durable()
    rec.finish("success", final_screen=frames[-1])
    reader = EpisodeReader(tmp_path)
    for i, img in enumerate(frames):
        stored = tmp_path / "screens" / f"{i:04d}.png"
        with Image.open(stored) as im:
            assert im.format == "PNG"
            im.load()
            assert im.mode == "RGB" and im.size == SIZE
            assert im.tobytes() == img.tobytes(), f"screen {i} is not lossless"
    assert reader.screen(len(frames) - 1).tobytes() == frames[-1].tobytes()


def test_a_finished_recorder_holds_no_screen(tmp_path: Path) -> None:
    """Kept alive (a reference cycle, an observer), a closed recorder keeps neither the screens it was
    handed nor its encoder's copy of the last frame: memory stays flat across attempts without a GC."""
    rec = Recorder(tmp_path, make_episode())
    img = ui_frame(1)
    unused = ui_frame(2)
    rec.record_step(make_step(0), img)
    rec.encode_ahead(unused)  # encoded ahead, never recorded (the attempt ended first)
    rec.wait_durable()
    assert rec._encoder.cached_bytes >= SIZE[0] * SIZE[1] * 3
    rec.finish("success")
    gone = weakref.ref(img), weakref.ref(unused)
    del img, unused
    gc.disable()  # no cycle collection may help
    try:
        assert all(ref() is None for ref in gone)
        assert rec._encoder.cached_bytes == 0
    finally:
        gc.enable()


def test_recorders_share_the_encoder_threads(tmp_path: Path) -> None:
    """Attempts start no threads of their own for encoding, and closing one leaves the pool to the next."""
    first = Recorder(tmp_path / "a", make_episode())
    first.record_step(make_step(0), ui_frame(0))
    first.finish("success")
    second = Recorder(tmp_path / "b", make_episode())
    assert first._pool is second._pool is encoder_pool()
    second.record_step(make_step(0), ui_frame(3))
    second.finish("success", final_screen=ui_frame(4))
    assert EpisodeReader(tmp_path / "b").screen(1).tobytes() == ui_frame(4).tobytes()


def test_the_zlib_fallback_writes_the_same_pixels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ISA-L the writer falls back to the standard zlib at its own levels; the PNG is as good."""
    monkeypatch.setattr(png, "_deflate", zlib)
    monkeypatch.setattr(png, "_LEVEL", 6)
    monkeypatch.setattr(png, "_NOISY_LEVEL", 1)
    enc = FrameEncoder()
    for img in (ui_frame(0), photo_frame(0), ui_frame(1)):
        with Image.open(io.BytesIO(enc.encode(img))) as out:
            assert out.tobytes() == img.tobytes()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX-only")
def test_a_forked_child_gets_encoder_threads_of_its_own() -> None:
    """A child forked after the pool started inherits a pool object with no threads behind it: the
    child must get a new one, or its first screen would wait forever."""
    assert encoder_pool().submit(int).result(timeout=10) == 0  # the parent's threads exist now
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit code
        try:
            ok = encoder_pool().submit(lambda: 41 + 1).result(timeout=10) == 42
        except BaseException:
            ok = False
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_screen_handed_over_again_is_encoded_once(tmp_path: Path) -> None:
    """A step that left the phone alone (a question to the user) and the final screen after `answer`
    hand the recorder the very screen it has: it writes the PNG it made, not a second encode."""
    rec = Recorder(tmp_path, make_episode())
    encodes = []
    encode = rec._encoder.encode
    rec._encoder.encode = lambda img: encodes.append(img) or encode(img)  # type: ignore[method-assign]
    same, other = ui_frame(5), ui_frame(6)
    rec.record_step(make_step(0), same)
    rec.record_step(make_step(1), same)
    rec.record_step(make_step(2), other)
    rec.finish("success", final_screen=other)
    assert len(encodes) == 2
    reader = EpisodeReader(tmp_path)
    assert [reader.screen(i).tobytes() for i in range(4)] == [same.tobytes()] * 2 + [other.tobytes()] * 2
