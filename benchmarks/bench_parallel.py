"""Devices in parallel: how much more a run gets done with two sims than with one (issue 14).

Usage: python benchmarks/bench_parallel.py [--rounds 3] [--scenario memory] [--level L0] [--tasks N] [--baseline DIR]
                                          [--hosted-one]

`--baseline DIR`: DIR holds another guilens package (`DIR/guilens`, e.g. the last commit's:
`git archive HEAD guilens | tar -x -C DIR`); its `one` and `processes` runs are interleaved with
this tree's in the same rounds (the baseline's first in odd rounds, this tree's first in even
ones), and a last table sets its ratio beside this tree's.

Runs the same tasks (the memory pack by default: the oracle agent and oracle
user, headless, every screen recorded) three ways per round, interleaved round
by round because these machines are noisy:

- one:       `-d sim`, one sim in this process (the baseline);
- processes: `-d sim -d sim`, each sim in a process of its own
             (`guilens.device.process_host`), what `guilens run` does today;
- threads:   two `SimDevice`s handed in open, so both run as threads of this
             process: how a batch ran before devices had processes (reference).
- hosted:    with `--hosted-one`, one sim in a process of its own, handed in as
             a `HostedDevice` (its process started inside the timing, as
             `processes` starts its own): whether a lone sim would gain from a
             process (`guilens run` keeps it in-process, `guilens.run.workers`).

Each run is a fresh Python process (as each `guilens run` is), so no way
profits from caches another warmed (the sim's fonts and glyphs). Throughput is
recorded steps per second of wall time for the whole `Runner.run()` (opening
the devices, their processes' start-up, recording and the drain included: what
a user waits for, less the interpreter's own start and the planning, the same
for every way). Beside it: the seconds to the first recorded step (the
start-up a way costs) and the rate after it (the steady rate). Reported as
medians over rounds, with each way's ratio to `one`.

`processes` starts its fork server where `guilens run` does: first, before the
command imports the runner and plans (`guilens.commands.run` calls `warm_hosts`
before it imports `guilens.run.plan`). This benchmark used to start it after
those imports, which gave the server less of a head start than a real run
has, and counted the difference (about 0.1 s) in the first step.

CPU per step (user + system) is shown beside it, for the run's own process
and for its device processes (as each reported when closed; the fork server's
one-off import of the sim and its warm-up drawing, about 0.35 s of CPU per guilens
process, is not in it, and is printed apart), for
`Runner.run()` alone: unlike wall time it hardly moves when other work shares
the machine, and it bounds what two cores can do: two sims cannot run faster
than 2 cores / (CPU per step), nor faster than the parent's own share allows
(its Python work holds one GIL). The last line prints that ceiling.

Target: processes / one >= 1.6x (PASS/FAIL printed). On a 2-core machine this
needs the CPU per step of the two-sim run to stay within about 1.07x that of
the one-sim run, which already keeps more than one core busy (its recorder
encodes PNGs beside the step loop). Hosted sims encode their own screens
(`guilens.device.process_host`), so the run's process neither takes pixels
out of the devices nor encodes them. The `threads` line shows what the GIL
alone cost.
"""

from __future__ import annotations

import argparse
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

import baseline  # benchmarks/baseline.py, beside this file

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.environ.get(baseline.ENV) or str(ROOT))  # a baseline run: the baseline's tree first

TARGET = 1.6
WAYS = ("one", "processes", "threads")
HOSTED = "hosted"


def cpu_now() -> float:
    """This process's CPU seconds so far (user + system, every thread)."""
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run_once(way: str, target: str, level: str, tasks: int | None, out: Path) -> dict[str, float]:
    """One headless run of `target` the given way: wall seconds, steps recorded, seconds to the first
    step, this process's CPU seconds and those the device processes reported using (all of them for
    `Runner.run()` alone: imports and planning, the same for every way, are left out)."""
    if way == "processes":  # first, as `guilens run` does: before it imports the runner and plans
        from guilens.run.workers import warm_hosts

        warm_hosts(["sim", "sim"])
    elif way == HOSTED:  # the same head start (`warm_hosts` starts none for a lone sim)
        from guilens.device.fork_server import start_fork_server

        start_fork_server()
    from guilens.config import Settings
    from guilens.headless import HeadlessObserver
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    devices: list[Any]
    opened_at: float | None = None
    if way == "one":
        devices = ["sim"]
    elif way == "processes":
        devices = ["sim", "sim"]  # their fork server started above
    elif way == HOSTED:
        devices = ["sim"]  # opened hosted below, after planning, as `processes` opens its own
    else:
        from guilens.device.sim import SimDevice

        devices = [SimDevice(), SimDevice()]
    plan = plan_run(target, agent="oracle", devices=devices, user="oracle", level=level, out=out,
                    settings=Settings(), check_agent=False)
    if tasks is not None:
        plan.tasks = plan.tasks[:tasks]
    if way == HOSTED:
        from guilens.device.hosted import HostedDevice
        from guilens.device.process_host import ProcessHost

        s = plan.settings
        opened_at = time.perf_counter()  # its opening is timed, as `processes` opens its own inside the run
        try:  # as `guilens.run.workers` does: the sim named, not imported here
            from guilens.device.process_host import Imported
            factory: Any = Imported("guilens.device.sim", "SimDevice")
        except ImportError:  # a baseline tree from before `Imported`
            from guilens.device.sim import SimDevice as factory
        host = ProcessHost(factory, width=s.screen_width, height=s.screen_height)
        plan.devices = devices = [HostedDevice(host, prefetch=True)]
    observer = HeadlessObserver(io.StringIO(), color=False, progress=False)
    first: list[float] = []

    class FirstStep:
        """Notes when the first step is recorded: the start-up a way costs before it steps at all."""

        def __getattr__(self, name: str) -> Any:
            return lambda *a, **k: None

        def on_step(self, episode: Any, step: Any) -> None:
            if not first:
                first.append(time.perf_counter())

    try:
        from guilens.encoded_screen import EncodedScreen
    except ImportError:  # a baseline tree from before the module: it was in `guilens.png`
        from guilens.png import EncodedScreen  # type: ignore[attr-defined,no-redef]

    decodes = EncodedScreen.decodes
    cpu0 = cpu_now()
    t = time.perf_counter() if opened_at is None else opened_at
    runner = Runner(plan, observers=[observer, FirstStep()])
    result = runner.run()
    if way == HOSTED:
        devices[0].close()  # the run did not open it, so it leaves it open; closing reports its CPU
    wall = time.perf_counter() - t
    cpu = cpu_now() - cpu0
    device_cpu = sum(getattr(getattr(d, "host", None), "cpu_s", None) or 0.0 for d in runner.devices.values())
    if way == "threads":
        for d in devices:
            d.close()
    eps = result.episodes
    bad = [(ep.task, ep.status, ep.error) for ep in eps if ep.status != "success"]
    if bad:
        sys.exit(f"{way}: {len(bad)} episodes did not succeed, the comparison would be void: {bad[:3]}")
    return {"wall": wall, "steps": sum(ep.steps for ep in eps), "first": first[0] - t if first else wall,
            "cpu": cpu, "child_cpu": device_cpu, "decodes": EncodedScreen.decodes - decodes,
            "server_cpu": fork_server_cpu()}


def fork_server_cpu() -> float:
    """CPU seconds the fork server used (its imports and warm-up, once per guilens process; 0 without
    one): not in the per-step figures, which count `Runner.run()` alone, so printed apart."""
    import os
    from multiprocessing import forkserver

    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def fresh(way: str, args: argparse.Namespace, out: Path, root: Path | None = None) -> dict[str, float]:
    """`run_once` in a new interpreter: cold caches, as a real `guilens run` starts. `root`: the folder
    whose `guilens` the run imports (first on its path, its device processes' too), else this tree's."""
    cmd = [sys.executable, __file__, "--one", way, "--scenario", args.scenario, "--level", args.level,
           "--out", str(out)] + (["--tasks", str(args.tasks)] if args.tasks is not None else [])
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=baseline.environ(root),
                          cwd=baseline.cwd(root))
    if done.returncode != 0:
        sys.exit(f"{way}{' (baseline)' if root else ''}: the run failed:\n{done.stderr or done.stdout}")
    got = dict(json.loads(done.stdout.strip().splitlines()[-1]))
    baseline.check_imported(str(got.pop("guilens")), root)
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scenario", default="memory")
    ap.add_argument("--level", default="L0")
    ap.add_argument("--tasks", type=int, default=None, help="play only the first N tasks (default: all)")
    ap.add_argument("--hosted-one", action="store_true", help="also run one sim in a process of its own")
    ap.add_argument("--one", choices=(*WAYS, HOSTED), help=argparse.SUPPRESS)  # a single run, in this process
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--baseline", type=Path, help="a folder holding another guilens package, run interleaved")
    args = ap.parse_args()
    if args.one:
        import guilens

        got: dict[str, Any] = run_once(args.one, args.scenario, args.level, args.tasks, args.out)
        print(json.dumps({**got, "guilens": guilens.__file__}))
        return
    baseline.check(args.baseline)
    ways = (*WAYS, HOSTED) if args.hosted_one else WAYS
    base_rates: dict[str, list[float]] = {"one": [], "processes": []}

    rates: dict[str, list[float]] = {w: [] for w in ways}
    steady: dict[str, list[float]] = {w: [] for w in ways}
    starts: dict[str, list[float]] = {w: [] for w in ways}
    cpus: dict[str, list[tuple[float, float]]] = {w: [] for w in ways}
    decoded = dict.fromkeys(ways, 0)
    server: list[float] = []
    steps = 0
    with tempfile.TemporaryDirectory(prefix="bench-parallel-") as tmp:
        for r in range(args.rounds):
            order = ways[r % len(ways):] + ways[:r % len(ways)]  # no way always runs first (or last)
            line = []
            for way in order:
                for root in baseline.turns(args.baseline if way in base_rates else None, r):
                    if root is not None:
                        base = fresh(way, args, Path(tmp) / f"base-{way}-{r}", root=root)
                        base_rates[way].append(base["steps"] / base["wall"])
                        line.append(f"baseline {way} {base['wall']:5.2f} s")
                        continue
                    got = fresh(way, args, Path(tmp) / f"{way}-{r}")
                    wall, steps = got["wall"], int(got["steps"])
                    rates[way].append(steps / wall)
                    steady[way].append(steps / max(wall - got["first"], 1e-9))
                    starts[way].append(got["first"])
                    cpus[way].append((got["cpu"] / steps * 1000, got["child_cpu"] / steps * 1000))
                    decoded[way] = max(decoded[way], int(got["decodes"]))
                    if way == "processes":
                        server.append(got["server_cpu"])
                    line.append(f"{way} {wall:5.2f} s ({steps / wall:5.1f} steps/s)")
            print(f"round {r + 1}: " + " · ".join(line), flush=True)

    med = {w: statistics.median(v) for w, v in rates.items()}
    med_steady = {w: statistics.median(v) for w, v in steady.items()}
    print()
    print(f"{args.scenario} ({args.level}), {steps} steps per run, {args.rounds} rounds, medians:")
    print(f"{'way':<11} {'steps/s':>8} {'vs one':>7}  {'first step':>10}  {'after it':>8} {'vs one':>7}"
          f"   CPU ms/step: {'parent':>6} {'devices':>7}")
    for w in ways:
        parent = statistics.median(c[0] for c in cpus[w])
        child = statistics.median(c[1] for c in cpus[w])
        print(f"{w:<11} {med[w]:8.1f} {med[w] / med['one']:6.2f}x  {statistics.median(starts[w]):8.3f} s"
              f"  {med_steady[w]:8.1f} {med_steady[w] / med_steady['one']:6.2f}x   {'':12} {parent:6.2f} {child:7.2f}")
    ratio = med["processes"] / med["one"]
    verdict = "PASS" if ratio >= TARGET else "FAIL"
    print(f"\n2 sims in processes / 1 sim: {ratio:.2f}x  (target >= {TARGET}x)  {verdict}"
          f"  (after the first step: {med_steady['processes'] / med_steady['one']:.2f}x)")
    print(f"2 sims as threads   / 1 sim: {med['threads'] / med['one']:.2f}x  (reference: one process, one GIL)")
    if args.hosted_one:
        print(f"1 sim in a process  / 1 sim: {med[HOSTED] / med['one']:.2f}x  (reference: what a lone sim would gain "
              f"from a process; 2 sims in processes / it: {med['processes'] / med[HOSTED]:.2f}x)")
    print(f"screens decoded in the run's process with 2 sims in processes: {decoded['processes']} (they arrive "
          "as PNGs and are written as they came)")
    print(f"fork server, once per guilens process (importing the sim, drawing its screens once): "
          f"{statistics.median(server):.2f} s of CPU, beside the run's imports and planning; not in CPU per step")
    one_cpu = statistics.median(c[0] + c[1] for c in cpus["one"])
    proc_cpu = statistics.median(c[0] + c[1] for c in cpus["processes"])
    parent_cpu = statistics.median(c[0] for c in cpus["processes"])
    cap = min(2000 / proc_cpu, 1000 / parent_cpu)
    print(f"CPU per step: one {one_cpu:.2f} ms, processes {proc_cpu:.2f} ms ({proc_cpu / one_cpu:.2f}x); on 2 idle "
          f"cores 2 sims cannot pass {cap:.0f} steps/s (2 cores / CPU per step, and the parent's share in one "
          f"core), {cap / med_steady['one']:.2f}x the one-sim rate after its first step measured here")
    if args.baseline is not None:
        b_one, b_proc = statistics.median(base_rates["one"]), statistics.median(base_rates["processes"])
        print(f"\nthe baseline ({args.baseline}) beside this tree, same rounds (steps/s, medians):")
        print(f"{'':12}{'one':>9}{'processes':>11}{'ratio':>8}")
        print(f"{'baseline':12}{b_one:9.1f}{b_proc:11.1f}{b_proc / b_one:7.2f}x")
        print(f"{'this tree':12}{med['one']:9.1f}{med['processes']:11.1f}{ratio:7.2f}x")

if __name__ == "__main__":
    main()
