"""Fixtures for the adb tests: a real adb server on its own port, and the bridge serving a phone.

The adb server runs on a free port (never the default 5037), so these tests do
not fight a developer's own server or another test run, and it is always killed
at teardown.

Ports come from below the kernel's ephemeral range (`free_port`), never from it.
A port the kernel handed out for `bind(0)` and then released is one it may pick
again as the *source* port of an outgoing connection; `adb start-server` first
connects to its port to look for a running server, and when nothing listens
Linux can connect that socket to itself. adb then reads back its own request
and fails with `protocol fault (status 30 30 30 63?!)` ("000c", the length of
`host:version`). The same holds for a bridge restarted on its old port while
the adb server keeps reconnecting to it. A port another process grabs between
the check and the start is still possible, so starting the server retries on a
new port.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest


def adb_binary() -> str | None:
    """The adb binary the tests use: $ADBUTILS_ADB_PATH, then $PATH."""
    env = os.environ.get("ADBUTILS_ADB_PATH")
    if env and os.path.isfile(env):
        return env
    return shutil.which("adb")


ADB = adb_binary()
needs_adb = pytest.mark.skipif(ADB is None, reason="the adb binary is not installed (apt install adb)")


def _ephemeral_start() -> int | None:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range", encoding="ascii") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def free_port() -> int:
    """A port nothing listens on, below the ephemeral range where the kernel can (see the module
    docstring); from `bind(0)` where that range is unknown."""
    top = _ephemeral_start()
    if top is not None and top > 12_000:
        for _ in range(200):
            port = random.randrange(10_000, top)
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    continue
            with socket.socket() as probe:
                probe.settimeout(0.2)
                if probe.connect_ex(("127.0.0.1", port)) != 0:  # free on every address adb may use
                    return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class AdbServer:
    """A real adb server on `port`; `run(...)` runs the adb CLI against it."""

    binary: str
    port: int

    @property
    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["ANDROID_ADB_SERVER_PORT"] = str(self.port)
        env.pop("ADB_SERVER_SOCKET", None)
        env.pop("ANDROID_SERIAL", None)
        return env

    def run(self, *args: str, timeout: float = 30, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        proc = subprocess.run(
            [self.binary, "-P", str(self.port), *args],
            capture_output=True,
            timeout=timeout,
            env=self.env,
            stdin=subprocess.DEVNULL,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"adb {' '.join(args)} failed ({proc.returncode}): {proc.stderr.decode()}")
        return proc

    def connect(self, addr: str) -> None:
        deadline = time.monotonic() + 15
        while True:
            out = self.run("connect", addr, check=False).stdout.decode()
            if "connected" in out and "cannot" not in out and "failed" not in out:
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"adb connect {addr}: {out}")
            time.sleep(0.2)
        self.wait_state(addr, "device")

    def state(self, serial: str) -> str | None:
        for line in self.run("devices", check=False).stdout.decode().splitlines()[1:]:
            parts = line.split()
            if len(parts) >= 2 and parts[0] == serial:
                return parts[1]
        return None

    def wait_state(self, serial: str, want: str | None, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while self.state(serial) != want:
            if time.monotonic() > deadline:
                raise AssertionError(f"{serial} is {self.state(serial)!r}, wanted {want!r}")
            time.sleep(0.1)


@contextmanager
def adb_server() -> Iterator[AdbServer]:
    assert ADB is not None
    for tries in range(3):  # another process may take the port between the check and the start
        server = AdbServer(ADB, free_port())
        proc = server.run("start-server", timeout=60, check=False)
        if proc.returncode == 0:
            break
        if tries == 2:  # (no kill-server here: whatever answers on that port is not ours)
            raise AssertionError(f"adb start-server failed ({proc.returncode}): {proc.stderr.decode()}")
    try:
        yield server
    finally:
        server.run("kill-server", check=False, timeout=30)


@pytest.fixture(scope="module")
def adb_srv() -> Iterator[AdbServer]:
    """One real adb server per test module, on its own port; killed afterwards."""
    if ADB is None:
        pytest.skip("the adb binary is not installed (apt install adb)")
    with adb_server() as server:
        yield server


@dataclass
class SimOverAdb:
    """A SimDevice served by the bridge and connected to a real adb server."""

    bridge: Any
    sim: Any
    serial: str
    server: AdbServer

    def adb(self, *args: str, check: bool = True, timeout: float = 30) -> subprocess.CompletedProcess[bytes]:
        return self.server.run("-s", self.serial, *args, check=check, timeout=timeout)

    def device(self, **kw: Any) -> Any:
        from guilens.device.adb import AdbDevice

        return AdbDevice(self.serial, port=self.server.port, **kw)

    def on_sim(self, fn: Any, *args: Any) -> Any:
        """Call into the sim on the bridge's device thread (the sim is not thread-safe)."""
        return self.bridge.call(fn, *args)

    def state(self) -> dict[str, Any]:
        return self.on_sim(self.sim.state)  # type: ignore[no-any-return]


@contextmanager
def sim_over_adb(server: AdbServer, device: Any = None, **bridge_kw: Any) -> Iterator[SimOverAdb]:
    from guilens.device.sim import SimDevice
    from guilens.device.sim.adbd import AdbBridge

    sim = device if device is not None else SimDevice()
    bridge = AdbBridge(sim, port=0, **bridge_kw).start()
    serial = f"127.0.0.1:{bridge.port}"
    try:
        if bridge_kw.get("unauthorized"):
            server.run("connect", serial, check=False)
        else:
            server.connect(serial)
        yield SimOverAdb(bridge, sim, serial, server)
    finally:
        server.run("disconnect", serial, check=False)
        bridge.stop()


class TinyPhone:
    """A throwaway device for protocol tests: a field, a button and a home screen."""

    name = "tiny"

    def __init__(self, width: int = 1080, height: int = 2400) -> None:
        from datetime import datetime

        self.width, self.height = width, height
        self.app = "com.example.home"
        self.text = ""
        self.taps: list[tuple[int, int]] = []
        self.actions: list[Any] = []
        self._clock = datetime(2025, 12, 26, 9, 30, 0)
        self.APPS = {"home": ("com.example.home", "Home"), "notes": ("com.example.notes", "Notes")}

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    def observe(self) -> Any:
        from xml.sax.saxutils import quoteattr

        from PIL import Image, ImageDraw

        from guilens.device.base import Observation

        img = Image.new("RGB", self.size, (250, 250, 250))
        draw = ImageDraw.Draw(img)
        draw.rectangle((100, 100, 980, 300), outline=(0, 0, 0), width=4)
        draw.text((120, 150), self.text, fill=(0, 0, 0))
        for i, (x, y) in enumerate(self.taps[-20:]):
            draw.ellipse((x - 10, y - 10, x + 10, y + 10), fill=(i * 10 % 255, 80, 160))
        xml = (
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
            f'<node index="0" text="" class="android.widget.FrameLayout" package="{self.app}" '
            f'bounds="[0,0][{self.width},{self.height}]">'
            f'<node index="0" text={quoteattr(self.text)} resource-id="{self.app}:id/field" '
            f'class="android.widget.EditText" package="{self.app}" clickable="true" '
            'bounds="[100,100][980,300]" /></node></hierarchy>'
        )
        return Observation(screenshot=img, ui_xml=xml, app=self.app, clock=self._clock, size=self.size)

    def act(self, action: Any) -> str:
        self.actions.append(action)
        kind = action.type
        if kind == "tap":
            self.taps.append((action.x, action.y))
        elif kind == "type":
            self.text += action.text
        elif kind == "open_app":
            self.app = action.app
        elif kind == "key" and action.key == "home":
            self.app = "com.example.home"
        return kind

    def list_apps(self) -> list[str]:
        return ["com.example.home", "com.example.notes"]

    def clock(self) -> Any:
        return self._clock

    def set_clock(self, when: Any) -> None:
        self._clock = when


@pytest.fixture
def sim_adb(adb_srv: AdbServer) -> Iterator[SimOverAdb]:
    """A fresh simulated phone, connected over the real adb server."""
    with sim_over_adb(adb_srv) as s:
        yield s
