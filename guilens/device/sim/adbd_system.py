"""The simulated phone's system commands: properties, apps (`monkey`, `am`, `pm`), clock, settings, keyboards.

Answers use the wording real Android prints, because tools match on it
(`monkey` aborting, `Broadcast completed`, `date`'s format). The ADB keyboard
is modelled as installed (unless the bridge says otherwise) but, as on a
phone, its broadcasts only type when it is the selected input method, so the
code that switches keyboards around it is exercised for real.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from guilens.actions import Action, KeyPress, OpenApp, Type
from guilens.device.sim.adbd_shell import Command, ShellResult, fail, ok

ADB_KEYBOARD = "com.android.adbkeyboard/.AdbIME"
LATIN_IME = "com.android.inputmethod.latin/.LatinIME"


def app_table(device: Any) -> dict[str, str]:
    """package -> launcher label: the sim's registry (objects with .package/.label, or (package, label)
    pairs on a stand-in device), else the device's package list."""
    apps: Any = getattr(device, "APPS", None)
    if apps is None and type(device).__module__.startswith("guilens.device.sim"):
        from guilens.device.sim import registry

        apps = registry.APPS
    table: dict[str, str] = {}
    for short, info in (apps or {}).items():
        if isinstance(info, tuple | list):
            table[str(info[0])] = str(info[1])
        else:
            table[str(info.package)] = str(getattr(info, "label", short))
    if not table:
        for name in device.list_apps():
            table[name] = name.rsplit(".", 1)[-1].capitalize()
    return table


class SystemCommands:
    """Mixed into `PhoneCommands`, which provides the device, its thread and the helpers below."""

    device: Any
    call: Callable[..., Any]
    adb_keyboard: bool
    settings: dict[str, dict[str, str]]
    input: Command
    wm: Command

    def _act(self, action: Action) -> ShellResult:
        raise NotImplementedError

    def _foreground(self) -> str:
        raise NotImplementedError

    def props(self) -> dict[str, str]:
        return {
            "ro.product.model": "guilens_sim",
            "ro.product.name": "guilens_sim",
            "ro.product.device": "guilens_sim",
            "ro.product.brand": "guilens",
            "ro.product.manufacturer": "guilens",
            "ro.product.cpu.abi": "x86_64",
            "ro.build.version.release": "14",
            "ro.build.version.sdk": "34",
            "ro.build.type": "userdebug",
            "ro.build.characteristics": "default",
            "ro.serialno": "GUILENSSIM",
            "ro.debuggable": "1",
            "ro.secure": "0",
            "sys.boot_completed": "1",
            "service.adb.root": "1",
            "persist.sys.timezone": "UTC",
        }

    def getprop(self, args: list[str], stdin: bytes) -> ShellResult:
        props = self.props()
        if args:
            return ok(props.get(args[0], args[1] if len(args) > 1 else "") + "\n")
        return ok("".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())))

    def _package(self, name: str) -> str | None:
        table = app_table(self.device)
        if name in table:
            return name
        for pkg, label in table.items():
            if label.casefold() == name.casefold():
                return pkg
        return None

    def monkey(self, args: list[str], stdin: bytes) -> ShellResult:
        packages = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-p"]
        if not packages or self._package(packages[0]) is None:
            return ShellResult(b"", b"** No activities found to run, monkey aborted.\n", 252)
        result = self._act(OpenApp(app=packages[0]))
        if result.code:
            return result
        return ok("Events injected: 1\n## Network stats: elapsed time=4ms (0ms mobile, 0ms wifi, 4ms not connected)\n")

    def am(self, args: list[str], stdin: bytes) -> ShellResult:
        if not args:
            return fail("usage: am [start|force-stop|broadcast] ...")
        verb, opts = args[0], _intent_options(args[1:])
        if verb in ("start", "start-activity"):
            component = opts.get("-n")
            if component:
                pkg = component.split("/", 1)[0]
                if self._package(pkg) is None:
                    return fail(f"Error type 3\nError: Activity class {{{component}}} does not exist.")
                result = self._act(OpenApp(app=pkg))
                return result if result.code else ok(f"Starting: Intent {{ cmp={component} }}\n")
            if opts.get("-c") == "android.intent.category.HOME":
                result = self._act(KeyPress(key="home"))
                return result if result.code else ok("Starting: Intent { act=android.intent.action.MAIN cat=[android.intent.category.HOME] }\n")
            action = opts.get("-a", "")
            return fail(f"Error: Activity not started, unable to resolve Intent {{ act={action} }}")
        if verb == "force-stop":
            target = args[1] if len(args) > 1 else ""
            if target and self._foreground() == target:
                return self._act(KeyPress(key="home"))
            return ok()
        if verb == "broadcast":
            return self._broadcast(opts)
        return fail(f"Error: unknown command '{verb}'")

    def _broadcast(self, opts: dict[str, str]) -> ShellResult:
        action = opts.get("-a", "")
        keyboard_on = self.adb_keyboard and self.settings["secure"]["default_input_method"] == ADB_KEYBOARD
        text: str | None = None
        if keyboard_on and action == "ADB_INPUT_TEXT":
            text = opts.get("msg", "")
        elif keyboard_on and action == "ADB_INPUT_B64":
            text = base64.b64decode(opts.get("msg", "")).decode("utf-8", "replace")
        elif keyboard_on and action == "ADB_INPUT_CHARS":
            text = "".join(chr(int(c)) for c in opts.get("chars", "").split(",") if c.strip())
        elif keyboard_on and action == "ADB_EDITOR_CODE":
            result = self._act(KeyPress(key="enter"))
            if result.code:
                return result
        if text:
            result = self._act(Type(text=text))
            if result.code:
                return result
        return ok(f"Broadcasting: Intent {{ act={action} flg=0x400000 }}\nBroadcast completed: result=0\n")

    def pm(self, args: list[str], stdin: bytes) -> ShellResult:
        table = app_table(self.device)
        if args[:2] == ["list", "packages"]:
            words = [a for a in args[2:] if not a.startswith("-")]
            pkgs = sorted(p for p in table if not words or words[0] in p)
            return ok("".join(f"package:{p}\n" for p in pkgs))
        if args[:1] == ["path"] and len(args) > 1:
            if args[1] not in table:
                return ShellResult(code=1)
            return ok(f"package:/data/app/{args[1]}/base.apk\n")
        if args[:1] == ["clear"] and len(args) > 1:
            return fail("Error: `pm clear` is not supported by the simulated phone; reset the sim instead")
        return fail("usage: pm [list packages|path PACKAGE]")

    def cmd(self, args: list[str], stdin: bytes) -> ShellResult:
        services: dict[str, Command] = {
            "package": self.pm, "input": self.input, "activity": self.am, "window": self.wm,
            "settings": self.settings_cmd, "input_method": self.ime,
        }
        if not args:
            return fail("cmd: No service specified; use -l to list all running services", 20)
        if args[0] == "-l":
            return ok("".join(f"{s}\n" for s in sorted(services)))
        handler = services.get(args[0])
        if handler is None:
            return fail(f"cmd: Can't find service: {args[0]}", 20)
        return handler(args[1:], stdin)

    # -- clock, settings, keyboard ---------------------------------------------------------------

    def date(self, args: list[str], stdin: bytes) -> ShellResult:
        fmt = "%a %b %e %H:%M:%S %Z %Y"
        new: datetime | None = None
        now: datetime = self.call(self.device.clock)
        it = iter(args)
        for a in it:
            if a == "-u":
                continue
            if a.startswith("+"):
                fmt = a[1:]
            elif a == "-s":
                value = next(it, "")
                try:
                    new = datetime.fromisoformat(value.replace("/", "-"))
                except ValueError:
                    return fail(f"date: bad date '{value}'")
            else:
                try:
                    new = parse_date_set(a, now)
                except ValueError:
                    return fail(f"date: bad date '{a}'")
        if new is not None:
            if now.tzinfo is not None and new.tzinfo is None:
                new = new.replace(tzinfo=now.tzinfo)
            self.call(self.device.set_clock, new)
            now = self.call(self.device.clock)
        return ok(format_date(now, fmt) + "\n")

    def settings_cmd(self, args: list[str], stdin: bytes) -> ShellResult:
        if len(args) >= 2 and args[0] in ("get", "put", "delete", "list"):
            verb, ns = args[0], args[1]
            if ns not in self.settings:
                return fail(f"Invalid namespace '{ns}'")
            table = self.settings[ns]
            if verb == "list":
                return ok("".join(f"{k}={v}\n" for k, v in sorted(table.items())))
            if len(args) < 3:
                return fail(f"settings {verb}: missing key")
            key = args[2]
            if verb == "get":
                return ok(table.get(key, "null") + "\n")
            if verb == "delete":
                table.pop(key, None)
                return ok("Deleted 1 rows\n")
            if len(args) < 4:
                return fail("settings put: missing value")
            table[key] = args[3]
            return ok()
        return fail("usage:  settings [--user <USER_ID> | current] get|put|delete|list NAMESPACE [KEY [VALUE]]")

    def ime(self, args: list[str], stdin: bytes) -> ShellResult:
        installed = [LATIN_IME] + ([ADB_KEYBOARD] if self.adb_keyboard else [])
        verb = args[0] if args else ""
        if verb == "list":
            return ok("".join(f"{i}\n" for i in installed))
        if verb in ("set", "enable", "disable") and len(args) > 1:
            ime_id = args[1]
            if ime_id not in installed:
                return fail(f"Unknown input method {ime_id} cannot be {verb}d for user #0")
            if verb == "set":
                self.settings["secure"]["default_input_method"] = ime_id
                return ok(f"Input method {ime_id} selected for user #0\n")
            return ok(f"Input method {ime_id}: {'now' if verb == 'enable' else 'already'} {verb}d for user #0\n")
        if verb == "reset":
            self.settings["secure"]["default_input_method"] = LATIN_IME
            return ok(f"Reset current and enabled IMEs for user #0\n  Selected: {LATIN_IME}\n")
        return fail("ime <command>:\n  list [-a] [-s]\n  enable ID\n  disable ID\n  set ID\n  reset")


def _intent_options(args: list[str]) -> dict[str, str]:
    """`-n COMP -a ACT --es key value` → {"-n": COMP, "-a": ACT, "key": value} (extras by key)."""
    opts: dict[str, str] = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--es", "--ez", "--ei", "--el", "--ef", "--eia", "--esa", "--eu"):
            if i + 2 < len(args):
                opts[args[i + 1]] = args[i + 2]
            i += 3
        elif a in ("-n", "-a", "-c", "-d", "-t", "-f", "--user", "-p") and i + 1 < len(args):
            opts[a] = args[i + 1]
            i += 2
        else:
            i += 1
    return opts


_SET_RE = re.compile(r"^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2}|\d{4})?(?:\.(\d{2}))?$")


def parse_date_set(value: str, now: datetime) -> datetime:
    """toybox `date MMDDhhmm[[CC]YY][.ss]`."""
    m = _SET_RE.match(value)
    if not m:
        raise ValueError(value)
    month, day, hour, minute = (int(m[i]) for i in range(1, 5))
    year = now.year
    if m[5]:
        year = int(m[5]) if len(m[5]) == 4 else 2000 + int(m[5])
    second = int(m[6]) if m[6] else 0
    return datetime(year, month, day, hour, minute, second, tzinfo=now.tzinfo)


def format_date(when: datetime, fmt: str) -> str:
    """strftime as toybox does it, with %s (epoch seconds) and %N, and UTC for a clock with no zone."""
    epoch = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    fmt = fmt.replace("%s", str(int(epoch.timestamp()))).replace("%N", f"{when.microsecond * 1000:09d}")
    if when.tzinfo is None:
        fmt = fmt.replace("%Z", "UTC").replace("%z", "+0000")
    return when.strftime(fmt)

