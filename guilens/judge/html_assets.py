"""The screens a report embeds: each step's screen with its action drawn, as two small WebP images.

A 26-task run holds some 400 screens of 1080x2400 PNG (about 38 MB). Embedded as they are, the
report would be bigger than the run. So each screen becomes a thumbnail (180 px wide, ~3 kB) shown
in the trajectory and a larger copy (540 px wide, ~11 kB) shown when the thumbnail is clicked; both
carry the action drawn as the judge's models see it (`images.draw_action`). Measured on the memory
pack: 409 screens make ~6 MB of WebP, ~8 MB once base64-encoded into the page.

Decoding a PNG and encoding two WebPs takes ~30 ms a screen, mostly in Pillow's C code; a pool of
processes spreads them over the cores (threads would mostly wait on each other). Small reports are
made in-process: starting workers costs more than it saves there.
"""

from __future__ import annotations

import base64
import io
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

THUMB_WIDTH = 180
THUMB_QUALITY = 55
FULL_WIDTH = 540
FULL_QUALITY = 60
WEBP_METHOD = 2
"""libwebp's effort, 0..6: 2 is 3x faster than the default 4 at this size for ~5% more bytes."""
PARALLEL_FROM = 24
"""Screens below this many are made in-process."""


@dataclass(frozen=True)
class ScreenJob:
    """One screen to embed: the PNG and the action taken on it (None for the final screen)."""

    path: Path
    action: dict[str, Any] | None = None


@dataclass(frozen=True)
class ScreenImages:
    """A screen's two WebP encodings, or why there are none (a missing or unreadable PNG)."""

    thumb: bytes = b""
    full: bytes = b""
    width: int = 0
    height: int = 0
    error: str = ""

    def thumb_uri(self) -> str:
        return data_uri(self.thumb)

    def full_uri(self) -> str:
        return data_uri(self.full)


def data_uri(webp: bytes) -> str:
    return "data:image/webp;base64," + base64.b64encode(webp).decode("ascii")


def _webp(img: Any, width: int, quality: int) -> tuple[bytes, Any]:
    from PIL import Image

    if img.width > width:
        if img.width >= 2 * width:  # a box reduction first: Lanczos over 1080 px columns is the slow part
            img = img.reduce(img.width // width)
        img = img.resize((width, max(1, round(img.height * width / img.width))), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    img.save(buf, "WEBP", quality=quality, method=WEBP_METHOD)
    return buf.getvalue(), img


def render_screen(job: ScreenJob) -> ScreenImages:
    """Both encodings of one screen; never raises for a bad file (the page says what was wrong)."""
    from PIL import Image, UnidentifiedImageError

    from guilens.judge.images import draw_action

    try:
        with Image.open(job.path) as src:
            img = draw_action(src, job.action)
    except FileNotFoundError:
        return ScreenImages(error=f"{job.path.name}: missing")
    except (OSError, UnidentifiedImageError, ValueError) as err:
        return ScreenImages(error=f"{job.path.name}: unreadable ({err})")
    full, big = _webp(img, FULL_WIDTH, FULL_QUALITY)
    thumb, _ = _webp(big, THUMB_WIDTH, THUMB_QUALITY)
    return ScreenImages(thumb=thumb, full=full, width=img.width, height=img.height)


def _batch(jobs: Sequence[ScreenJob]) -> list[ScreenImages]:
    return [render_screen(j) for j in jobs]


def workers_for(n_jobs: int) -> int:
    """How many processes to use: one per core, none for a small report."""
    if n_jobs < PARALLEL_FROM:
        return 0
    return max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1,
                      8, n_jobs // PARALLEL_FROM + 1))


def render_screens(jobs: Sequence[ScreenJob], workers: int | None = None) -> list[ScreenImages]:
    """Every job's images, in order. `workers`: processes to use (None: `workers_for`; 0 or 1: in-process)."""
    n = workers_for(len(jobs)) if workers is None else workers
    if n <= 1:
        return _batch(jobs)
    # Batches rather than single screens: one pickled round trip per ~16 screens, not per screen.
    size = max(1, min(16, len(jobs) // (n * 4) or 1))
    batches = [list(jobs[i : i + size]) for i in range(0, len(jobs), size)]
    try:
        with ProcessPoolExecutor(max_workers=n) as pool:
            return [img for part in pool.map(_batch, batches) for img in part]
    except (OSError, RuntimeError):  # no processes to be had (a sandbox, a limit): do it here instead
        return _batch(jobs)
