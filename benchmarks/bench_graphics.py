"""Full-resolution frames: time from a new phone screen to its image written to a terminal.

For each protocol guilens speaks (Sixel, Kitty graphics, iTerm2 images), the
same real sim screens go through what the phone view does for a live frame at
a box of 80x50 cells of 10x20 pixels: scale to the cells' pixels with the
action drawn (`PhoneView.encode`, on the worker thread in the app), the
layer's drawing sequence for the whole image, and the write into a
pseudo-terminal whose other end is drained (the kernel's tty copy counts).
Side by side, in the same run: textual-image's Sixel and TGP renderables asked
for the same frame at the same size, rendered to text with Rich.

Run: `python benchmarks/bench_graphics.py [--frames 30] [--cols 80] [--rows 50]` (also part of
`bench_phone_view.py`). Target: a Sixel or Kitty frame encoded and written in <= 50 ms median.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image

from guilens.screens.graphics.protocols import Place
from guilens.screens.phone_setup import fixed
from guilens.screens.widgets.phone import PhoneView

CELL = (10, 20)
TAP = {"type": "tap", "x": 540, "y": 1200}


def sim_frames(n: int) -> list[Image.Image]:
    from guilens.actions import KeyPress, OpenApp, Swipe
    from guilens.device.sim import SimDevice

    apps = ("shop", "search", "notes", "messages", "contacts", "calendar", "clock", "expense", "maps", "settings")
    dev = SimDevice()
    frames: list[Image.Image] = []
    i = 0
    while len(frames) < n:
        for action in (KeyPress(key="home"), OpenApp(app=apps[i % len(apps)]), Swipe(x1=540, y1=1800, x2=540, y2=900)):
            dev.act(action)
            frames.append(dev.observe().screenshot.convert("RGB"))
        i += 1
    dev.close()
    return frames[:n]


class Pty:
    """A pseudo-terminal whose reading end a thread drains, so writes cost what they cost a terminal."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        self.read = 0
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            self.read += len(chunk)

    def write(self, data: str) -> None:
        view = memoryview(data.encode())
        while view:
            n = os.write(self.slave, view)
            view = view[n:]

    @contextlib.contextmanager
    def as_stdout(self) -> Iterator[None]:
        """File descriptor 1 goes to this pty meanwhile (for code that writes to stdout itself)."""
        sys.__stdout__.flush()  # type: ignore[union-attr]
        saved = os.dup(1)
        os.dup2(self.slave, 1)
        try:
            yield
        finally:
            sys.__stdout__.flush()  # type: ignore[union-attr]
            os.dup2(saved, 1)
            os.close(saved)

    def close(self) -> None:
        os.close(self.slave)
        os.close(self.master)


def ours(frames: list[Image.Image], renderer: str, cols: int, rows: int, pty: Pty) -> list[float]:
    phone = PhoneView(fixed(renderer, cell=CELL))
    phone.box = (cols, rows)
    assert phone.protocol is not None
    times = []
    for img in frames:
        t0 = time.perf_counter()
        encoded, _fit = phone.encode(img, TAP)
        pty.write(phone.protocol.draw(encoded, Place(0, 0, ((0, encoded.rows),))))
        times.append(time.perf_counter() - t0)
    return times


def textual_image(frames: list[Image.Image], kind: str, cols: int, rows: int, pty: Pty) -> list[float]:
    from rich.console import Console
    from textual_image._terminal import CellSize, get_cell_size

    get_cell_size._result = CellSize(*CELL)  # type: ignore[attr-defined]
    from textual_image.renderable import SixelImage, TGPImage

    cls = SixelImage if kind == "sixel" else TGPImage
    times = []
    with pty.as_stdout():  # textual-image's TGP writes the image itself, straight to stdout
        for img in frames:
            out = io.StringIO()
            console = Console(file=out, width=cols, height=rows, force_terminal=True, color_system="truecolor")
            t0 = time.perf_counter()
            console.print(cls(img, width=cols, height=rows))
            pty.write(out.getvalue())
            sys.__stdout__.flush()  # type: ignore[union-attr]
            times.append(time.perf_counter() - t0)
    return times


def measure(frames: list[Image.Image], cols: int, rows: int) -> dict[str, list[float]]:
    pty = Pty()
    try:
        warm = frames[:1]
        results: dict[str, list[float]] = {}
        for name, fn in (
            ("Sixel (guilens)", lambda f: ours(f, "sixel", cols, rows, pty)),
            ("Kitty graphics (guilens)", lambda f: ours(f, "tgp", cols, rows, pty)),
            ("iTerm2 images (guilens)", lambda f: ours(f, "iterm", cols, rows, pty)),
            ("textual-image SixelImage", lambda f: textual_image(f, "sixel", cols, rows, pty)),
            ("textual-image TGPImage", lambda f: textual_image(f, "tgp", cols, rows, pty)),
        ):
            fn(warm)  # imports, first-call costs
            results[name] = fn(frames[1:])
        return results
    finally:
        pty.close()


def report(results: dict[str, list[float]], cols: int, rows: int) -> bool:
    med = {k: statistics.median(v) * 1000 for k, v in results.items()}
    p90 = {k: sorted(v)[int(len(v) * 0.9)] * 1000 for k, v in results.items()}
    print(f"full-resolution frames at {cols}x{rows} cells of {CELL[0]}x{CELL[1]} px, encoded and written to a pty")
    print(f"{'frame':28} {'median ms':>10} {'p90 ms':>8} {'fps':>6}")
    for k in results:
        print(f"{k:28} {med[k]:10.1f} {p90[k]:8.1f} {1000 / med[k]:6.0f}")
    for ours_key, theirs_key in (("Sixel (guilens)", "textual-image SixelImage"),
                                 ("Kitty graphics (guilens)", "textual-image TGPImage")):
        print(f"{ours_key}: {med[theirs_key] / med[ours_key]:.2f}x the speed of {theirs_key}")
    worst = max(med["Sixel (guilens)"], med["Kitty graphics (guilens)"])
    ok = worst <= 50.0
    print(f"target: a Sixel or Kitty frame <= 50 ms median: {worst:.1f} ms -> {'MET' if ok else 'NOT MET'}")
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--cols", type=int, default=80)
    ap.add_argument("--rows", type=int, default=50)
    args = ap.parse_args()
    frames = sim_frames(args.frames + 1)
    return 0 if report(measure(frames, args.cols, args.rows), args.cols, args.rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
