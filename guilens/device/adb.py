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
  away mid-run raises `DeviceDisconnected` (the runner waits for it), one that
  is offline or unauthorized at the start says how to fix it (adb_server.py);
  an empty or cut-short screenshot is checked the same way, since that is what
  a phone vanishing mid-read leaves (adb_link.py);
- shell streams are read directly (adb_link.py): adbutils' `shell2` and
  `open_transport` each sleep 10 ms closing a connection, which doubles the
  cost of a tap.
"""

from __future__ import annotations

import concurrent.futures
import io
import os
import re
import subprocess
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from PIL import Image

from guilens.actions import (
    Action,
    KeyPress,
    LongPress,
    OpenApp,
    Scroll,
    Swipe,
    Tap,
    Type,
    Wait,
    scroll_gesture,
)
from guilens.device.adb_link import AdbLink
from guilens.device.adb_server import adb_binary
from guilens.device.adb_text import (
    ADB_KEYBOARD_IME,
    KEYCODES,
    adb_keyboard_command,
    clear_field_commands,
    input_text_commands,
    needs_keyboard_app,
    resolve_package,
    sh_quote,
)
from guilens.device.base import DeviceError, Observation, UnsupportedAction
from guilens.device.uitree import parse_ui_xml

DUMP_PATH = "/sdcard/window_dump.xml"
UNKNOWN_FIELD_LENGTH = 200
"""Deletes sent to clear a field whose text the UI dump does not show (a delete in an empty field does nothing)."""
_FOCUS = re.compile(r"mCurrentFocus=Window\{[^}]*?\s([\w.]+)/")
_FOCUSED_APP = re.compile(r"mFocusedApp=.*?\s([\w.]+)/")
_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})([+-]\d{4})?\s*$", re.M)
_PNG_SIG = b"\x89PNG\r\n\x1a\n"
_PNG_END = b"IEND\xaeB`\x82"


@dataclass
class ShellOutput:
    output: str
    code: int


class AdbDevice(AdbLink):
    """A phone guilens drives over adb. `serial` None: the only attached device.

    How commands reach the phone, and what a failure means (a phone gone away or a
    command that failed), is `AdbLink`'s (adb_link.py).
    """

    def __init__(
        self,
        serial: str | None = None,
        *,
        host: str | None = None,
        port: int | None = None,
        timeout: float = 60.0,
        labels: dict[str, str] | None = None,
    ) -> None:
        super().__init__(serial, host=host, port=port, timeout=timeout)
        self._labels = {k.casefold(): v for k, v in (labels or {}).items()}
        self._pool = concurrent.futures.ThreadPoolExecutor(3, thread_name_prefix=f"adb-{self.serial}")
        self._size: tuple[int, int] | None = None
        self._packages: list[str] | None = None
        self._keyboard: bool | None = None

    # -- shell -----------------------------------------------------------------------------------
    def shell(self, command: str, *, what: str | None = None) -> ShellOutput:
        """Run a command in the device shell; stdout and stderr merged, with its exit status."""
        raw, code = self.shell_raw(command, what or f"running `{command[:60]}`")
        return ShellOutput(raw.decode("utf-8", "replace"), code)

    def _checked(self, command: str, what: str) -> str:
        out = self.shell(command, what=what)
        if out.code != 0:
            raise DeviceError(f"{self.name}: {what} failed (exit {out.code}): {out.output.strip()[:300]}")
        return out.output

    # -- observing -------------------------------------------------------------------------------

    def screencap_png(self) -> bytes:
        """The screen as PNG. An empty or cut-short read is a phone that went away (or, if it is
        still there, a screencap that failed); only other bytes are a screencap that printed an error."""
        data = self.exec_bytes("screencap -p", what="taking a screenshot")
        if data.startswith(_PNG_SIG) and data.rstrip(b"\r\n").endswith(_PNG_END):
            return data
        if not data:
            raise self.cut_short("taking a screenshot", "screencap returned nothing")
        if data.startswith(_PNG_SIG) or _PNG_SIG.startswith(data):
            raise self.cut_short("taking a screenshot", f"the screenshot was cut short after {len(data)} bytes")
        raise DeviceError(f"{self.name}: screencap did not return a PNG: {data[:200]!r}")

    def screenshot(self) -> Image.Image:
        image: Image.Image = Image.open(io.BytesIO(self.screencap_png()))
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
                cleared = ""
                if action.clear:
                    n = self.focused_text_length()
                    for command in clear_field_commands(n if n is not None else UNKNOWN_FIELD_LENGTH):
                        self._checked(command, "clearing the field")
                    cleared = "cleared the field, then "
                if action.text:
                    self.type_text(action.text)
                return f"{cleared}typed {action.text!r}" if action.text else "cleared the field"
            case Scroll():
                if action.names_element:
                    raise UnsupportedAction("scroll names an element; it must be resolved before the device acts")
                at = (int(action.x), int(action.y)) if action.x is not None and action.y is not None else None
                g = scroll_gesture(action.direction, self.size, at)
                self._checked(f"input swipe {g.x1} {g.y1} {g.x2} {g.y2} {g.duration_ms}", "scrolling")
                return f"scrolled {action.direction} (swiped ({g.x1}, {g.y1}) -> ({g.x2}, {g.y2}))"
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

    def focused_text_length(self) -> int | None:
        """How many characters the focused text field holds, from a fresh UI dump (None: unknown)."""
        xml = self.ui_xml()
        if not xml:
            return None
        try:
            root = parse_ui_xml(xml)
        except ValueError:
            return None
        focused = [n for n in root.iter() if n.focused and "EditText" in n.cls]
        return len(focused[0].text) if focused else None

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
