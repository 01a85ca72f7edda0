"""The phone view against textual-image's `HalfcellImage`: time from a new frame to the screen refreshed.

Both widgets sit side by side in one headless app, each in a box of the same
size, and take turns with the same 1080x2400 frames. For each frame the clock
starts when the frame is handed over and stops when Textual has composed the
screen update *and* turned it into terminal output (`render_segments`, which
a headless app otherwise skips), so the cost of the styles is counted too.

- `PhoneView` (ours): the frame is shrunk and turned into strips on a thread,
  as the runner's thread does in the app, then set on the widget.
- `HalfcellImage` (textual-image): the frame is assigned to `.image` on the
  event loop, its normal use.
- `HalfcellImage, pre-shrunk`: the same, with the frame shrunk on a thread
  first; shows how much of the gap is the shrinking and how much the styles.

Both pay Textual's screen-update timer (60 Hz), so a refresh lands on the next
tick: up to 16.7 ms of the figure is waiting, the same for all three.

The console is truecolor (`COLORTERM=truecolor` unless already set).

The same run then measures the phone's other two rooms on the same machine, side
by side: the text view of the UI tree against the half-cell view
(`bench_text_view.py`), and full-resolution Sixel, Kitty and iTerm2 frames
against textual-image's renderables (`bench_graphics.py`).

Run: `python benchmarks/bench_phone_view.py [--frames 40] [--cols 40] [--rows 44]`.
Targets: half cells <= 16 ms median and >= 5x faster than `HalfcellImage`; a text view update
<= 10 ms median; a Sixel or Kitty frame at 80x50 cells encoded and written in <= 50 ms median.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
# A truecolor terminal, as guilens is meant to run (and as the tmux test runs it): without it the
# console downgrades every colour to the 16-colour palette, which is slow and not what anyone sees.
os.environ.setdefault("COLORTERM", "truecolor")

from PIL import Image, ImageDraw, ImageFont
from textual._compositor import CompositorUpdate
from textual.app import App, ComposeResult
from textual.containers import Horizontal

from guilens.screens.widgets.halfcell import fit_image, shrink
from guilens.screens.widgets.phone import PhoneView


def sim_frames(n: int) -> list[Image.Image] | None:
    """Real phone screens from the simulated phone, if it is installed: the app list, scrolled."""
    try:
        from guilens.device.sim import SimDevice  # type: ignore[attr-defined]
    except Exception:
        return None
    try:
        dev = SimDevice()
        frames: list[Image.Image] = []
        for i in range(n):
            frames.append(dev.observe().screenshot.convert("RGB"))
            from guilens.actions import KeyPress, Swipe

            dev.act(Swipe(x1=540, y1=1800, x2=540, y2=900) if i % 4 else KeyPress(key="home"))
        dev.close()
        return frames
    except Exception:
        return None


def synthetic_frames(n: int) -> list[Image.Image]:
    """A scrolling list UI with text and photos-like gradients; every frame differs."""
    font = ImageFont.load_default(size=44)
    frames = []
    for i in range(n):
        img = Image.new("RGB", (1080, 2400), (246, 246, 250))
        d = ImageDraw.Draw(img)
        d.rectangle([0, 0, 1080, 80], fill=(24, 24, 28))
        d.text((40, 18), f"09:{i % 60:02d}", fill=(255, 255, 255), font=font)
        d.rectangle([0, 80, 1080, 240], fill=(56, 92, 200))
        d.text((40, 130), "Shop · results", fill=(255, 255, 255), font=font)
        off = (i * 37) % 160
        for row in range(14):
            y = 280 + row * 160 - off
            d.rounded_rectangle([30, y, 1050, y + 140], 24, fill=(255, 255, 255), outline=(214, 214, 222), width=3)
            for k in range(110):  # a thumbnail with a gradient, like a product photo
                d.line([(50 + k, y + 15), (50 + k, y + 125)], fill=((row * 40 + k) % 255, (k * 2) % 255, 180))
            d.text((190, y + 25), f"Item {row + i} — ${(row * 7 + i) % 90 + 9}.99", fill=(20, 20, 20), font=font)
            d.text((190, y + 80), "Free delivery · 4.5 ★", fill=(110, 110, 120), font=font)
        frames.append(img)
    return frames


class Bench(App[None]):
    CSS = """
    Horizontal { height: auto; }
    #ours, #stock { border: none; }
    """

    def __init__(self, cols: int, rows: int) -> None:
        super().__init__()
        self.cols, self.rows = cols, rows
        self.displayed = asyncio.Event()

    def compose(self) -> ComposeResult:
        from textual_image.widget import HalfcellImage

        ours = PhoneView("halfcell", id="ours")
        stock = HalfcellImage(id="stock")
        for w in (ours, stock):
            w.styles.width = self.cols
            w.styles.height = self.rows
        with Horizontal():
            yield ours
            yield stock

    def _display(self, screen, renderable) -> None:  # type: ignore[no-untyped-def,override]
        # What a real terminal run does with the update, minus the write itself.
        if isinstance(renderable, CompositorUpdate):
            renderable.render_segments(self.console)
            self.displayed.set()


async def _until_displayed(app: Bench) -> None:
    await asyncio.wait_for(app.displayed.wait(), timeout=5)


async def measure(frames: list[Image.Image], cols: int, rows: int) -> dict[str, list[float]]:
    from textual_image.widget import HalfcellImage

    app = Bench(cols, rows)
    times: dict[str, list[float]] = {"PhoneView (guilens)": [], "HalfcellImage": [], "HalfcellImage, pre-shrunk": []}
    async with app.run_test(size=(cols * 2 + 4, rows + 2)) as pilot:
        await pilot.pause(0.3)
        ours = app.query_one("#ours", PhoneView)
        stock = app.query_one("#stock", HalfcellImage)
        assert ours.box == (cols, rows), ours.box
        fit = fit_image(frames[0].size, cols, rows, ours.cell)
        for n, img in enumerate(frames):
            await pilot.pause(0.05)  # let any earlier update settle
            # ours: prepare off the loop, as the runner's thread does, then hand over
            app.displayed.clear()
            t0 = time.perf_counter()
            frame = await asyncio.to_thread(ours.prepare, img, None)
            ours.show(img, frame=frame)
            await _until_displayed(app)
            times["PhoneView (guilens)"].append(time.perf_counter() - t0)

            await pilot.pause(0.05)
            app.displayed.clear()
            t0 = time.perf_counter()
            stock.image = img
            await _until_displayed(app)
            times["HalfcellImage"].append(time.perf_counter() - t0)

            await pilot.pause(0.05)
            app.displayed.clear()
            t0 = time.perf_counter()
            small = await asyncio.to_thread(shrink, img, fit)
            stock.image = small
            await _until_displayed(app)
            times["HalfcellImage, pre-shrunk"].append(time.perf_counter() - t0)
            if n == 0:  # warm-up frame: imports, first style cache fill
                for v in times.values():
                    v.clear()
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--cols", type=int, default=40)
    ap.add_argument("--rows", type=int, default=44)
    args = ap.parse_args()

    frames = sim_frames(args.frames + 1)
    source = "sim phone"
    if frames is None:
        frames, source = synthetic_frames(args.frames + 1), "synthetic list UI"
    print(f"{len(frames) - 1} frames of {frames[0].width}x{frames[0].height} ({source}), "
          f"widget {args.cols}x{args.rows} cells, same app, taking turns")
    times = asyncio.run(measure(frames, args.cols, args.rows))
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    p90 = {k: sorted(v)[int(len(v) * 0.9)] * 1000 for k, v in times.items()}
    ours = med["PhoneView (guilens)"]
    print(f"{'renderer':28} {'median ms':>10} {'p90 ms':>8} {'fps':>6} {'vs ours':>8}")
    for k in times:
        print(f"{k:28} {med[k]:10.1f} {p90[k]:8.1f} {1000 / med[k]:6.0f} {med[k] / ours:7.1f}x")
    ratio = med["HalfcellImage"] / ours
    ok = ours <= 16.0 and ratio >= 5.0
    print(f"target: median <= 16 ms and >= 5x faster than HalfcellImage: "
          f"{ours:.1f} ms, {ratio:.1f}x -> {'MET' if ok else 'NOT MET'}")

    import bench_graphics
    import bench_text_view

    print()
    text_frames = bench_text_view.sim_frames(args.frames + 1)
    text_ok = bench_text_view.report(text_frames, 48, 55) == 0
    print()
    graphics_frames = bench_graphics.sim_frames(min(args.frames, 30) + 1)
    graphics_ok = bench_graphics.report(bench_graphics.measure(graphics_frames, 80, 50), 80, 50)
    return 0 if ok and text_ok and graphics_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
