"""Finding and starting the adb server, and listing what is attached to it.

We never let adbutils start a server on its own: its fallback runs `adb
start-server` with no port, which starts a second server on 5037 whatever port
we asked for. `ensure_server` starts the one we want, once, or says plainly
that the `adb` binary is missing.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
from typing import Any

from guilens.device.base import DeviceError, DeviceOffline, DeviceUnauthorized

FIX_UNAUTHORIZED = "accept the USB debugging prompt on the phone (tick 'Always allow from this computer'), then retry"
FIX_OFFLINE = "unplug and replug the cable or run `adb reconnect`; if it stays offline, `adb kill-server` and retry"
FIX_NOT_FOUND = (
    "plug in a phone with USB debugging on, start an emulator, or `adb connect HOST:PORT`; "
    "`guilens devices` lists what is attached (the built-in phone is `sim`)"
)


def server_address(host: str | None = None, port: int | None = None) -> tuple[str, int]:
    """The adb server to use: explicit values, then $ADB_SERVER_SOCKET / $ANDROID_ADB_SERVER_PORT, then 5037."""
    sock = os.environ.get("ADB_SERVER_SOCKET", "")
    m = re.fullmatch(r"tcp:(?:([^:]+):)?(\d+)", sock)
    env_host = m[1] if m and m[1] else os.environ.get("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    env_port = int(m[2]) if m else int(os.environ.get("ANDROID_ADB_SERVER_PORT", "5037") or 5037)
    return host or env_host, port or env_port


def adb_binary() -> str | None:
    """The adb binary (ADBUTILS_ADB_PATH, $PATH, then the one adbutils ships), or None if there is none."""
    try:
        from adbutils import adb_path

        path = adb_path()
    except Exception:
        return None
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def server_up(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


def ensure_server(host: str, port: int) -> None:
    """Start the adb server on `port` if nothing listens there; clear errors if that cannot work."""
    if server_up(host, port):
        return
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise DeviceError(f"no adb server answers at {host}:{port}", fix="start it on that host with `adb start-server`")
    binary = adb_binary()
    if binary is None:
        where = f" (ADBUTILS_ADB_PATH={os.environ['ADBUTILS_ADB_PATH']})" if os.environ.get("ADBUTILS_ADB_PATH") else ""
        raise DeviceError(
            f"the adb server is not running and the `adb` binary was not found{where}",
            fix="install Android platform-tools (e.g. `apt install adb`) or set ADBUTILS_ADB_PATH",
        )
    env = dict(os.environ, ANDROID_ADB_SERVER_PORT=str(port))
    env.pop("ADB_SERVER_SOCKET", None)
    try:
        proc = subprocess.run(
            [binary, "-P", str(port), "start-server"],
            capture_output=True, timeout=60, env=env, stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise DeviceError(f"could not start the adb server with {binary}: {err}") from None
    if proc.returncode != 0 or not server_up(host, port):
        detail = (proc.stderr or proc.stdout).decode("utf-8", "replace").strip()
        raise DeviceError(f"could not start the adb server on port {port}: {detail or 'no reason given'}")


def make_client(host: str, port: int, timeout: float = 60.0) -> Any:
    """An adbutils client that never spawns an adb server behind our back."""
    from adbutils import AdbClient
    from adbutils._adb import AdbConnection
    from adbutils.errors import AdbTimeout

    class _Connection(AdbConnection):
        def _safe_connect(self) -> socket.socket:
            return self._create_socket()

    class _Client(AdbClient):
        def make_connection(self, timeout: float | None = None) -> AdbConnection:
            try:
                conn = _Connection(self.host, self.port)
            except TimeoutError:
                raise AdbTimeout("connect to adb server timeout") from None
            conn.conn.settimeout(timeout or default_timeout)
            return conn

    default_timeout = timeout
    return _Client(host, port, socket_timeout=timeout)


def list_devices(host: str | None = None, port: int | None = None, *, start: bool = True) -> list[dict[str, str]]:
    """`adb devices -l` as dicts (serial, state, model, product, ...)."""
    h, p = server_address(host, port)
    if start:
        ensure_server(h, p)
    client = make_client(h, p, timeout=10)
    return [{"serial": d.serial, "state": d.state, **d.tags} for d in client.list(extended=True)]


def state_error(serial: str, state: str) -> DeviceError:
    if state == "unauthorized":
        return DeviceUnauthorized(f"adb device {serial} has not authorized this computer", fix=FIX_UNAUTHORIZED)
    if state == "offline":
        return DeviceOffline(f"adb device {serial} is offline", fix=FIX_OFFLINE)
    if state in ("no", "no permissions"):
        return DeviceOffline(
            f"no permission to talk to {serial} over USB", fix="add a udev rule for the phone, or run adb as root"
        )
    return DeviceOffline(f"adb device {serial} is in state {state!r}, not 'device'", fix="boot it normally")


