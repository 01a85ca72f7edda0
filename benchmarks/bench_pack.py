"""The memory pack, headless, against the same actions played bare: wall time, peak RSS, RSS per attempt.

Usage: python benchmarks/bench_pack.py [--rounds 3] [--attempts 16] [--scenario memory] [--level L0]

Issue 14's "Memory pack" and "Memory" goals, measured side by side in one run
(these machines are noisy), each side in a fresh process so neither starts
warmer than the other (the simulated phone caches its drawn text):

- bare: the reference's actions straight on a `SimDevice` (observe, act,
  observe; the final state), nothing recorded or checked: the device's own
  time for the actions.
- runner: `Runner.run()` on the whole pack with the oracle agent and user,
  the headless observer printing into a buffer, recording everything (PNG
  screens, UI trees, state files, steps.jsonl, episode.json).

Rounds alternate bare and runner. Each side's time is taken inside its
process around the run alone (imports and interpreter start-up excluded), the
peak RSS of the runner's process from `os.wait4`. Each process plays the pack
twice: the first pass is what `guilens run memory` does (a fresh process, the
phone's text caches cold), the second what a long-lived process (the TUI) does
with them warm; both ratios are printed, each side against its like. Then one task is run for
`--attempts` attempts in one process (k attempts, every one played), and the
RSS after each attempt gives the growth per attempt (least-squares slope over
the attempts after the first two, which warm the phone's caches). Last, every
screen the runner stored is decoded with Pillow and checked against the
screens the bare phone showed for that task (pixel for pixel).

Targets (PASS/FAIL lines at the end):
- runner wall / bare wall <= 3.0 (median over rounds), cold and warm;
- peak RSS of the runner's process <= 200 MB (the largest over rounds, both passes);
- RSS growth <= 0.5 MB per attempt (flat);
- every stored screen decodes to exactly pixels the device showed.

Also printed, not a target: the runner process's CPU time over its wall time,
the cores it kept busy on average. Near 1.0 on two cores means the PNG encoders
did not run beside the loop but took turns with it on the interpreter's lock.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RATIO_TARGET = 3.0
PEAK_MB_TARGET = 200.0
SLOPE_MB_TARGET = 0.5


def rss_mb() -> float:
    """This process's resident set now, in MB (Linux /proc; else psutil; else the peak so far)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        pass
    try:
        import psutil  # type: ignore[import-not-found]

        return float(psutil.Process().memory_info().rss) / 2**20
    except ImportError:
        import resource

        scale = 1 if sys.platform == "darwin" else 1024
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20


# -- the children ---------------------------------------------------------------------------------
def child_bare(scenario_id: str, level: str, hashes: bool) -> dict[str, Any]:
    """Observe and act only, the pack twice (cold, then warm). With `hashes`, one pass, and the digest
    of every screen shown, per task (untimed use)."""
    from guilens.scenarios.loader import find_scenario

    scenario = find_scenario(scenario_id)
    tasks = [t for t in scenario.tasks if t.reference]
    seen: dict[str, list[str]] = {}
    walls = []
    for _ in range(1 if hashes else 2):
        wall, steps = _bare_pass(scenario, tasks, level, seen if hashes else None)
        walls.append(wall)
    return {"wall": walls[0], "warm": walls[-1], "steps": steps, "tasks": len(tasks), "screens": seen}


def _bare_pass(scenario: Any, tasks: list[Any], level: str, seen: dict[str, list[str]] | None) -> tuple[float, int]:
    """`bench_runner.bare`: the same actions on a bare SimDevice; with `seen`, each screen's digest."""
    from bench_runner import bare

    def digest(task_id: str, obs: Any) -> None:
        assert seen is not None
        seen.setdefault(task_id, []).append(hashlib.sha256(obs.screenshot.convert("RGB").tobytes()).hexdigest())

    return bare(scenario, tasks, level, digest if seen is not None else None)


class _AttemptRSS:
    """An observer that notes the process's RSS as each attempt ends; every other event is ignored."""

    def __init__(self) -> None:
        self.rss: list[float] = []

    def on_attempt_finished(self, episode: Any) -> None:
        self.rss.append(rss_mb())

    def __getattr__(self, name: str) -> Any:
        if name.startswith("on_"):
            return lambda *args, **kwargs: None
        raise AttributeError(name)


def child_runner(target: str, level: str, out: Path, attempts: int) -> dict[str, Any]:
    """The real runner, headless, its observer printing into a buffer."""
    from guilens.config import Settings
    from guilens.headless import HeadlessObserver
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    walls, cpus, probe = [], [], _AttemptRSS()
    for n in range(1 if attempts > 1 else 2):  # the pack: cold, then warm, as the bare loop
        plan = plan_run(target, agent="oracle", devices=["sim"], user="oracle", level=level, out=out / f"pass{n}",
                        attempts=attempts, all_attempts=attempts > 1, settings=Settings(), check_agent=False)
        observers = [HeadlessObserver(io.StringIO(), color=False, progress=False), probe]
        t, c = time.perf_counter(), time.process_time()
        result = Runner(plan, observers=observers).run()  # type: ignore[arg-type]
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
        eps = result.episodes
        if n == 0:
            first = eps
    bad = [(ep.task, ep.status, ep.error) for ep in eps if ep.status != "success"]
    return {"wall": walls[0], "warm": walls[-1], "cpu": cpus[0], "cpu_warm": cpus[-1],
            "steps": sum(ep.steps for ep in eps), "attempts": len(eps),
            "bad": bad, "rss": probe.rss, "device_s": sum(ep.timings.device_s for ep in first)}


def run_child(opts: list[str], *args: str) -> tuple[dict[str, Any], float]:
    """Run this script as a child (`opts`: the scenario and level); its JSON answer and peak RSS in MB."""
    proc = subprocess.Popen([sys.executable, __file__, *opts, "--child", *args], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    data = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"bench_pack: child {' '.join(args)} failed with exit code {proc.returncode}")
    scale = 1 if sys.platform == "darwin" else 1024
    return json.loads(data.strip().splitlines()[-1]), usage.ru_maxrss * scale / 2**20


def slope(values: list[float]) -> float:
    """Least-squares growth per step of `values` (0 for fewer than two)."""
    n = len(values)
    if n < 2:
        return 0.0
    xs = range(n)
    mx, my = (n - 1) / 2, statistics.fmean(values)
    return sum((x - mx) * (y - my) for x, y in zip(xs, values, strict=True)) / sum((x - mx) ** 2 for x in xs)


def check_screens(run_root: Path, shown: dict[str, list[str]]) -> tuple[int, list[str]]:
    """Decode every stored screen; each must equal, pixel for pixel, a screen the bare phone showed
    for that task. Returns (screens checked, problems)."""
    from PIL import Image

    checked, problems = 0, []
    for png in sorted(run_root.rglob("screens/*.png")):
        task = png.parent.parent.parent.name  # <run>/<task>/attempt-N/screens/NNNN.png
        try:
            with Image.open(png) as im:
                im.load()
                digest = hashlib.sha256(im.convert("RGB").tobytes()).hexdigest()
        except Exception as err:
            problems.append(f"{png}: does not decode: {err}")
            continue
        checked += 1
        if digest not in set(shown.get(task, [])):
            problems.append(f"{png}: pixels differ from every screen the phone showed for {task}")
    return checked, problems


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--attempts", type=int, default=16, help="attempts of one task for the RSS slope")
    ap.add_argument("--scenario", default="memory")
    ap.add_argument("--level", default="L0")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child:
        kind, *rest = args.child
        if kind == "bare":
            answer = child_bare(args.scenario, args.level, hashes=rest == ["hashes"])
        else:
            answer = child_runner(rest[0], args.level, Path(rest[1]), int(rest[2]))
        print(json.dumps(answer))
        return

    from guilens.scenarios.loader import find_scenario

    scenario = find_scenario(args.scenario)
    first = next(t for t in scenario.tasks if t.reference)
    opts = ["--scenario", args.scenario, "--level", args.level]
    rounds: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="bench_pack-") as tmp:
        for r in range(args.rounds):
            bare, _ = run_child(opts, "bare")
            out = Path(tmp) / f"round{r}"
            ran, peak = run_child(opts, "runner", args.scenario, str(out), "1")
            if ran["bad"]:
                raise SystemExit(f"bench_pack: attempts did not succeed: {ran['bad']}")
            if ran["steps"] != bare["steps"]:
                print(f"  note: the runner took {ran['steps']} steps, the bare loop {bare['steps']}")
            rounds.append({"bare": bare["wall"], "run": ran["wall"], "bare_warm": bare["warm"],
                           "run_warm": ran["warm"], "peak": peak, "steps": ran["steps"],
                           "busy": ran["cpu"] / ran["wall"], "busy_warm": ran["cpu_warm"] / ran["warm"]})
            print(f"round {r + 1}: cold: bare {bare['wall']:.2f} s | runner {ran['wall']:.2f} s "
                  f"({ran['wall'] / bare['wall']:.2f}x; device inside {ran['device_s']:.2f} s) || warm: bare "
                  f"{bare['warm']:.2f} s | runner {ran['warm']:.2f} s ({ran['warm'] / bare['warm']:.2f}x) || "
                  f"peak RSS {peak:.0f} MB | {ran['steps']} steps, {ran['attempts']} attempts")
        rep, _ = run_child(opts, "runner", f"{args.scenario}:{first.id}", str(Path(tmp) / "attempts"),
                           str(args.attempts))
        shown, _ = run_child(opts, "bare", "hashes")
        checked, problems = check_screens(Path(tmp) / f"round{args.rounds - 1}" / "pass0", shown["screens"])

    def med(key: str) -> float:
        return statistics.median(r[key] for r in rounds)

    ratio = statistics.median(r["run"] / r["bare"] for r in rounds)
    warm_ratio = statistics.median(r["run_warm"] / r["bare_warm"] for r in rounds)
    peak = max(r["peak"] for r in rounds)
    rss = rep["rss"]
    growth = slope(rss[2:])
    steps = rounds[-1]["steps"]
    ms = lambda key: med(key) / steps * 1000  # noqa: E731
    print()
    print(f"pack: {args.scenario} ({args.level}), {int(steps)} steps; medians over {args.rounds} rounds")
    print(f"{'':36}{'cold (a fresh run)':>22}{'warm (2nd pass)':>22}")
    print(f"{'bare SimDevice, the same actions':36}{med('bare'):9.2f} s {ms('bare'):5.1f} ms/st"
          f"{med('bare_warm'):9.2f} s {ms('bare_warm'):5.1f} ms/st")
    print(f"{'runner, headless, recording':36}{med('run'):9.2f} s {ms('run'):5.1f} ms/st"
          f"{med('run_warm'):9.2f} s {ms('run_warm'):5.1f} ms/st")
    print(f"{'runner over bare (target <= 3x)':36}{ratio:21.2f}x{warm_ratio:21.2f}x")
    print(f"{'runner CPU over its wall time':36}{med('busy'):21.2f} {med('busy_warm'):21.2f}   "
          "(cores busy on average, of 2: near 1, the encoders wait on the loop's GIL)")
    print(f"peak RSS of the runner's process:  {peak:6.0f} MB (target <= {PEAK_MB_TARGET:g} MB; both passes)")
    print(f"RSS after each of {len(rss)} attempts of {first.id} (MB): {' '.join(f'{v:.0f}' for v in rss)}")
    print(f"RSS growth per attempt (after 2):  {growth:6.2f} MB/attempt (target <= {SLOPE_MB_TARGET:g})")
    print(f"screens decoded with Pillow and matched to the phone's pixels: {checked - len(problems)}/{checked}")
    for p in problems[:5]:
        print(f"  {p}")
    print()
    verdicts = [
        ("wall time <= 3x the bare device, a fresh run (the `guilens run` case)", ratio <= RATIO_TARGET),
        ("wall time <= 3x the bare device, warm (a long-lived process: the TUI)", warm_ratio <= RATIO_TARGET),
        ("peak RSS <= 200 MB", peak <= PEAK_MB_TARGET),
        ("RSS flat with attempts", growth <= SLOPE_MB_TARGET),
        ("every screen lossless and decodable", checked > 0 and not problems),
    ]
    for name, ok in verdicts:
        print(f"{'PASS' if ok else 'FAIL'}  {name}")

if __name__ == "__main__":
    main()
