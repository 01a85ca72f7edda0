"""Devices in parallel: how much more a run gets done with two sims than with one (issue 14).

Usage: python benchmarks/bench_parallel.py [--rounds 3] [--scenario memory] [--level L0] [--tasks N]

Runs the same tasks (the memory pack by default: the oracle agent and oracle
user, headless, every screen recorded) three ways per round, interleaved round
by round because these machines are noisy:

- one:       `-d sim`, one sim in this process (the baseline);
- processes: `-d sim -d sim`, each sim in a process of its own
             (`guilens.device.process_host`), what `guilens run` does today;
- threads:   two `SimDevice`s handed in open, so both run as threads of this
             process: how a batch ran before devices had processes (reference).

Each run is a fresh Python process (as each `guilens run` is), so no way
profits from caches another warmed (the sim's fonts and glyphs). Throughput is
recorded steps per second of wall time for the whole `Runner.run()` (opening
the devices, their processes' start-up, recording and the drain included: what
a user waits for, less the interpreter's own start). Reported as medians over
rounds, with each way's ratio to `one`.

CPU per step (user + system) is shown beside it, for the run's own process
and for its device processes (as each reported when closed; the fork server's
one-off import of the sim, about 0.3 s per guilens process, is not in it):
unlike wall time it hardly moves when other work shares the machine, and it
bounds what two cores can do: two sims cannot run faster than 2 cores / (CPU
per step), nor faster than the parent's own share allows (its Python work holds
one GIL). The last line prints that ceiling.

Target: processes / one >= 1.6x (PASS/FAIL printed). On a 2-core machine this
needs the parent's work per step (agent, checks, observers, and the recorder's
PNG encoding, which stays in the parent) to fit beside the two sims: when the
encoders already fill both cores with one device, no placement of the sims can
double the rate. The `threads` line shows what the GIL alone cost.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET = 1.6
WAYS = ("one", "processes", "threads")


def run_once(way: str, target: str, level: str, tasks: int | None, out: Path) -> tuple[float, int, float]:
    """One headless run of `target` the given way; returns (wall seconds, steps recorded, CPU seconds
    the device processes reported using)."""
    from guilens.config import Settings
    from guilens.headless import HeadlessObserver
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    devices: list[Any]
    if way == "one":
        devices = ["sim"]
    elif way == "processes":
        devices = ["sim", "sim"]
    else:
        from guilens.device.sim import SimDevice

        devices = [SimDevice(), SimDevice()]
    plan = plan_run(target, agent="oracle", devices=devices, user="oracle", level=level, out=out,
                    settings=Settings(), check_agent=False)
    if tasks is not None:
        plan.tasks = plan.tasks[:tasks]
    observer = HeadlessObserver(io.StringIO(), color=False, progress=False)
    t = time.perf_counter()
    runner = Runner(plan, observers=[observer])
    result = runner.run()
    wall = time.perf_counter() - t
    device_cpu = sum(getattr(getattr(d, "host", None), "cpu_s", None) or 0.0 for d in runner.devices.values())
    if way == "threads":
        for d in devices:
            d.close()
    eps = result.episodes
    bad = [(ep.task, ep.status, ep.error) for ep in eps if ep.status != "success"]
    if bad:
        sys.exit(f"{way}: {len(bad)} episodes did not succeed, the comparison would be void: {bad[:3]}")
    return wall, sum(ep.steps for ep in eps), device_cpu


def fresh(way: str, args: argparse.Namespace, out: Path) -> tuple[float, int, float, float]:
    """`run_once` in a new interpreter: cold caches, as a real `guilens run` starts. Returns
    (wall seconds, steps, parent CPU seconds, device processes' CPU seconds)."""
    cmd = [sys.executable, __file__, "--one", way, "--scenario", args.scenario, "--level", args.level,
           "--out", str(out)] + (["--tasks", str(args.tasks)] if args.tasks is not None else [])
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{way}: the run failed:\n{done.stderr or done.stdout}")
    got = json.loads(done.stdout.strip().splitlines()[-1])
    return float(got["wall"]), int(got["steps"]), float(got["cpu"]), float(got["child_cpu"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scenario", default="memory")
    ap.add_argument("--level", default="L0")
    ap.add_argument("--tasks", type=int, default=None, help="play only the first N tasks (default: all)")
    ap.add_argument("--one", choices=WAYS, help=argparse.SUPPRESS)  # a single run, in this process
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        import resource

        def used(who: int) -> float:
            r = resource.getrusage(who)
            return r.ru_utime + r.ru_stime

        cpu0 = used(resource.RUSAGE_SELF)
        wall, steps, device_cpu = run_once(args.one, args.scenario, args.level, args.tasks, args.out)
        print(json.dumps({"wall": wall, "steps": steps, "cpu": used(resource.RUSAGE_SELF) - cpu0,
                          "child_cpu": device_cpu}))
        return

    rates: dict[str, list[float]] = {w: [] for w in WAYS}
    cpus: dict[str, list[tuple[float, float]]] = {w: [] for w in WAYS}
    steps = 0
    with tempfile.TemporaryDirectory(prefix="bench-parallel-") as tmp:
        for r in range(args.rounds):
            order = WAYS[r % len(WAYS):] + WAYS[:r % len(WAYS)]  # no way always runs first (or last)
            line = []
            for way in order:
                wall, steps, cpu, child_cpu = fresh(way, args, Path(tmp) / f"{way}-{r}")
                rates[way].append(steps / wall)
                cpus[way].append((cpu / steps * 1000, child_cpu / steps * 1000))
                line.append(f"{way} {wall:5.2f} s ({steps / wall:5.1f} steps/s)")
            print(f"round {r + 1}: " + " · ".join(line), flush=True)

    med = {w: statistics.median(v) for w, v in rates.items()}
    print()
    print(f"{args.scenario} ({args.level}), {steps} steps per run, {args.rounds} rounds, medians:")
    print(f"{'way':<11} {'steps/s':>8} {'vs one':>8}   CPU ms/step: {'parent':>6} {'devices':>7}")
    for w in WAYS:
        parent = statistics.median(c[0] for c in cpus[w])
        child = statistics.median(c[1] for c in cpus[w])
        print(f"{w:<11} {med[w]:8.1f} {med[w] / med['one']:7.2f}x   {'':12} {parent:6.2f} {child:7.2f}")
    ratio = med["processes"] / med["one"]
    verdict = "PASS" if ratio >= TARGET else "FAIL"
    print(f"\n2 sims in processes / 1 sim: {ratio:.2f}x  (target >= {TARGET}x)  {verdict}")
    print(f"2 sims as threads   / 1 sim: {med['threads'] / med['one']:.2f}x  (reference: one process, one GIL)")
    one_cpu = statistics.median(c[0] + c[1] for c in cpus["one"])
    proc_cpu = statistics.median(c[0] + c[1] for c in cpus["processes"])
    print(f"CPU per step: one {one_cpu:.2f} ms, processes {proc_cpu:.2f} ms; on 2 idle cores 2 sims cannot pass "
          f"{2000 / proc_cpu:.0f} steps/s, {2000 / proc_cpu / med['one']:.2f}x the one-sim rate measured here")


if __name__ == "__main__":
    main()
