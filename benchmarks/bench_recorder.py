"""How long the step loop waits on the recorder, against writing the same PNGs synchronously.

Usage: python benchmarks/bench_recorder.py [--steps 200] [--pace-ms 30]

Records `--steps` steps of 1080x2400 screens twice, UI-like and photo-like:
once through `Recorder` (encoding off the critical path) and once the naive
way (encode each PNG in the loop). The loop either runs back to back (worst
case: nothing else to do, so the bounded queue fills) or paced like a real
step (`--pace-ms` of agent + device time per step, the oracle on the sim).
It prints the median wait per step, bytes per step and their ratios, all
measured in this one run, since these machines are noisy.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from guilens.episode import Episode, Recorder, Step, Timings, encode_png

SIZE = (1080, 2400)


def ui_frames(n: int) -> list[Image.Image]:
    font = ImageFont.load_default(size=44)
    small = ImageFont.load_default(size=32)
    frames = []
    for i in range(n):
        img = Image.new("RGB", SIZE, (246, 246, 250))
        d = ImageDraw.Draw(img)
        d.rectangle((0, 0, SIZE[0], 90), fill=(20, 24, 40))
        d.text((40, 22), f"09:{i % 60:02d}", fill=(255, 255, 255), font=small)
        d.rectangle((0, 90, SIZE[0], 260), fill=(63, 81, 181))
        d.text((48, 140), "Notes", fill=(255, 255, 255), font=font)
        for row in range(9):
            y = 300 + row * 220
            d.rounded_rectangle((36, y, SIZE[0] - 36, y + 190), 28, fill=(255, 255, 255), outline=(220, 220, 230))
            d.text((80, y + 40), f"Shopping list {row + i}", fill=(25, 25, 30), font=font)
            d.text((80, y + 110), f"Milk, eggs, {row * 3 + i} apples", fill=(110, 110, 120), font=small)
        frames.append(img)
    return frames


def photo_frames(n: int) -> list[Image.Image]:
    base = Image.effect_mandelbrot(SIZE, (-2.0, -1.5, 1.0, 1.5), 60)
    grad = Image.linear_gradient("L").resize(SIZE)
    return [
        Image.merge("RGB", [base, Image.effect_noise(SIZE, 24 + i % 7).convert("L"), grad]) for i in range(n)
    ]


def step(i: int) -> Step:
    now = datetime.now(UTC)
    return Step(index=i, started_at=now, ended_at=now, thought="bench", action={"type": "tap", "x": 1, "y": 1})


def run_recorder(frames: list[Image.Image], steps: int, pace: float, out: Path) -> tuple[list[float], int]:
    ep = Episode(task="bench", timings=Timings(started_at=datetime.now(UTC)))
    rec = Recorder(out, ep)
    waits = []
    for i in range(steps):
        if pace:
            time.sleep(pace)
        t = time.perf_counter()
        rec.record_step(step(i), frames[i % len(frames)])
        waits.append(time.perf_counter() - t)
    rec.finish("success")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return waits, size


def run_sync(frames: list[Image.Image], steps: int, out: Path) -> tuple[list[float], int]:
    (out / "screens").mkdir(parents=True)
    waits = []
    with open(out / "steps.jsonl", "w") as f:
        for i in range(steps):
            t = time.perf_counter()
            frames[i % len(frames)].save(out / "screens" / f"{i:04d}.png", compress_level=6)
            f.write(step(i).model_dump_json() + "\n")
            f.flush()
            waits.append(time.perf_counter() - t)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return waits, size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--pace-ms", type=float, default=30.0)
    args = ap.parse_args()
    pace = args.pace_ms / 1000
    print(f"{args.steps} steps of {SIZE[0]}x{SIZE[1]} per kind; paced run: {args.pace_ms:g} ms of other work per step")
    print(f"{'frames':8} {'mode':22} {'median wait/step':>17} {'p95':>9} {'bytes/step':>11} {'wait vs sync':>13}")
    for kind, frames in (("ui", ui_frames(12)), ("photo", photo_frames(4))):
        steps = args.steps
        with tempfile.TemporaryDirectory() as tmp:
            sync_w, sync_b = run_sync(frames, steps, Path(tmp) / "sync")
            back_w, back_b = run_recorder(frames, steps, 0.0, Path(tmp) / "rec")
            paced_w, paced_b = run_recorder(frames, steps, pace, Path(tmp) / "paced")
        sync_med = statistics.median(sync_w)
        for mode, w, b in (
            ("sync png (level 6)", sync_w, sync_b),
            ("recorder, back to back", back_w, back_b),
            (f"recorder, paced {args.pace_ms:g} ms", paced_w, paced_b),
        ):
            med = statistics.median(w)
            p95 = statistics.quantiles(w, n=20)[-1]
            print(
                f"{kind:8} {mode:22} {med * 1000:14.2f} ms {p95 * 1000:6.1f} ms {b / steps:11.0f} "
                f"{med / sync_med:12.3f}x"
            )
        sample = frames[0]
        with tempfile.TemporaryDirectory() as tmp:
            ours = encode_png(sample, Path(tmp) / "a.png")
            sample.save(Path(tmp) / "b.png", compress_level=6)
            plain = (Path(tmp) / "b.png").stat().st_size
        print(f"{kind:8} one screen: {ours} bytes as stored vs {plain} as plain RGB PNG ({ours / plain:.2f}x)")


if __name__ == "__main__":
    main()
