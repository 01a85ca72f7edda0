"""Turning guilens text and keys into what Android's shell tools accept.

`input text` is the only way to type without a helper app, and it is awkward:
the argument goes through the device's `sh` first (so `;`, `&`, `$`, quotes and
backslashes must be quoted), then `input` turns every `%s` into a space (so a
space must be sent as `%s`, and a literal `%s` cannot be sent in one piece at
all). It also cannot type newlines or anything outside ASCII; those go as key
events or through the ADB keyboard broadcast.
"""

from __future__ import annotations

import re

from guilens.device.base import UnsupportedAction

KEYCODES = {"home": 3, "back": 4, "enter": 66, "delete": 67, "menu": 82, "recent": 187}
"""Android key codes of the guilens keys; `delete` is KEYCODE_DEL, the keyboard's backspace."""
KEYCODE_MOVE_END = 123
"""Puts the cursor at the end of the focused field: a `type` with `clear` deletes back from there."""
KEYCODE_TAB = 61
ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"


def sh_quote(arg: str) -> str:
    """Quote one argument for the device's POSIX shell (mksh/toybox sh)."""
    if arg and all(c.isalnum() or c in "@%+=:,./-_" for c in arg):
        return arg
    return "'" + arg.replace("'", "'\\''") + "'"


def input_text_chunks(text: str) -> list[str]:
    """Split `text` so no piece contains a literal `%s`, which `input text` would turn into a space."""
    pieces: list[str] = []
    start = 0
    i = text.find("%s")
    while i >= 0:
        pieces.append(text[start : i + 1])  # up to and including the '%'
        start = i + 1
        i = text.find("%s", start)
    pieces.append(text[start:])
    return [p for p in pieces if p]


def input_text_commands(text: str) -> list[str]:
    """Shell commands that type `text` (printable ASCII, newlines and tabs) literally with `input`."""
    cmds: list[str] = []
    lines = text.split("\n")
    for n, line in enumerate(lines):
        parts = line.split("\t")
        for m, part in enumerate(parts):
            for chunk in input_text_chunks(part):
                cmds.append("input text " + sh_quote(chunk.replace(" ", "%s")))
            if m < len(parts) - 1:
                cmds.append(f"input keyevent {KEYCODE_TAB}")
        if n < len(lines) - 1:
            cmds.append(f"input keyevent {KEYCODES['enter']}")
    return cmds


def clear_field_commands(length: int, *, per_command: int = 40) -> list[str]:
    """Shell commands that empty a focused field holding `length` characters.

    Android has no "clear this field" key and `input` no select-all before
    Android 13 (`input keycombination`), so: the cursor to the end
    (KEYCODE_MOVE_END), then that many deletes (KEYCODE_DEL), several key codes
    to one `input keyevent` so a long field costs a few shell round trips, not
    one per character. Deleting in an already empty field does nothing, so a
    caller unsure of the length may pass more.
    """
    if length <= 0:
        return []
    cmds = [f"input keyevent {KEYCODE_MOVE_END}"]
    left = length
    while left > 0:
        n = min(per_command, left)
        cmds.append("input keyevent " + " ".join([str(KEYCODES["delete"])] * n))
        left -= n
    return cmds


def needs_keyboard_app(text: str) -> bool:
    """True when `input text` cannot type it: anything but printable ASCII, newline and tab."""
    return any(not (32 <= ord(c) < 127 or c in "\n\t") for c in text)


def adb_keyboard_command(text: str) -> str:
    return "am broadcast -a ADB_INPUT_TEXT --es msg " + sh_quote(text)


# Launcher labels of common apps; a device's labels are not readable from the shell.
KNOWN_LABELS: dict[str, tuple[str, ...]] = {
    "settings": ("com.android.settings",),
    "chrome": ("com.android.chrome",),
    "browser": ("com.android.chrome", "com.android.browser", "org.chromium.webview_shell"),
    "contacts": ("com.google.android.contacts", "com.android.contacts"),
    "messages": ("com.google.android.apps.messaging", "com.android.messaging", "com.android.mms"),
    "phone": ("com.google.android.dialer", "com.android.dialer"),
    "clock": ("com.google.android.deskclock", "com.android.deskclock"),
    "calendar": ("com.google.android.calendar", "com.android.calendar", "org.fossify.calendar"),
    "camera": ("com.google.android.GoogleCamera", "com.android.camera2", "com.android.camera"),
    "calculator": ("com.google.android.calculator", "com.android.calculator2"),
    "files": ("com.google.android.documentsui", "com.android.documentsui"),
    "gmail": ("com.google.android.gm",),
    "maps": ("com.google.android.apps.maps",),
    "youtube": ("com.google.android.youtube",),
    "play store": ("com.android.vending",),
    "photos": ("com.google.android.apps.photos",),
    "gallery": ("com.android.gallery3d", "com.google.android.apps.photos"),
    "markor": ("net.gsantner.markor",),
}


def resolve_package(app: str, packages: list[str], labels: dict[str, str], *, where: str) -> str:
    """The package for a package name or launcher label; labels are not readable from a shell,
    so: the caller's own label map, common apps' known packages, then a unique package-name match."""
    if app in packages:
        return app
    key = app.strip().casefold()
    if key in labels:
        return labels[key]
    for candidate in KNOWN_LABELS.get(key, ()):
        if candidate in packages:
            return candidate
    squashed = re.sub(r"[^a-z0-9]", "", key)
    hits = [p for p in packages if squashed and squashed in p.rsplit(".", 1)[-1].casefold()]
    if not hits:
        hits = [p for p in packages if squashed and squashed in p.replace(".", "").casefold()]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise UnsupportedAction(f"{app!r} could be any of {', '.join(hits[:6])}", fix="open the app by its package name")
    raise UnsupportedAction(
        f"no app {app!r} on {where}", fix="give the package name (`adb shell pm list packages` lists them)"
    )
