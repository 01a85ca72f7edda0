"""Device speed, measured side by side in one run.

1. The sim: act + render + UI tree per action at 1080x2400, median over a few
   hundred actions of a seeded walk through the apps (target <= 15 ms), and the
   same over a scripted loop through the screens the default data fills (a shop
   search paged through ~320 products, a product, the contact list, a message
   history, directions), where a random walk seldom goes.
2. The state per step with the shop's catalogue kept out of it (the default)
   beside the same catalogue carried in the state (a setup that lists every
   product): `state()` JSON bytes and time, and a snapshot's deep copy.
3. Screenshots through the bridge and a real adb server, for a UI-like PNG and
   a 7.8 MB noisy PNG: raw socket bytes vs `AdbDevice` vs adbutils'
   `screenshot()` (targets: AdbDevice <= 1.5x raw; >= 10x faster than adbutils
   on the large PNG).

    python benchmarks/bench_device.py [--actions 300] [--shots 9] [--sim-only]
"""

from __future__ import annotations

import argparse
import io
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from PIL import Image


def _median_ms(fn: Callable[[], Any], n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def bench_sim(actions: int) -> float:
    from guilens.actions import KeyPress, OpenApp, Swipe, Tap, Type
    from guilens.device.sim import APPS, SimDevice
    from guilens.device.uitree import actionable_elements

    dev = SimDevice(width=1080, height=2400)
    rng = random.Random(7)
    packages = [a.package for a in APPS.values()]
    obs = dev.observe()
    times: list[float] = []
    for i in range(actions):
        roll = rng.random()
        if i % 25 == 0:
            action: Any = OpenApp(app=rng.choice(packages))
        elif roll < 0.08:
            action = KeyPress(key=rng.choice(["back", "home"]))
        elif roll < 0.16:
            action = Type(text=rng.choice(["milk", "42", "hello world"]))
        elif roll < 0.24:
            action = Swipe(x1=540, y1=1700, x2=540, y2=900)
        else:
            els = actionable_elements(obs.ui) if obs.ui is not None else []
            node = rng.choice(els) if els else None
            action = Tap(x=node.center[0], y=node.center[1]) if node else KeyPress(key="home")
        t = time.perf_counter()
        dev.act(action)
        obs = dev.observe()
        _ = obs.ui_xml
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def _small_data() -> dict[str, Any]:
    """A setup with the sim's data as it was before it grew: 21 products, 4 contacts, no message
    histories, 4 places and 3 routes (the first rows of today's defaults)."""
    from guilens.device.sim import ContactsState, MapsState
    from guilens.device.sim.apps.shop_data import default_products

    maps = MapsState()
    return {"apps": {"shop": {"products": default_products()[:21]},
                     "contacts": {"contacts": [c.model_dump() for c in ContactsState().contacts[:4]]},
                     "messages": {"threads": []},
                     "maps": {"places": [p.model_dump() for p in maps.places[:4]],
                              "routes": [r.model_dump() for r in maps.routes[:3]]}}}


def bench_data_screens(rounds: int) -> dict[str, tuple[float, int]]:
    """Median ms per action over `rounds` passes of a script through the data-heavy screens, with the
    default data and with the small data it replaced; rounds alternate, so both see the same load."""
    from guilens.device.sim import SimDevice

    devs = {"default data": SimDevice(width=1080, height=2400),
            "small data": SimDevice(width=1080, height=2400, setup=_small_data())}
    times: dict[str, list[float]] = {k: [] for k in devs}
    for _ in range(rounds):
        for label, dev in devs.items():
            times[label] += _data_round(dev)
    return {k: (statistics.median(v) * 1000, len(v)) for k, v in times.items()}


def _data_round(dev: Any) -> list[float]:
    from guilens.actions import KeyPress, OpenApp, Swipe, Tap, Type

    def tap(selector: str) -> Any:
        from guilens.device.uitree import find_nodes

        root = dev.observe().ui
        hits = find_nodes(root, selector) if root is not None else []
        if not hits:
            return KeyPress(key="back")
        x, y = hits[0].center
        return Tap(x=x, y=y)

    up = Swipe(x1=540, y1=1900, x2=540, y2=700)
    script: list[Callable[[], Any]] = [
        lambda: OpenApp(app="com.guilens.shop"), lambda: tap("id:search_box"), lambda: Type(text="shoes"),
        lambda: KeyPress(key="enter"), lambda: up, lambda: up, lambda: up, lambda: up, lambda: tap("id:product_name"), lambda: up, lambda: KeyPress(key="back"), lambda: tap("id:search_box_clear"),
        lambda: Type(text="wireless headphones"), lambda: KeyPress(key="enter"), lambda: KeyPress(key="back"),
        lambda: OpenApp(app="com.guilens.contacts"), lambda: up, lambda: up, lambda: tap("id:contact_name"),
        lambda: KeyPress(key="back"), lambda: OpenApp(app="com.guilens.messages"), lambda: up,
        lambda: tap("id:thread_name"), lambda: KeyPress(key="back"), lambda: OpenApp(app="com.guilens.maps"),
        lambda: tap("Directions"), lambda: Type(text="Cupertino Apartments"), lambda: tap("id:destination"),
        lambda: Type(text="Googleplex"), lambda: KeyPress(key="enter"), lambda: KeyPress(key="home"),
    ]
    times: list[float] = []
    dev.reset()
    for make in script:
        action = make()
        t = time.perf_counter()
        dev.act(action)
        _ = dev.observe().ui_xml
        times.append(time.perf_counter() - t)
    return times


def bench_state(n: int) -> dict[str, tuple[int, float, float]]:
    """Per state layout: (JSON bytes of `state()`, ms per `state()`, ms per `snapshot()`), medians over `n`."""
    import json

    from guilens.actions import OpenApp
    from guilens.device.sim import SimDevice
    from guilens.device.sim.apps.shop_data import default_products

    out = {}
    for label, setup in (("catalogue out of state", {}),
                         ("catalogue in state", {"apps": {"shop": {"products": default_products()}}})):
        dev = SimDevice(setup=setup)
        dev.act(OpenApp(app="com.guilens.shop"))
        size = len(json.dumps(dev.state(), separators=(",", ":"), default=str))
        out[label] = (size, _median_ms(dev.state, n), _median_ms(dev.snapshot, n))
    return out


def _adb_binary() -> str:
    from guilens.device.adb_server import adb_binary

    binary = adb_binary()
    if binary is None:
        sys.exit("bench_device: the adb binary is not installed")
    return binary


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _raw_exec(port: int, serial: str, command: str) -> bytes:
    """The floor: one socket to the adb server, the exec stream read straight into a buffer."""

    def send(sock: socket.socket, req: str) -> None:
        data = req.encode()
        sock.sendall(b"%04x" % len(data) + data)
        status = sock.recv(4)
        if status != b"OKAY":
            raise RuntimeError(f"adb server said {status!r} to {req!r}")

    with socket.create_connection(("127.0.0.1", port)) as sock:
        send(sock, f"host:transport:{serial}")
        send(sock, f"exec:{command}")
        buf = bytearray(64 << 10)
        size = 0
        while True:
            if size == len(buf):
                buf.extend(bytes(len(buf)))
            with memoryview(buf) as view:
                n = sock.recv_into(view[size:])
            if not n:
                break
            size += n
        del buf[size:]
        return bytes(buf)


def _pngs() -> dict[str, bytes]:
    from guilens.actions import OpenApp
    from guilens.device.sim import SimDevice

    sim = SimDevice()
    sim.act(OpenApp(app="com.guilens.notes"))
    ui = io.BytesIO()
    sim.observe().screenshot.save(ui, format="PNG")
    noisy = io.BytesIO()
    rng = random.Random(11)
    Image.frombytes("RGB", (1080, 2400), rng.randbytes(1080 * 2400 * 3)).save(noisy, format="PNG", compress_level=1)
    return {"ui-like": ui.getvalue(), "noisy": noisy.getvalue()}


def bench_screenshots(shots: int) -> list[tuple[str, int, float, float, float, float]]:
    import adbutils

    from guilens.device.adb import AdbDevice
    from guilens.device.sim import SimDevice
    from guilens.device.sim.adbd import AdbBridge

    binary = _adb_binary()
    port = _free_port()
    env = dict(os.environ, ANDROID_ADB_SERVER_PORT=str(port))
    env.pop("ADB_SERVER_SOCKET", None)
    subprocess.run([binary, "-P", str(port), "start-server"], check=True, capture_output=True, env=env)
    bridge = AdbBridge(SimDevice(), port=0).start()
    serial = f"127.0.0.1:{bridge.port}"
    rows = []
    try:
        subprocess.run([binary, "-P", str(port), "connect", serial], check=True, capture_output=True, env=env)
        dev = AdbDevice(serial, port=port)
        theirs = adbutils.AdbClient(port=port).device(serial)
        for name, png in _pngs().items():
            bridge.screencap_override = png
            assert _raw_exec(port, serial, "screencap -p") == png
            assert dev.screencap_png() == png
            n = shots if len(png) < 1 << 20 else max(3, shots // 2)
            raw = _median_ms(lambda: _raw_exec(port, serial, "screencap -p"), n)
            ours_bytes = _median_ms(dev.screencap_png, n)
            ours_image = _median_ms(dev.screenshot, n)
            adbutils_image = _median_ms(lambda: theirs.screenshot().load(), n)
            rows.append((name, len(png), raw, ours_bytes, ours_image, adbutils_image))
        dev.close()
    finally:
        subprocess.run([binary, "-P", str(port), "kill-server"], capture_output=True, env=env)
        bridge.stop()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--actions", type=int, default=300)
    ap.add_argument("--shots", type=int, default=9)
    ap.add_argument("--sim-only", action="store_true", help="skip the screenshot part (needs the adb binary)")
    args = ap.parse_args()

    sim_ms = bench_sim(args.actions)
    data = bench_data_screens(max(1, args.actions // 32))
    rows_ms = [("random walk", sim_ms, args.actions), *((f"screens, {k}", ms, n) for k, (ms, n) in data.items())]
    for what, ms, n in rows_ms:
        print(f"sim  act+render+tree  {what:20} median {ms:6.2f} ms over {n:3} actions   (target <= 15 ms)  "
              f"{'ok' if ms <= 15 else 'SLOW'}")
    ratio = data["default data"][0] / data["small data"][0]
    print(f"     the default data costs {ratio:.2f}x the small data's step on the same screens")
    print()
    rows = bench_state(21)
    base = rows["catalogue in state"]
    print(f"{'state per step':24} {'JSON bytes':>10} {'state()':>9} {'snapshot':>9}   {'bytes ratio':>11}")
    for label, (size, st_ms, snap_ms) in rows.items():
        print(f"{label:24} {size:10,} {st_ms:7.2f}ms {snap_ms:7.2f}ms   {size / base[0]:10.3f}x")
    print()
    if args.sim_only:
        return
    print(f"{'png':8} {'size':>9}  {'raw':>8} {'AdbDevice':>10} {'+decode':>8} {'adbutils':>9}  "
          f"{'ours/raw':>8} {'adbutils/ours':>13}")
    for name, size, raw, ours, ours_img, theirs in bench_screenshots(args.shots):
        print(f"{name:8} {size / 1e6:7.2f}MB  {raw:6.1f}ms {ours:8.1f}ms {ours_img:6.1f}ms {theirs:7.1f}ms  "
              f"{ours / raw:7.2f}x {theirs / ours_img:12.1f}x")
    print()
    print("targets: ours/raw <= 1.5x (bytes over the same socket path); adbutils/ours >= 10x on the noisy PNG")
    print("(AdbDevice and adbutils both decode the PNG; raw and AdbDevice bytes do not)")


if __name__ == "__main__":
    main()
