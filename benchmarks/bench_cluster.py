"""Devices on a Ray cluster: what the wire and the hop cost, measured side by side in one run (issue 14).

Usage: python benchmarks/bench_cluster.py [--address HOST:PORT] [--rounds 3] [--tasks 8] [--calls 40]

Without --address it starts a two-node cluster on this machine (`ray start --head --block` and
`ray start --address --block`, one sim each, Ray's files in a temp dir) and stops exactly those
two at the end. With --address (a real lab: nodes on other hosts) it uses that cluster's sims.

1. Screens on the wire (no cluster needed): one 1080x2400 sim frame as raw pixels, as sent
   (the raw pixels deflated at level 1 by isal's igzip, `guilens.cluster.wire`), by the
   standard library's zlib, and as a PNG (level 1): bytes,
   the node's encode, the driver's decode, and the transfer at 1 Gb/s. Targets: the wire
   format <= 1/20 of the raw bytes, and its encode + decode + transfer <= the raw transfer alone.
2. One device call: `observe()` after an action, on an in-process `SimDevice` vs on a cluster
   sim through `RayHost` (same actions, interleaved, medians). Target: the hop adds <= 60 ms
   a step (on loopback; a LAN adds its round trip and ~1 ms of transfer).
3. A batch: the first N memory-pack tasks, oracle agent, headless, every screen recorded,
   on one local sim vs the cluster's sims (interleaved rounds, medians of steps per second).
   Reported, no target here: on one machine the "nodes" share its cores with the driver,
   so this shows the hop's cost, not a lab's speed-up (which grows with its hosts).
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GBIT_BYTES_S = 125_000_000
BYTES_TARGET = 20
HOP_TARGET_MS = 60.0


def _best_ms(fn: Callable[[], Any], n: int = 5) -> tuple[Any, float]:
    best, out = float("inf"), None
    for _ in range(n):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return out, best * 1000


def wire() -> bool:
    from PIL import Image

    from guilens.cluster.wire import CODEC, LEVEL, _deflate
    from guilens.device.sim import SimDevice

    dev = SimDevice()
    dev.act(_actions()[0])
    im = dev.observe().screenshot
    raw = im.tobytes()

    def png() -> bytes:
        buf = io.BytesIO()
        im.save(buf, "PNG", compress_level=1)
        return buf.getvalue()

    z, z_enc = _best_ms(lambda: _deflate.compress(raw, LEVEL))
    _, z_dec = _best_ms(lambda: _deflate.decompress(z))
    s, s_enc = _best_ms(lambda: zlib.compress(raw, LEVEL))
    _, s_dec = _best_ms(lambda: zlib.decompress(s))
    p, p_enc = _best_ms(png)
    _, p_dec = _best_ms(lambda: Image.open(io.BytesIO(p)).load())
    rows = [("raw pixels", len(raw), 0.0, 0.0), (f"{CODEC} -{LEVEL} (sent)", len(z), z_enc, z_dec),
            (f"stdlib zlib -{LEVEL}", len(s), s_enc, s_dec), ("PNG -1", len(p), p_enc, p_dec)]
    print("1. one screen on the wire (best of 5)")
    print(f"   {'format':<16}{'bytes':>12}{'encode ms':>11}{'decode ms':>11}{'1 Gb/s ms':>11}{'total ms':>10}")
    totals = {}
    for name, size, enc, dec in rows:
        xfer = size / GBIT_BYTES_S * 1000
        totals[name] = enc + dec + xfer
        print(f"   {name:<16}{size:>12,}{enc:>11.1f}{dec:>11.1f}{xfer:>11.1f}{totals[name]:>10.1f}")
    ratio = len(raw) / len(z)
    ok_bytes = ratio >= BYTES_TARGET
    ok_time = totals[rows[1][0]] <= totals["raw pixels"]
    print(f"   bytes: raw / sent = {ratio:.0f}x (target >= {BYTES_TARGET}x): {'PASS' if ok_bytes else 'FAIL'}")
    print(f"   time: sent {totals[rows[1][0]]:.1f} ms vs raw {totals['raw pixels']:.1f} ms at 1 Gb/s "
          f"(target: sent <= raw): {'PASS' if ok_time else 'FAIL'}")
    return ok_bytes and ok_time


def _actions() -> list[Any]:
    from guilens.actions import KeyPress, OpenApp

    return [OpenApp(app=a) for a in ("notes", "shop", "calculator", "contacts", "maps")] + [KeyPress(key="home")]


def hop(address: str, calls: int) -> bool:
    from guilens.cluster.connect import Cluster
    from guilens.device.sim import SimDevice

    local = SimDevice()
    acts = _actions()
    times: dict[str, list[float]] = {"in-process": [], "cluster": []}
    with Cluster(address).connect() as cluster:
        [remote] = cluster.open(["sim"])
        for i in range(calls):
            for name, dev in (("in-process", local), ("cluster", remote)) if i % 2 else (
                    ("cluster", remote), ("in-process", local)):
                dev.act(acts[i % len(acts)])
                t = time.perf_counter()
                dev.observe()
                times[name].append((time.perf_counter() - t) * 1000)
    med = {k: statistics.median(v[2:]) for k, v in times.items()}  # the first calls warm the actor up
    added = med["cluster"] - med["in-process"]
    ok = added <= HOP_TARGET_MS
    print(f"2. observe() after an action, median of {calls - 2}")
    print(f"   in-process {med['in-process']:.1f} ms | cluster {med['cluster']:.1f} ms | "
          f"ratio {med['cluster'] / med['in-process']:.1f}x | added {added:.1f} ms "
          f"(target <= {HOP_TARGET_MS:g} ms): {'PASS' if ok else 'FAIL'}")
    return ok


def batch(address: str, rounds: int, tasks: int) -> None:
    from guilens.cluster.driver import on_cluster
    from guilens.config import Settings
    from guilens.headless import HeadlessObserver
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    rates: dict[str, list[float]] = {"1 local sim": [], "cluster sims": []}
    ndev = 0
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        for r in range(rounds):
            order = list(rates) if r % 2 == 0 else list(reversed(rates))
            for way in order:
                plan = plan_run("memory", agent="oracle", devices=["sim"], user="oracle", level="L0",
                                out=Path(tmp) / f"{r}-{way[0]}", settings=Settings(), check_agent=False)
                plan.tasks = plan.tasks[:tasks]
                obs = HeadlessObserver(io.StringIO())
                t = time.perf_counter()
                if way == "cluster sims":
                    with on_cluster(address, plan, None):
                        ndev = len(plan.devices)
                        t = time.perf_counter()  # connecting and placing the actors is once per run, not per step
                        result = Runner(plan, observers=[obs]).run()
                else:
                    result = Runner(plan, observers=[obs]).run()
                wall = time.perf_counter() - t
                rates[way].append(sum(ep.steps for ep in result.episodes) / wall)
    med = {k: statistics.median(v) for k, v in rates.items()}
    print(f"3. {tasks} memory-pack tasks, steps/s, median of {rounds} interleaved rounds (no target: see docstring)")
    print(f"   1 local sim {med['1 local sim']:.1f} | {ndev} cluster sims {med['cluster sims']:.1f} | "
          f"ratio {med['cluster sims'] / med['1 local sim']:.2f}x")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_local(temp: Path) -> tuple[str, list[subprocess.Popen[bytes]]]:
    ray = str(Path(sys.executable).parent / "ray")
    port = _free_port()
    common = ["--block", "--num-cpus=1", "--object-store-memory=80000000", "--disable-usage-stats",
              '--resources={"guilens_sim": 1}']
    nodes = [subprocess.Popen([ray, "start", "--head", f"--port={port}", "--include-dashboard=false",
                               f"--ray-client-server-port={_free_port()}", f"--temp-dir={temp}", *common],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    deadline = time.monotonic() + 90
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit("the Ray head did not start") from None
            time.sleep(0.2)
    address = f"127.0.0.1:{port}"
    nodes.append(subprocess.Popen([ray, "start", f"--address={address}", *common],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
    code = ("import ray,sys,time\nray.init(address=sys.argv[1], log_to_driver=False, logging_level='ERROR')\n"
            "while ray.cluster_resources().get('guilens_sim', 0) < 2: time.sleep(0.2)\n")
    subprocess.run([sys.executable, "-c", code, address], check=True, capture_output=True, timeout=90)
    return address, nodes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--address", help="an existing cluster (default: start two nodes here)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tasks", type=int, default=8)
    ap.add_argument("--calls", type=int, default=40)
    args = ap.parse_args()
    ok = wire()
    nodes: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="bench-ray-") as temp:
        try:
            address = args.address
            if address is None:
                address, nodes = start_local(Path(temp))
            ok = hop(address, args.calls) and ok
            batch(address, args.rounds, args.tasks)
        finally:
            for p in reversed(nodes):  # `ray start --block` stops its own node on SIGTERM
                p.send_signal(signal.SIGTERM)
            for p in reversed(nodes):
                p.wait(30)
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    main()
