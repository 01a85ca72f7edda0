"""A real Android phone or emulator through the adb server (adbutils).

What matters here, and why:
- screenshots are read from `exec:screencap -p` as a stream into one growing
  buffer: adbutils' one-shot `screenshot()` appends 4 KiB reads to a bytes
  object, which is quadratic (735 ms for a 7.8 MB PNG against 12 ms raw);
- the screenshot, the UI dump and the focus/clock query run concurrently (adb
  multiplexes streams), because `uiautomator dump` alone takes a second or two
  on a real phone;
- typed text is quoted for the device shell and escaped for `input text`
  (see adb_text.py), so `hello; reboot` is typed, not run;
- every adb failure is checked against the device's state: a phone that went
  away mid-run raises `DeviceDisconnected` (the runner pauses on it), one that
  is offline or unauthorized at the start says how to fix it (adb_server.py);
- shell streams are read directly: adbutils' `shell2` and `open_transport`
  each sleep 10 ms closing a connection, which doubles the cost of a tap.
"""

from __future__ import annotations

import concurrent.futures
import io
import os
import re
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from PIL import Image

from guilens.actions import Action, KeyPress, LongPress, OpenApp, Swipe, Tap, Type, Wait
from guilens.device.adb_server import (
    FIX_NOT_FOUND,
    adb_binary,
    ensure_server,
    make_client,
    server_address,
    state_error,
)
from guilens.device.adb_text import (
    ADB_KEYBOARD_IME,
    KEYCODES,
    adb_keyboard_command,
    input_text_commands,
    needs_keyboard_app,
    resolve_package,
    sh_quote,
)
from guilens.device.base import (
    DeviceDisconnected,
    DeviceError,
    DeviceNotFound,
    Observation,
    UnsupportedAction,
)

DUMP_PATH = "/sdcard/window_dump.xml"
_FOCUS = re.compile(r"mCurrentFocus=Window\{[^}]*?\s([\w.]+)/")
_FOCUSED_APP = re.compile(r"mFocusedApp=.*?\s([\w.]+)/")
_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})([+-]\d{4})?\s*$", re.M)
_PNG_END = b"IEND\xaeB`\x82"


@dataclass
class ShellOutput:
    output: str
    code: int


class AdbDevice:
    """A phone guilens drives over adb. `serial` None: the only attached device."""

    def __init__(
        self,
        serial: str | None = None,
        *,
        host: str | None = None,
        port: int | None = None,
        timeout: float = 60.0,
        labels: dict[str, str] | None = None,
    ) -> None:
        self.host, self.port = server_address(host, port)
        ensure_server(self.host, self.port)
        self._client = make_client(self.host, self.port, timeout)
        self.serial = self._pick(serial)
        self.name = f"adb:{self.serial}"
        self._d = self._client.device(self.serial)
        self._labels = {k.casefold(): v for k, v in (labels or {}).items()}
        self._pool = concurrent.futures.ThreadPoolExecutor(3, thread_name_prefix=f"adb-{self.serial}")
        self._size: tuple[int, int] | None = None
        self._packages: list[str] | None = None
        self._keyboard: bool | None = None
        with self._guard("reading its features"):
            self._v2 = "shell_v2" in self._d.get_features().split(",")

    # -- connecting ------------------------------------------------------------------------------

    def _states(self) -> dict[str, str]:
        return {d.serial: d.state for d in self._client.list()}

    def _pick(self, serial: str | None) -> str:
        try:
            states = self._states()
        except Exception as err:
            raise DeviceError(f"cannot talk to the adb server at {self.host}:{self.port}: {err}") from None
        if serial is None:
            serial = os.environ.get("ANDROID_SERIAL") or None
        if serial is None:
            ready = [s for s, st in states.items() if st == "device"]
            if len(ready) == 1:
                return ready[0]
            if len(ready) > 1:
                raise DeviceNotFound(
                    f"{len(ready)} adb devices are attached ({', '.join(sorted(ready))})",
                    fix="pick one with --device adb:SERIAL",
                )
            if states:
                serial, state = next(iter(states.items()))
                raise state_error(serial, state)
            raise DeviceNotFound("no adb device is attached", fix=FIX_NOT_FOUND)
        if serial not in states and re.fullmatch(r"[\w.\-]+:\d+", serial):
            self._connect(serial)
            states = self._states()
        state = states.get(serial)
        if state is None:
            known = ", ".join(sorted(states)) or "none"
            raise DeviceNotFound(f"adb device {serial!r} is not attached (attached: {known})", fix=FIX_NOT_FOUND)
        if state != "device":
            raise state_error(serial, state)
        return serial

    def _connect(self, addr: str) -> None:
        """`adb connect` a network device; it is ready once the server lists it as `device`."""
        try:
            out = self._client.connect(addr, timeout=10)
        except Exception as err:
            raise DeviceNotFound(f"adb connect {addr} failed: {err}", fix="is the device listening there?") from None
        if "cannot" in out or "failed" in out:
            raise DeviceNotFound(f"adb connect {addr}: {out.strip()}", fix="is the device listening there?")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self._states().get(addr) not in (None, "offline", "connecting", "authorizing"):
                return
            time.sleep(0.1)

    @contextmanager
    def _guard(self, what: str) -> Iterator[None]:
        """Turn adb failures into device errors; a device that is gone raises `DeviceDisconnected`."""
        from adbutils.errors import AdbError

        try:
            yield
        except DeviceError:
            raise
        except (AdbError, OSError, EOFError) as err:
            raise self._gone_or(what, err) from None

    def _gone_or(self, what: str, err: BaseException) -> DeviceError:
        try:
            state = self._states().get(self.serial)
        except Exception:
            return DeviceDisconnected(
                f"the adb server at {self.host}:{self.port} went away while {what}",
                fix="restart it with `adb start-server`, then resume",
            )
        if state == "device":
            return DeviceError(f"{self.name}: {what} failed: {err}")
        return DeviceDisconnected(
            f"{self.name} disconnected while {what} (now {state or 'gone'})",
            fix="reconnect the phone (cable, `adb connect`), then resume",
        )

    # -- shell -----------------------------------------------------------------------------------

    def shell(self, command: str, *, what: str | None = None) -> ShellOutput:
        """Run a command in the device shell; stdout and stderr merged, with its exit status.

        Reads the stream ourselves rather than through adbutils' `shell2`, whose close
        sleeps 10 ms on every call.
        """
        with self._guard(what or f"running `{command[:60]}`"):
            if self._v2:
                raw, code = self._shell_v2(command)
            else:
                marker = "X4EXIT:"
                raw = self._read_all(self._open(f"shell:{command}; echo {marker}$?"))
                at = raw.rfind(marker.encode())
                if at < 0:
                    raise EOFError(f"the shell closed before `{command[:60]}` finished")
                code = int(raw[at + len(marker) :].strip() or b"255")
                raw = raw[:at]
        return ShellOutput(raw.decode("utf-8", "replace"), code)

    def _open(self, service: str) -> socket.socket:
        # `host:transport:` directly: adbutils' open_transport asks the server's version first,
        # on a connection whose close sleeps 10 ms.
        conn = self._client.make_connection()
        try:
            conn.send_command(f"host:transport:{self.serial}")
            conn.check_okay()
            conn.send_command(service)
            conn.check_okay()
        except BaseException:
            conn.conn.close()
            raise
        return conn.conn  # type: ignore[no-any-return]

    @staticmethod
    def _read_all(sock: socket.socket) -> bytes:
        """Everything until the device closes the stream, in one growing buffer (linear in the size)."""
        try:
            buf = bytearray(1 << 20)
            size = 0
            while True:
                if size == len(buf):
                    buf.extend(bytes(len(buf)))
                with memoryview(buf) as view:
                    n = sock.recv_into(view[size:])
                if n == 0:
                    break
                size += n
            del buf[size:]
            return bytes(buf)
        finally:
            sock.close()

    def _shell_v2(self, command: str) -> tuple[bytes, int]:
        data = self._read_all(self._open(f"shell,v2,raw:{command}"))
        out = bytearray()
        pos = 0
        while pos + 5 <= len(data):
            kind = data[pos]
            length = int.from_bytes(data[pos + 1 : pos + 5], "little")
            body = data[pos + 5 : pos + 5 + length]
            pos += 5 + length
            if kind in (1, 2):
                out += body
            elif kind == 3:
                return bytes(out), body[0] if body else 255
        raise EOFError(f"the shell closed before `{command[:60]}` finished")

    def _checked(self, command: str, what: str) -> str:
        out = self.shell(command, what=what)
        if out.code != 0:
            raise DeviceError(f"{self.name}: {what} failed (exit {out.code}): {out.output.strip()[:300]}")
        return out.output

    def exec_bytes(self, command: str, *, what: str) -> bytes:
        """The raw stdout of `exec:COMMAND` (what `adb exec-out` reads), read as a stream."""
        with self._guard(what):
            return self._read_all(self._open("exec:" + command))

    # -- observing -------------------------------------------------------------------------------

    def screencap_png(self) -> bytes:
        data = self.exec_bytes("screencap -p", what="taking a screenshot")
        if not data.startswith(b"\x89PNG"):
            raise DeviceError(f"{self.name}: screencap did not return a PNG: {data[:200]!r}")
        if not data.rstrip(b"\r\n").endswith(_PNG_END):
            raise self._gone_or("taking a screenshot", EOFError("the screenshot was cut short"))
        return data

    def screenshot(self) -> Image.Image:
        image = Image.open(io.BytesIO(self.screencap_png()))
        image.load()
        if image.mode != "RGB":
            image = image.convert("RGB")
        self._size = image.size
        return image

    def ui_xml(self) -> str | None:
        """The `uiautomator dump` XML, or None when uiautomator cannot dump (busy animations, secure screens)."""
        last = ""
        for attempt in range(3):
            out = self.shell(
                f"uiautomator dump {DUMP_PATH} >/dev/null && cat {DUMP_PATH}", what="dumping the UI tree"
            )
            start, end = out.output.find("<?xml"), out.output.rfind("</hierarchy>")
            if start < 0:
                start = out.output.find("<hierarchy")
            if out.code == 0 and start >= 0 and end > start:
                return out.output[start : end + len("</hierarchy>")]
            last = out.output.strip()
            time.sleep(0.3 * (attempt + 1))
        self._ui_error = last or "uiautomator dump failed"
        return None

    def _focus_and_clock(self) -> tuple[str, datetime]:
        out = self.shell(
            "dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'; date +%Y-%m-%dT%H:%M:%S%z",
            what="reading the foreground app and the clock",
        ).output
        return parse_focus(out), parse_clock(out)

    def observe(self) -> Observation:
        self._ui_error = ""
        shot = self._pool.submit(self.screenshot)
        tree = self._pool.submit(self.ui_xml)
        meta = self._pool.submit(self._focus_and_clock)
        image, xml, (app, clock) = shot.result(), tree.result(), meta.result()
        extra: dict[str, Any] = {"serial": self.serial}
        if xml is None:
            extra["ui_error"] = self._ui_error
        return Observation(screenshot=image, ui_xml=xml, app=app, clock=clock, size=image.size, extra=extra)

    @property
    def size(self) -> tuple[int, int]:
        if self._size is None:
            with self._guard("reading the screen size"):
                w, h = self._d.window_size()
            self._size = (int(w), int(h))
        return self._size

    def clock(self) -> datetime:
        return parse_clock(self._checked("date +%Y-%m-%dT%H:%M:%S%z", "reading the clock"))

    def current_app(self) -> str:
        return self._focus_and_clock()[0]

    # -- acting ----------------------------------------------------------------------------------

    def act(self, action: Action) -> str:
        match action:
            case Tap(x=int() as x, y=int() as y):
                self._checked(f"input tap {x} {y}", "tapping")
                return f"tapped ({x}, {y})"
            case LongPress(x=int() as x, y=int() as y):
                self._checked(f"input swipe {x} {y} {x} {y} {action.duration_ms}", "long-pressing")
                return f"long-pressed ({x}, {y}) for {action.duration_ms} ms"
            case Tap() | LongPress():
                raise UnsupportedAction(
                    f"{action.type} needs pixels; element and target must be resolved before the device acts"
                )
            case Swipe():
                a = action
                self._checked(f"input swipe {a.x1} {a.y1} {a.x2} {a.y2} {a.duration_ms}", "swiping")
                return f"swiped ({a.x1}, {a.y1}) -> ({a.x2}, {a.y2})"
            case Type():
                self.type_text(action.text)
                return f"typed {action.text!r}"
            case KeyPress():
                self._checked(f"input keyevent {KEYCODES[action.key]}", f"pressing {action.key}")
                return f"pressed {action.key}"
            case OpenApp():
                package = self.resolve_app(action.app)
                out = self.shell(f"monkey -p {sh_quote(package)} -c android.intent.category.LAUNCHER 1")
                if out.code != 0 or "No activities found" in out.output or "aborted" in out.output:
                    raise UnsupportedAction(
                        f"{package} has no launcher activity to open on {self.name}", fix=out.output.strip()[:200]
                    )
                return f"opened {package}"
            case Wait():
                time.sleep(action.seconds)
                return f"waited {action.seconds:g} s"
        return f"{action.type} is handled by the runner, not the phone"

    def type_text(self, text: str) -> None:
        if not needs_keyboard_app(text):
            for command in input_text_commands(text):
                self._checked(command, "typing")
            return
        if not self.has_adb_keyboard():
            raise UnsupportedAction(
                f"`input text` cannot type {text!r} (only ASCII) and the ADB keyboard is not installed",
                fix="install ADBKeyboard (com.android.adbkeyboard) on the phone, or type ASCII only",
            )
        previous = self.shell("settings get secure default_input_method").output.strip()
        if previous != ADB_KEYBOARD_IME:
            self._checked(f"ime enable {ADB_KEYBOARD_IME}", "enabling the ADB keyboard")
            self._checked(f"ime set {ADB_KEYBOARD_IME}", "switching to the ADB keyboard")
        try:
            self._checked(adb_keyboard_command(text), "typing through the ADB keyboard")
        finally:
            if previous and previous != ADB_KEYBOARD_IME and previous != "null":
                self.shell(f"ime set {sh_quote(previous)}")

    def has_adb_keyboard(self) -> bool:
        if self._keyboard is None:
            self._keyboard = ADB_KEYBOARD_IME in self.shell("ime list -s -a", what="listing keyboards").output
        return self._keyboard

    # -- apps ------------------------------------------------------------------------------------

    def packages(self) -> list[str]:
        if self._packages is None:
            out = self._checked("pm list packages", "listing packages")
            self._packages = sorted(line[8:].strip() for line in out.splitlines() if line.startswith("package:"))
        return self._packages

    def list_apps(self) -> list[str]:
        """Packages with a launcher icon (all packages where the device cannot tell)."""
        out = self.shell(
            "cmd package query-activities --brief -a android.intent.action.MAIN -c android.intent.category.LAUNCHER"
        )
        found = sorted({m[1] for m in re.finditer(r"^\s*([\w.]+)/", out.output, re.M)}) if out.code == 0 else []
        return found or self.packages()

    def resolve_app(self, app: str) -> str:
        """A package for a package name or a launcher label ("Chrome", "Settings")."""
        return resolve_package(app, self.packages(), self._labels, where=self.name)

    # -- clock, reset ----------------------------------------------------------------------------

    def set_clock(self, when: datetime) -> None:
        self.shell("settings put global auto_time 0")
        if when.tzinfo is not None:
            stamp, flag = when.astimezone(UTC).strftime("%m%d%H%M%Y.%S"), "-u "
        else:
            stamp, flag = when.strftime("%m%d%H%M%Y.%S"), ""
        attempts = [f"date {flag}{stamp}", f"su 0 date {flag}{stamp}", f"su -c {sh_quote(f'date {flag}{stamp}')}"]
        last = ""
        for command in attempts:
            out = self.shell(command, what="setting the clock")
            if out.code == 0 and "not permitted" not in out.output and "bad date" not in out.output:
                return
            last = out.output.strip()
        raise DeviceError(
            f"{self.name}: setting the clock needs root ({last[:200] or 'date failed'})",
            fix="use an emulator image without Google Play and run `adb root`, or a rooted phone",
        )

    def snapshot(self) -> Any:
        return None

    def restore(self, snap: Any) -> None:
        if snap is not None:
            raise UnsupportedAction("a real device cannot restore a snapshot; give the scenario reset steps")

    def reset(self, steps: list[str] | None = None) -> None:
        """Run a scenario's reset steps: shell commands, or `emu:...` for the emulator console."""
        for step in steps or []:
            if step.startswith("emu:"):
                self._emu(step[4:].strip())
            else:
                self._checked(step, f"reset step `{step}`")
        self._packages = None

    def _emu(self, command: str) -> None:
        if not self.serial.startswith("emulator-"):
            raise DeviceError(f"reset step `emu:{command}` needs an emulator; {self.name} is not one")
        if command.startswith("snapshot "):
            command = "avd " + command
        binary = adb_binary()
        if binary is None:
            raise DeviceError("emulator console steps need the `adb` binary", fix="install Android platform-tools")
        env = dict(os.environ, ANDROID_ADB_SERVER_PORT=str(self.port))
        env.pop("ADB_SERVER_SOCKET", None)
        proc = subprocess.run(
            [binary, "-P", str(self.port), "-s", self.serial, "emu", *command.split()],
            capture_output=True, timeout=300, env=env, stdin=subprocess.DEVNULL,
        )
        text = (proc.stdout + proc.stderr).decode("utf-8", "replace")
        if proc.returncode != 0 or "KO" in text:
            raise DeviceError(f"{self.name}: emulator command `{command}` failed: {text.strip()[:300]}")

    def state(self) -> dict[str, Any] | None:
        return None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def parse_focus(dumpsys: str) -> str:
    """The foreground package from `dumpsys window` (focused window, else the focused app)."""
    m = _FOCUS.search(dumpsys) or _FOCUSED_APP.search(dumpsys)
    return m[1] if m else ""


def parse_clock(text: str) -> datetime:
    """The device's wall-clock time, naive like the sim's clock (scenario times are local times)."""
    m = _DATE.search(text)
    if not m:
        raise DeviceError(f"cannot read the device clock from {text.strip()[:120]!r}")
    return datetime.fromisoformat(m[1])
