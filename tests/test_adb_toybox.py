"""The device shell's toybox commands, /proc files, `dumpsys battery` and typing keyevents, without a server."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from guilens.device.sim import SimDevice
from guilens.device.sim.adbd_shell import SimShell
from tests.adb_helpers import TinyPhone


def _shell(phone: Any) -> SimShell:
    return SimShell(phone, lambda fn, *a: fn(*a))


def test_cp_mv_touch_mkdir_on_the_phones_files() -> None:
    sh = _shell(TinyPhone())
    assert sh.run("cp /dev/null /sdcard/empty.xml && cat /sdcard/empty.xml").stdout == b""
    assert sh.run("ls /sdcard").stdout.splitlines().count(b"empty.xml") == 1
    sh.run("echo data > /sdcard/a.txt")
    assert sh.run("cp /sdcard/a.txt /data/local/tmp && cat /data/local/tmp/a.txt").stdout == b"data\n"
    assert sh.run("mv /sdcard/a.txt /sdcard/b.txt && cat /sdcard/b.txt").stdout == b"data\n"
    r = sh.run("cat /sdcard/a.txt")
    assert r.code == 1 and r.stderr == b"cat: /sdcard/a.txt: No such file or directory\n"
    r = sh.run("cp /sdcard/missing /sdcard/x")
    assert (r.code, r.stderr) == (1, b"cp: /sdcard/missing: No such file or directory\n")
    assert sh.run("cp /sdcard/b.txt").code == 1
    assert sh.run("touch /sdcard/t && ls /sdcard/t").stdout == b"/sdcard/t\n"
    sh.run("echo keep > /sdcard/k; touch /sdcard/k")
    assert sh.run("cat /sdcard/k").stdout == b"keep\n"  # touch does not empty a file
    assert sh.run("mkdir -p /sdcard/d/e && mkdir /sdcard/d/e").code == 1
    assert sh.run("cp /sdcard/k /sdcard/d/e && ls /sdcard/d/e").stdout == b"k\n"
    r = sh.run("echo x > /proc/uptime")
    assert r.code == 1 and b"Read-only file system" in r.stderr


def test_which_finds_the_shells_commands() -> None:
    sh = _shell(TinyPhone())
    r = sh.run("which cp uiautomator input sh")
    assert r.stdout == b"/system/bin/cp\n/system/bin/uiautomator\n/system/bin/input\n/system/bin/sh\n"
    assert r.code == 0
    r = sh.run("which ls nosuch")
    assert (r.stdout, r.code) == (b"/system/bin/ls\n", 1)
    assert sh.run("which /system/bin/screencap").stdout == b"/system/bin/screencap\n"


def test_proc_files_parse_like_a_kernels() -> None:
    sh = _shell(TinyPhone())
    for name in ("stat", "meminfo", "uptime", "version", "cpuinfo", "loadavg"):
        assert sh.run(f"cat /proc/{name}").code == 0, name
    first = [int(v) for v in sh.run("head -n 1 /proc/stat").stdout.split()[1:]]
    time.sleep(0.05)
    second = [int(v) for v in sh.run("grep '^cpu ' /proc/stat").stdout.split()[1:]]
    assert len(first) == 10 and sum(second) > sum(first)  # two samples give a load, not 0/0
    busy = (second[0] - first[0]) + (second[2] - first[2])
    assert 0 <= busy < sum(second) - sum(first)
    meminfo = dict(re.findall(r"^(\w+):\s+(\d+) kB$", sh.run("cat /proc/meminfo").stdout.decode(), re.M))
    assert int(meminfo["MemAvailable"]) < int(meminfo["MemTotal"])
    up, idle = map(float, sh.run("cat /proc/uptime").stdout.split())
    assert up >= 0 and idle >= 0
    assert sh.run("cat /proc/version").stdout.startswith(b"Linux version ")
    assert sh.run("grep -c ^processor /proc/cpuinfo").stdout == b"8\n"
    assert sh.run("cat /proc/nosuch").code == 1
    assert "stat" in sh.run("ls /proc").stdout.decode().split()


def test_dumpsys_battery() -> None:
    out = _shell(TinyPhone()).run("dumpsys battery").stdout.decode()
    assert out.startswith("Current Battery Service state:\n")
    fields = dict(line.strip().split(": ", 1) for line in out.splitlines()[1:])
    assert fields["level"] == "80" and fields["scale"] == "100" and fields["present"] == "true"


def test_the_dump_chain_a_ui_automation_library_sends() -> None:
    sh = _shell(TinyPhone())
    r = sh.run("cp /dev/null /sdcard/w.xml && uiautomator dump /sdcard/w.xml && cat /sdcard/w.xml")
    assert r.code == 0
    assert r.stdout.startswith(b"UI hierchary dumped to: /sdcard/w.xml\n<?xml")


@pytest.mark.parametrize(
    ("keys", "typed"),
    [
        ("61", "\t"),
        ("KEYCODE_TAB", "\t"),
        ("62 KEYCODE_SPACE", "  "),
        ("7 8 16 KEYCODE_9", "0199"),
        ("29 KEYCODE_Z 54", "azz"),
        ("KEYCODE_NUMPAD_5 KEYCODE_NUMPAD_ADD 70", "5+="),
        ("55 56 68 69 71 72 73 74 75 76 77 81 17 18", ",.`-[]\\;'/@+*#"),
    ],
)
def test_keyevents_that_type_a_character_type_it(keys: str, typed: str) -> None:
    phone = TinyPhone()
    assert _shell(phone).run(f"input keyevent {keys}").code == 0
    assert phone.text == typed


def test_a_tab_keyevent_lands_in_the_sims_field() -> None:
    sim = SimDevice()
    sh = _shell(sim)
    sh.run("monkey -p com.guilens.notes 1")
    xml = sh.run("uiautomator dump /dev/tty").stdout.decode()
    m = re.search(r'content-desc="New note"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', xml)
    assert m
    x1, y1, x2, y2 = map(int, m.groups())
    sh.run(f"input tap {(x1 + x2) // 2} {(y1 + y2) // 2}")
    assert sh.run("input text tab && input keyevent 61 && input text here").code == 0
    assert sim.state()["fields"]["title"] == "tab\there"


def test_sync_requests_are_bounded() -> None:
    import struct

    from guilens.device.sim.adbd_sync import SyncSession, VirtualFiles

    def request(rid: bytes, body: bytes, length: int | None = None) -> bytes:
        return rid + struct.pack("<I", len(body) if length is None else length) + body

    replies, done = SyncSession(VirtualFiles()).feed(request(b"STAT", b"", length=1 << 30))
    assert done and replies[-1].startswith(b"FAIL") and b"limit is 1024" in replies[-1]
    session = SyncSession(VirtualFiles())
    replies, done = session.feed(request(b"SEND", b"/sdcard/f,33188") + request(b"DATA", b"", length=1 << 20))
    assert done and b"limit is 65536" in replies[-1]
    files = VirtualFiles()
    replies, done = SyncSession(files).feed(
        request(b"SEND", b"/sdcard/f,33188") + request(b"DATA", b"abc") + b"DONE" + struct.pack("<I", 1234)
    )
    assert (replies, done) == ([b"OKAY\0\0\0\0"], False)
    assert files.read("/storage/emulated/0/f") == b"abc" and files.stat("/sdcard/f")[2] == 1234


def test_the_phones_storage_fills_up(monkeypatch: pytest.MonkeyPatch) -> None:
    from guilens.device.sim import adbd_sync

    monkeypatch.setattr(adbd_sync, "CAPACITY", 10)
    sh = _shell(TinyPhone())
    assert sh.run("echo 12345 > /sdcard/a").code == 0
    r = sh.run("echo 67890 > /sdcard/b")
    assert r.code == 1 and r.stderr == b"/system/bin/sh: /sdcard/b: No space left on device\n"
    assert sh.run("echo 1 > /sdcard/a").code == 0  # replacing a file frees its old bytes first


async def test_an_interactive_line_without_end_is_cut_off() -> None:
    from guilens.device.sim.adbd_services import MAX_LINE, serve_interactive
    from guilens.device.sim.adbd_shell import ShellResult

    class FakeStream:
        def __init__(self, chunks: list[bytes]) -> None:
            self.chunks, self.out = chunks, bytearray()

        async def write(self, data: bytes) -> None:
            self.out += data

        async def read(self) -> bytes | None:
            return self.chunks.pop(0) if self.chunks else None

    ran: list[str] = []

    async def run(line: str) -> ShellResult:
        ran.append(line)
        return ShellResult(b"ran\n")

    stream = FakeStream([b"echo hi\n"] + [b"x" * 4096] * (MAX_LINE // 4096 + 2))
    await serve_interactive(stream, run, v2=False, pty=True)
    assert ran == ["echo hi"]
    assert b"line too long" in stream.out and stream.chunks  # it stopped reading, not buffering on
