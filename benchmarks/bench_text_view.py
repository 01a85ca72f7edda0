"""The text view against the half-cell view: time to turn one new phone screen into terminal lines.

Both are measured side by side in one run, on the same real sim screens (each
of the eleven apps and the launcher, scrolled and unscrolled), for the same box
of cells:

- text view, pure: `parse_ui_xml` + `layout_screen` + `build_strips` (with one
  Rich style per combination of marks, cached, as the widget does);
- text view, in the app: `TextPhone.show()` in a headless Textual app, the
  same work with the theme's component styles (what the event loop pays);
- half-cell view: `prepare_frame` on the screenshot (shrink + strips), which
  the runner's thread does for every frame the pixel view shows.

Run: `python benchmarks/bench_text_view.py [--frames 40] [--cols 48] [--rows 55]`.
Target: text view update <= 10 ms median.
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
os.environ.setdefault("COLORTERM", "truecolor")

from PIL import Image
from rich.style import Style
from textual.app import App, ComposeResult

from guilens.actions import KeyPress, OpenApp, Swipe
from guilens.device.sim import SimDevice
from guilens.device.uitree import parse_ui_xml
from guilens.screens.widgets.halfcell import prepare_frame
from guilens.screens.widgets.textlabels import Mark
from guilens.screens.widgets.textlayout import layout_screen
from guilens.screens.widgets.textphone import TextPhone, build_strips

APPS = ("shop", "search", "calculator", "notes", "messages", "contacts", "calendar", "clock", "expense", "maps",
        "settings")
Frame = tuple[str, tuple[int, int], Image.Image]


def sim_frames(n: int) -> list[Frame]:
    """`n` real screens: each app opened, then scrolled; the launcher between them."""
    dev = SimDevice()
    frames: list[Frame] = []
    i = 0
    while len(frames) < n:
        app = APPS[i % len(APPS)]
        for action in (KeyPress(key="home"), OpenApp(app=app), Swipe(x1=540, y1=1800, x2=540, y2=900)):
            dev.act(action)
            obs = dev.observe()
            if obs.ui_xml:
                frames.append((obs.ui_xml, obs.size, obs.screenshot.convert("RGB")))
        i += 1
    dev.close()
    return frames[:n]


def text_view_pure(frames: list[Frame], cols: int, rows: int) -> list[float]:
    # A stand-in for the theme: one style per combination of marks, built once and cached.
    cache: dict[int, Style] = {}
    blank = Style(bgcolor="#1e1e1e")

    def style_for(flags: Mark) -> Style:
        style = cache.get(flags)
        if style is None:
            style = cache[flags] = Style(color="#e0e0e0", bgcolor="#1e1e1e", bold=bool(flags & Mark.NUMBER),
                                         underline=bool(flags & Mark.EDITABLE), reverse=bool(flags & Mark.TARGET))
        return style

    times = []
    for xml, size, _ in frames:
        t0 = time.perf_counter()
        layout = layout_screen(parse_ui_xml(xml), size, cols, rows, action={"type": "tap", "x": 540, "y": 1200})
        build_strips(layout, style_for, blank)
        times.append(time.perf_counter() - t0)
    return times


def halfcell(frames: list[Frame], cols: int, rows: int) -> list[float]:
    times = []
    for _, _, img in frames:
        t0 = time.perf_counter()
        prepare_frame(img, (cols, rows), action={"type": "tap", "x": 540, "y": 1200}, cell=(10, 20))
        times.append(time.perf_counter() - t0)
    return times


class _Host(App[None]):
    def __init__(self, cols: int, rows: int) -> None:
        super().__init__()
        self.cols, self.rows = cols, rows

    def compose(self) -> ComposeResult:
        phone = TextPhone()
        phone.styles.width, phone.styles.height = self.cols, self.rows
        yield phone


async def text_view_in_app(frames: list[Frame], cols: int, rows: int) -> list[float]:
    app = _Host(cols, rows)
    times = []
    async with app.run_test(size=(cols + 2, rows + 2)) as pilot:
        await pilot.pause()
        phone = app.query_one(TextPhone)
        for xml, size, _ in frames:
            t0 = time.perf_counter()
            phone.show(xml, size, {"type": "tap", "x": 540, "y": 1200})
            times.append(time.perf_counter() - t0)
            await pilot.pause()
        assert phone.text_layout is not None and phone.text_layout.cols == cols
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--cols", type=int, default=48)
    ap.add_argument("--rows", type=int, default=55)
    args = ap.parse_args()
    return report(sim_frames(args.frames + 1), args.cols, args.rows)


def report(frames: list[Frame], cols: int, rows: int) -> int:
    """Measure and print; 0 when the target is met (`bench_phone_view.py` calls this too)."""
    print(f"{len(frames) - 1} sim screens (12 apps, scrolled and not), box {cols}x{rows} cells")
    warm, frames = frames[:1], frames[1:]
    text_view_pure(warm, cols, rows)  # imports, first style cache fill
    halfcell(warm, cols, rows)
    results = {
        "text view (parse+layout+strips)": text_view_pure(frames, cols, rows),
        "text view, TextPhone.show() in app": asyncio.run(text_view_in_app(warm + frames, cols, rows))[1:],
        "half-cell prepare_frame": halfcell(frames, cols, rows),
    }
    med = {k: statistics.median(v) * 1000 for k, v in results.items()}
    p90 = {k: sorted(v)[int(len(v) * 0.9)] * 1000 for k, v in results.items()}
    ref = med["half-cell prepare_frame"]
    print(f"{'update':36} {'median ms':>10} {'p90 ms':>8} {'vs half-cell':>13}")
    for k in results:
        print(f"{k:36} {med[k]:10.2f} {p90[k]:8.2f} {med[k] / ref:12.2f}x")
    worst = max(med["text view (parse+layout+strips)"], med["text view, TextPhone.show() in app"])
    ok = worst <= 10.0
    print(f"target: text view update <= 10 ms median: {worst:.2f} ms -> {'MET' if ok else 'NOT MET'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
