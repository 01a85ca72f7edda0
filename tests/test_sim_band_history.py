"""The sim's screens say what was drawn over each band of rows (`BandHistory`), and that must be true:
two screens whose entries for a band are equal have equal pixels there, or the recorder stores a stale band."""

from __future__ import annotations

import io
import random
from collections.abc import Callable

from PIL import Image

from guilens.actions import KeyPress, OpenApp, Swipe, Tap, Type
from guilens.band_history import BAND_ROWS, BandHistory
from guilens.device.sim import APPS, SimDevice
from guilens.device.sim.anomalies import KINDS
from guilens.device.sim.paint import Canvas
from guilens.device.uitree import actionable_elements
from guilens.png import FrameEncoder


def _bands(img: Image.Image) -> list[bytes]:
    raw, stride = img.tobytes(), img.width * 3 * BAND_ROWS
    return [raw[i : i + stride] for i in range(0, len(raw), stride)]


def _history(img: Image.Image) -> list[list[object]]:
    history = BandHistory.of(img)
    assert history is not None, "a sim screen without its history"
    return history.bands


def _walk(seed: int, steps: int, *, dark: bool) -> list[Image.Image]:
    """Screens of a seeded walk through every app, with dialogs, anomalies and scrolling."""
    rng = random.Random(seed)
    dev = SimDevice(width=720, height=1600, setup={"apps": {"settings": {"dark_mode": dark}}})
    packages = sorted(a.package for a in APPS.values())
    obs = dev.observe()
    screens = [obs.screenshot]
    for i in range(steps):
        roll = rng.random()
        if i % 20 == 0:
            dev.act(OpenApp(app=rng.choice(packages)))
        elif i % 20 == 7:
            dev.inject_anomaly(rng.choice(sorted(KINDS)))
        elif roll < 0.08:
            dev.act(KeyPress(key=rng.choice(["back", "home"])))
        elif roll < 0.14:
            dev.act(Type(text=rng.choice(["milk", "42", "hello world"])))
        elif roll < 0.26:  # scrolls by less than a row, too: half-visible rows are drawn into strips
            dev.act(Swipe(x1=360, y1=1100, x2=360, y2=rng.choice([1050, 900, 600, 200, 1400])))
        else:
            els = actionable_elements(obs.ui) if obs.ui is not None else []
            node = rng.choice(els) if els else None
            dev.act(Tap(x=node.center[0], y=node.center[1]) if node else KeyPress(key="home"))
        obs = dev.observe()
        screens.append(obs.screenshot)
    return screens


def test_equal_entries_mean_equal_pixels_and_the_encoder_stores_every_screen_as_drawn() -> None:
    enc = FrameEncoder()
    unread = 0
    for seed in range(3):
        screens = _walk(seed, 90, dark=seed == 1)
        enc.clear()
        before = enc.bands_unread
        seen: dict[tuple[int, tuple[object, ...]], bytes] = {}  # any two screens, not only neighbours:
        for n, img in enumerate(screens):                         # the encoder reuses earlier screens' bands
            for index, (pixels, drawn) in enumerate(zip(_bands(img), _history(img), strict=True)):
                first = seen.setdefault((index, tuple(drawn)), pixels)
                assert first == pixels, f"seed {seed}, screen {n}: band {index} differs under an equal history"
        for img in screens:
            out = Image.open(io.BytesIO(enc.encode(img)))
            assert out.tobytes() == img.tobytes()
        unread += enc.bands_unread - before
    total = 3 * 91 * -(-1600 // BAND_ROWS)
    assert unread > total // 3, f"only {unread} of {total} bands went unread"


def _ops() -> dict[str, Callable[[Canvas], None]]:
    wall = Image.new("RGB", (50, 30), (10, 200, 30))
    mask = Image.new("L", (30, 30), 255)

    def nested(c: Canvas) -> None:
        outer = c.strip((0, 40, 200, 120))
        inner = outer.strip((20, 60, 180, 200))  # beyond the outer strip: clipped to it
        inner.rect((0, 0, 200, 200), (200, 0, 0))
        outer.put_back(inner)
        c.put_back(outer)

    return {
        "rect": lambda c: c.rect((13, 41, 90, 77), (200, 0, 0), outline=(0, 0, 0), width=3),
        "rounded, on a known colour": lambda c: c.rect((13, 41, 90, 77), (200, 0, 0), radius=12, bg=(240, 240, 240)),
        "rounded": lambda c: c.rect((13, 41, 90, 77), None, outline=(0, 0, 200), radius=12),
        "text": lambda c: c.text(17, 63, "Hello, world", 40, (0, 0, 0), (240, 240, 240)),
        "bold text, no background": lambda c: c.text(17, 63, "Hello gyp", 40, (0, 0, 0), None, bold=True),
        "line": lambda c: c.line([(5.5, 30.2), (150, 99.7), (60, 130)], (0, 0, 0), 9),
        "ellipse": lambda c: c.ellipse((20, 33, 99, 111), (0, 90, 0), outline=(0, 0, 0), width=4),
        "polygon": lambda c: c.polygon([(10, 50.4), (100, 31.6), (70, 121.2)], (9, 9, 9)),
        "arc": lambda c: c.arc((20, 33, 99, 111), 200, 340, (0, 0, 0), 6),
        "paste": lambda c: c.paste("wall", wall, (30, 47, 80, 77)),
        "paste through a mask": lambda c: c.paste("disc", (0, 0, 0), (30, 47, 60, 77), mask),
        "dim": lambda c: c.dim((0, 52, 200, 99), 45),
        "strips": nested,
    }


def test_every_drawing_operation_logs_every_row_it_changes() -> None:
    for name, op in _ops().items():
        blank = Image.new("RGB", (200, 160), (240, 240, 240))
        img = blank.copy()
        history = BandHistory(160, band_rows=1)
        op(Canvas(img, history=history))
        changed = {y for y in range(160) if img.crop((0, y, 200, y + 1)).tobytes() != blank.crop((0, y, 200, y + 1)).tobytes()}
        logged = {y for y, band in enumerate(history.bands) if band}
        assert changed, f"{name}: drew nothing"
        assert changed <= logged, f"{name}: rows {sorted(changed - logged)} changed but were not logged"

