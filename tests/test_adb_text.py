"""Text, keys and parsing for adb, without a server: what `AdbDevice` sends is what the phone types."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guilens.device.adb import parse_clock, parse_focus
from guilens.device.adb_text import (
    adb_keyboard_command,
    input_text_commands,
    needs_keyboard_app,
    resolve_package,
    sh_quote,
)
from guilens.device.base import DeviceError, UnsupportedAction
from guilens.device.sim.adbd_commands import unescape_input_text
from guilens.device.sim.adbd_shell import Op, SimShell, tokenize
from guilens.device.sim.adbd_system import format_date, parse_date_set
from tests.adb_helpers import TinyPhone


def _shell(phone: Any) -> SimShell:
    return SimShell(phone, lambda fn, *a: fn(*a))


@pytest.mark.parametrize(
    "text",
    [
        "hello; reboot",
        "it's $HOME \\ \"q\" `id` & | > < ( ) * ? ~ # !",
        "50%said 100% sure %s%s %%s",
        "trailing space ",
        "  leading",
        "%",
        "'",
        "a;b&&c||d",
    ],
)
def test_typed_text_reaches_the_phone_literally(text: str) -> None:
    phone = TinyPhone()
    shell = _shell(phone)
    for command in input_text_commands(text):
        result = shell.run(command)
        assert result.code == 0, result
    assert phone.text == text


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=40))
def test_any_printable_ascii_round_trips_through_the_device_shell(text: str) -> None:
    phone = TinyPhone()
    shell = _shell(phone)
    for command in input_text_commands(text):
        assert shell.run(command).code == 0
    assert phone.text == text


def test_newlines_and_tabs_become_key_events() -> None:
    assert input_text_commands("a b\nc\td") == [
        "input text a%sb",
        "input keyevent 66",
        "input text c",
        "input keyevent 61",
        "input text d",
    ]


def test_input_text_unescapes_like_android() -> None:
    assert unescape_input_text("a%sb") == "a b"
    assert unescape_input_text("100%%ssure") == "100% sure"
    assert unescape_input_text("50%") == "50%"
    assert unescape_input_text("%d%x") == "%d%x"


def test_non_ascii_needs_the_keyboard_app_and_is_quoted() -> None:
    assert needs_keyboard_app("café")
    assert needs_keyboard_app("emoji 🙂")
    assert not needs_keyboard_app("plain; text\n")
    tokens = tokenize(adb_keyboard_command("naïve 'x' $y"))
    assert tokens[-1] == "naïve 'x' $y"
    assert sh_quote("simple") == "simple"
    assert tokenize("echo " + sh_quote("it's")) == ["echo", "it's"]


def test_tokenizer_knows_operators_only_outside_quotes() -> None:
    assert tokenize("a ';' \";\" \\; b") == ["a", ";", ";", ";", "b"]
    assert tokenize("a; b && c || d | e") == ["a", Op(";"), "b", Op("&&"), "c", Op("||"), "d", Op("|"), "e"]
    assert tokenize("cmd 2>&1 >/dev/null 2>err") == ["cmd", Op("2>&1"), Op(">"), "/dev/null", Op("2>"), "err"]
    assert tokenize("echo a # comment") == ["echo", "a"]
    assert tokenize('echo "a \\"b\\" $c"') == ["echo", 'a "b" $c']
    assert tokenize("x2>y") == ["x2", Op(">"), "y"]


def test_shell_lists_pipes_and_redirections() -> None:
    shell = _shell(TinyPhone())
    r = shell.run("rm -f /sdcard/x.xml; uiautomator dump /sdcard/x.xml && echo success")
    assert r.code == 0 and r.stdout.endswith(b"success\n")
    assert b"<hierarchy" in shell.run("cat /sdcard/x.xml").stdout
    assert shell.run("false || echo fallback").stdout == b"fallback\n"
    assert shell.run("false && echo never").stdout == b""
    r = shell.run("exit 3; echo never")
    assert (r.code, r.stdout) == (3, b"")
    r = shell.run("dumpsys window | grep -E 'mCurrentFocus|mFocusedApp' | head -n 1")
    assert r.stdout.count(b"\n") == 1 and b"mCurrentFocus=Window{" in r.stdout
    r = shell.run("nosuch --flag")
    assert (r.code, r.stderr) == (127, b"/system/bin/sh: nosuch: not found\n")
    r = shell.run("nosuch 2>&1")
    assert r.stdout.endswith(b"not found\n") and r.stderr == b""
    r = shell.run("echo out >&2")
    assert (r.stdout, r.stderr) == (b"", b"out\n")
    assert shell.run("echo hi > /sdcard/a.txt; echo there >> /sdcard/a.txt; cat /sdcard/a.txt").stdout == b"hi\nthere\n"
    assert shell.run("echo 'unterminated").code == 2


def test_key_events_map_to_guilens_keys() -> None:
    phone = TinyPhone()
    shell = _shell(phone)
    assert shell.run("input keyevent KEYCODE_BACK 3 ENTER 82 187").code == 0
    assert [a.key for a in phone.actions] == ["back", "home", "enter", "menu", "recent"]
    assert shell.run("input keyevent KEYCODE_NOPE").code == 1
    assert shell.run("input swipe 10 10 12 12 900").code == 0
    assert phone.actions[-1].type == "long_press"
    assert shell.run("input tap 5000 5000").code == 0  # off screen: Android drops it silently
    assert phone.actions[-1].type == "long_press"
    assert shell.run("input tap x y").code == 1


@pytest.mark.parametrize(
    ("dump", "package"),
    [
        ("  mCurrentFocus=Window{3f2b1a u0 com.android.chrome/org.chromium.chrome.browser.ChromeTabbedActivity}\n"
         "  mFocusedApp=ActivityRecord{9a u0 com.android.chrome/org.chromium.chrome.browser.ChromeTabbedActivity t3}",
         "com.android.chrome"),
        ("  mCurrentFocus=Window{1b7 u0 NotificationShade}\n"
         "  mFocusedApp=ActivityRecord{2c u0 com.google.android.apps.nexuslauncher/.NexusLauncherActivity t1}",
         "com.google.android.apps.nexuslauncher"),
        ("  mCurrentFocus=null\n  mFocusedApp=null", ""),
    ],
)
def test_foreground_app_from_dumpsys_window(dump: str, package: str) -> None:
    assert parse_focus(dump) == package


def test_clock_parsing_and_setting_formats() -> None:
    assert parse_clock("junk\n2026-01-02T03:04:05+0100\n") == datetime(2026, 1, 2, 3, 4, 5)
    with pytest.raises(DeviceError):
        parse_clock("date: unknown option")
    now = datetime(2025, 12, 26, 9, 0, 0)
    assert parse_date_set("010203042026.05", now) == datetime(2026, 1, 2, 3, 4, 5)
    assert parse_date_set("01020304", now) == datetime(2025, 1, 2, 3, 4, 0)
    assert parse_date_set("0102030426", now) == datetime(2026, 1, 2, 3, 4, 0)
    assert format_date(datetime(2026, 1, 2, 3, 4, 5), "%a %b %e %H:%M:%S %Z %Y") == "Fri Jan  2 03:04:05 UTC 2026"
    assert format_date(datetime(1970, 1, 1, 0, 1, 0), "%s") == "60"


def test_app_labels_resolve_to_packages() -> None:
    pkgs = ["com.android.chrome", "com.android.settings", "com.guilens.notes", "com.guilens.notesplus", "org.x.maps"]
    assert resolve_package("com.guilens.notes", pkgs, {}, where="d") == "com.guilens.notes"
    assert resolve_package("Chrome", pkgs, {}, where="d") == "com.android.chrome"
    assert resolve_package("Maps", pkgs, {}, where="d") == "org.x.maps"
    assert resolve_package("Notes", pkgs, {"notes": "com.guilens.notes"}, where="d") == "com.guilens.notes"
    with pytest.raises(UnsupportedAction, match="could be any of"):
        resolve_package("note", pkgs, {}, where="d")
    with pytest.raises(UnsupportedAction, match="no app 'Weather'"):
        resolve_package("Weather", pkgs, {}, where="d")
