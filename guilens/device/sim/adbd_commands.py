"""The phone's own commands (`screencap`, `input`, `uiautomator`, `am`, ...) on the simulated phone.

Each one answers in the format real Android prints, because tools parse it:
adbutils reads `wm size`, `dumpsys display` (`orientation=`) and
`dumpsys window` (`mCurrentFocus=`), agents read `uiautomator dump` output and
grep `dumpsys`. Whatever changes the screen becomes a guilens action passed to
the device's `act`, so the sim has one code path whether it is driven directly
or through adb. `input text` is un-escaped the way Android's `input` does it
(`%s` is a space; nothing else is special), so text arrives literally.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from typing import Any

from guilens.actions import Action, ActionError, Key, KeyPress, LongPress, Swipe, Tap, Type
from guilens.device.sim.adbd_shell import Command, ShellResult, fail, ok
from guilens.device.sim.adbd_sync import VirtualFiles
from guilens.device.sim.adbd_system import ADB_KEYBOARD, LATIN_IME, SystemCommands
from guilens.device.sim.anomalies import BATTERY_LEVEL  # what the status bar shows

DEFAULT_DUMP = "/sdcard/window_dump.xml"

# keycode -> guilens key (the ones a guilens action can express)
KEY_ACTIONS: dict[int, Key] = {3: "home", 4: "back", 66: "enter", 67: "delete", 82: "menu", 187: "recent", 160: "enter"}
# keycodes that type a character, by KeyEvent name (android/view/KeyEvent.java); without shift, as `input` sends them
_TYPING = {
    "TAB": (61, "\t"), "SPACE": (62, " "), "STAR": (17, "*"), "POUND": (18, "#"), "COMMA": (55, ","),
    "PERIOD": (56, "."), "GRAVE": (68, "`"), "MINUS": (69, "-"), "EQUALS": (70, "="),
    "LEFT_BRACKET": (71, "["), "RIGHT_BRACKET": (72, "]"), "BACKSLASH": (73, "\\"), "SEMICOLON": (74, ";"),
    "APOSTROPHE": (75, "'"), "SLASH": (76, "/"), "AT": (77, "@"), "PLUS": (81, "+"),
    "NUMPAD_DIVIDE": (154, "/"), "NUMPAD_MULTIPLY": (155, "*"), "NUMPAD_SUBTRACT": (156, "-"),
    "NUMPAD_ADD": (157, "+"), "NUMPAD_DOT": (158, "."), "NUMPAD_COMMA": (159, ","), "NUMPAD_EQUALS": (161, "="),
    "NUMPAD_LEFT_PAREN": (162, "("), "NUMPAD_RIGHT_PAREN": (163, ")"),
    **{chr(ord("A") + i): (29 + i, chr(ord("a") + i)) for i in range(26)},
    **{str(d): (7 + d, str(d)) for d in range(10)},
    **{f"NUMPAD_{d}": (144 + d, str(d)) for d in range(10)},
}
KEY_CHARS = {code: char for code, char in _TYPING.values()}
KEYCODE_NAMES = {
    "HOME": 3, "BACK": 4, "ENTER": 66, "MENU": 82, "APP_SWITCH": 187, "NUMPAD_ENTER": 160,
    "DEL": 67, "FORWARD_DEL": 112, "ESCAPE": 111, "POWER": 26,
    "VOLUME_UP": 24, "VOLUME_DOWN": 25, "VOLUME_MUTE": 164, "WAKEUP": 224, "SLEEP": 223,
    "DPAD_UP": 19, "DPAD_DOWN": 20, "DPAD_LEFT": 21, "DPAD_RIGHT": 22, "DPAD_CENTER": 23,
    "SEARCH": 84, "CAMERA": 27,
    **{name: code for name, (code, _char) in _TYPING.items()},
}

INPUT_USAGE = """Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]
The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
"""
_SOURCES = {"touchscreen", "touchpad", "keyboard", "mouse", "stylus", "trackball", "dpad", "gamepad",
            "joystick", "touchnavigation", "rotaryencoder", "keyboardassist"}


def unescape_input_text(text: str) -> str:
    """What Android's `input text` types for an argument: every `%s` becomes a space."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "%" and i + 1 < len(text) and text[i + 1] == "s":
            out.append(" ")
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


class PhoneCommands(SystemCommands):
    """The commands that look at or change the phone. `call` runs a function on the device's thread."""

    def __init__(
        self,
        device: Any,
        call: Callable[..., Any],
        files: VirtualFiles,
        *,
        adb_keyboard: bool = True,
        bridge: Any = None,
    ) -> None:
        self.device = device
        self.call = call
        self.files = files
        self.bridge = bridge
        self.adb_keyboard = adb_keyboard
        self.settings: dict[str, dict[str, str]] = {
            "global": {"auto_time": "1", "auto_time_zone": "1", "airplane_mode_on": "0"},
            "secure": {"default_input_method": LATIN_IME,
                       "enabled_input_methods": LATIN_IME + (":" + ADB_KEYBOARD if adb_keyboard else "")},
            "system": {"screen_brightness": "128", "screen_brightness_mode": "0", "time_12_24": "24"},
        }
        self._png_lock = threading.Lock()
        self._png_cache: tuple[bytes, str, bytes] | None = None

    def commands(self) -> dict[str, Command]:
        return {
            "screencap": self.screencap,
            "input": self.input,
            "uiautomator": self.uiautomator,
            "wm": self.wm,
            "dumpsys": self.dumpsys,
            "getprop": self.getprop,
            "monkey": self.monkey,
            "am": self.am,
            "pm": self.pm,
            "cmd": self.cmd,
            "date": self.date,
            "settings": self.settings_cmd,
            "ime": self.ime,
        }

    # -- helpers ---------------------------------------------------------------------------------

    def _act(self, action: Action) -> ShellResult:
        try:
            self.call(self.device.act, action)
        except (ActionError, ValueError) as err:
            return fail(f"Error: {err}")
        return ok()

    def _observe(self) -> Any:
        return self.call(self.device.observe)

    def _foreground(self) -> str:
        app = getattr(self.device, "current_app", None)
        if isinstance(app, str):
            return app
        return str(self._observe().app)

    def _size(self) -> tuple[int, int]:
        w, h = self.device.size
        return int(w), int(h)

    # -- screen ----------------------------------------------------------------------------------

    def png(self) -> bytes:
        """The current screen as PNG; re-encoded only when the pixels changed."""
        override = getattr(self.bridge, "screencap_override", None)
        if override is not None:
            return bytes(override)
        image = self._observe().screenshot
        raw = image.tobytes()
        with self._png_lock:
            cached = self._png_cache
            if cached is not None and cached[1] == f"{image.mode}{image.size}" and cached[0] == raw:
                return cached[2]
        buf = io.BytesIO()
        image.save(buf, format="PNG", compress_level=1)
        png = buf.getvalue()
        with self._png_lock:
            self._png_cache = (raw, f"{image.mode}{image.size}", png)
        return png

    def framebuffer(self) -> tuple[int, int, bytes]:
        """(width, height, RGBA_8888 pixels) of the current screen, for the `framebuffer:` service."""
        image = self._observe().screenshot.convert("RGBA")
        width, height = image.size
        return width, height, image.tobytes()

    def screencap(self, args: list[str], stdin: bytes) -> ShellResult:
        as_png = False
        target: str | None = None
        it = iter(args)
        for a in it:
            if a == "-h":
                return ok("usage: screencap [-hp] [-d display-id] [FILENAME]\n")
            if a == "-d":
                next(it, None)
            elif a.startswith("-"):
                as_png = as_png or "p" in a
            else:
                target = a
        if target is not None and target.endswith(".png"):
            as_png = True
        if as_png:
            data = self.png()
        else:
            image = self._observe().screenshot.convert("RGBA")
            w, h = image.size
            data = w.to_bytes(4, "little") + h.to_bytes(4, "little") + (1).to_bytes(4, "little")
            data += (0).to_bytes(4, "little") + image.tobytes()
        if target is None:
            return ok(data)
        self.files.write(target, data)
        return ok()

    def input(self, args: list[str], stdin: bytes) -> ShellResult:
        a = list(args)
        if a and a[0] in _SOURCES:
            a = a[1:]
        if a[:1] == ["-d"]:
            a = a[2:]
        if not a:
            return ShellResult(INPUT_USAGE.encode(), b"", 1)
        verb, rest = a[0], a[1:]
        try:
            if verb == "tap":
                x, y = _nums(rest, 2)
                return self._touch(Tap(x=x, y=y), (x, y))
            if verb in ("swipe", "draganddrop"):
                if len(rest) not in (4, 5):
                    raise ValueError("swipe takes x1 y1 x2 y2 [duration(ms)]")
                x1, y1, x2, y2 = _nums(rest[:4], 4)
                default = 300 if verb == "swipe" else 1000
                ms = max(1, round(float(rest[4]))) if len(rest) == 5 else default
                if abs(x2 - x1) + abs(y2 - y1) <= 10:
                    point = Tap(x=x1, y=y1) if ms < 500 else LongPress(x=x1, y=y1, duration_ms=min(ms, 60_000))
                    return self._touch(point, (x1, y1))
                return self._touch(Swipe(x1=x1, y1=y1, x2=x2, y2=y2, duration_ms=min(ms, 60_000)), (x1, y1), (x2, y2))
            if verb == "text":
                if not rest:
                    raise ValueError("text needs a string")
                text = unescape_input_text(rest[0])
                return self._act(Type(text=text)) if text else ok()
            if verb in ("keyevent", "press"):
                codes = [c for c in rest if not c.startswith("--")] or (["23"] if verb == "press" else [])
                if not codes:
                    raise ValueError("keyevent needs a key code")
                for code in codes:
                    result = self._key(code)
                    if result.code:
                        return result
                return ok()
        except ValueError as err:
            return ShellResult(INPUT_USAGE.encode(), f"Error: {err}\n".encode(), 1)
        return ShellResult(INPUT_USAGE.encode(), f"Error: Unknown command: {verb}\n".encode(), 1)

    def _touch(self, action: Action, *points: tuple[int, int]) -> ShellResult:
        w, h = self._size()
        if any(not (0 <= x < w and 0 <= y < h) for x, y in points):
            return ok()  # Android drops touches off the screen without a word
        return self._act(action)

    def _key(self, code: str) -> ShellResult:
        name = code.upper().removeprefix("KEYCODE_")
        if code.isdigit():  # a number is a keycode; KEYCODE_9 is the key "9" (keycode 16)
            number = int(code)
        elif name in KEYCODE_NAMES:
            number = KEYCODE_NAMES[name]
        else:
            return fail(f"Error: Unknown keycode: {code}")
        if number in KEY_ACTIONS:
            return self._act(KeyPress(key=KEY_ACTIONS[number]))
        if number in KEY_CHARS:
            return self._act(Type(text=KEY_CHARS[number]))
        return ok()  # a real key with no effect the simulated phone models (volume, power, ...)

    def uiautomator(self, args: list[str], stdin: bytes) -> ShellResult:
        if not args or args[0] != "dump":
            return ShellResult(
                b"Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n"
                b"dump: creates an XML dump of current UI hierarchy\n", b"", 1
            )
        paths = [a for a in args[1:] if not a.startswith("--")]
        target = paths[0] if paths else DEFAULT_DUMP
        xml = self._observe().ui_xml or ""
        data = xml.encode("utf-8")
        message = f"UI hierchary dumped to: {target}\n".encode()
        if target in ("/dev/tty", "/dev/stdout", "/proc/self/fd/1"):
            return ok(data + message)
        self.files.write(target, data)
        return ok(message)

    def wm(self, args: list[str], stdin: bytes) -> ShellResult:
        w, h = self._size()
        if args[:1] == ["size"] and len(args) == 1:
            return ok(f"Physical size: {w}x{h}\n")
        if args[:1] == ["density"] and len(args) == 1:
            return ok("Physical density: 420\n")
        if args[:1] in (["size"], ["density"]):
            return fail("Error: the simulated phone has a fixed screen size and density")
        return fail("usage: wm [size|density]")

    def dumpsys(self, args: list[str], stdin: bytes) -> ShellResult:
        service = args[0] if args else ""
        w, h = self._size()
        if service == "display":
            viewport = (
                "DisplayViewport{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='local:0', "
                f"physicalPort=0, orientation=0, logicalFrame=Rect(0, 0 - {w}, {h}), "
                f"physicalFrame=Rect(0, 0 - {w}, {h}), deviceWidth={w}, deviceHeight={h}}}"
            )
            return ok(
                "DISPLAY MANAGER (dumpsys display)\n"
                f"  mViewports=[{viewport}]\n"
                f"  mDefaultViewport={viewport}\n"
                "  mCurrentOrientation=0\n"
                f"  DisplayDeviceInfo{{\"Built-in Screen\": uniqueId=\"local:0\", {w} x {h}, "
                "modeId 1, density 420, rotation 0}\n"
            )
        if service == "window":
            pkg = self._foreground()
            activity = f"{pkg}/{pkg}.MainActivity"
            return ok(
                "WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
                f"  mCurrentFocus=Window{{5e1a7c3 u0 {activity}}}\n"
                f"  mFocusedApp=ActivityRecord{{9b2d4f1 u0 {activity} t17}}\n"
            )
        if service == "activity":
            pkg = self._foreground()
            activity = f"{pkg}/{pkg}.MainActivity"
            return ok(
                "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
                f"    mResumedActivity: ActivityRecord{{9b2d4f1 u0 {activity} t17}}\n"
                f"  ResumedActivity: ActivityRecord{{9b2d4f1 u0 {activity} t17}}\n"
                f"  ACTIVITY {activity} 9b2d4f1 pid=4242\n"
            )
        if service == "battery":
            return ok(
                "Current Battery Service state:\n  AC powered: false\n  USB powered: true\n"
                "  Wireless powered: false\n  Dock powered: false\n  Max charging current: 500000\n"
                "  Max charging voltage: 5000000\n  Charge counter: 3200000\n  status: 2\n  health: 2\n"
                f"  present: true\n  level: {BATTERY_LEVEL}\n  scale: 100\n  voltage: 4112\n"
                "  temperature: 250\n  technology: Li-ion\n"
            )
        if service == "power":
            return ok("POWER MANAGER (dumpsys power)\n  mWakefulness=Awake\n  mHoldingDisplaySuspendBlocker=true\n")
        if service == "input_method":
            return ok(f"  mCurMethodId={self.settings['secure']['default_input_method']}\n")
        return ok(f"Can't find service: {service}\n" if service else "Currently running services:\n")


def _nums(values: list[str], count: int) -> list[int]:
    if len(values) != count:
        raise ValueError(f"expected {count} numbers, got {len(values)}")
    try:
        out = [round(float(v)) for v in values]
    except ValueError:
        raise ValueError(f"not a number in {' '.join(values)}") from None
    if any(v < 0 for v in out):
        raise ValueError("coordinates must not be negative")
    return out
