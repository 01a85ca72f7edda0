"""The simulated phone over the real ADB protocol, driven by the real adb CLI and adbutils."""

from __future__ import annotations

import io
import os
import re
import subprocess
import threading

import pytest
from PIL import Image

from tests import adb_helpers
from tests.adb_helpers import SimOverAdb, needs_adb, sim_over_adb

pytestmark = [pytest.mark.adb, needs_adb]
adb_srv = adb_helpers.adb_srv  # the shared fixture
sim_adb = adb_helpers.sim_adb  # the shared fixture


def _bounds(xml: str, desc: str) -> tuple[int, int]:
    m = re.search(rf'content-desc="{desc}"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', xml)
    assert m, f"no {desc} in the dump"
    x1, y1, x2, y2 = map(int, m.groups())
    return (x1 + x2) // 2, (y1 + y2) // 2


def test_the_adb_server_lists_the_sim_with_its_model(sim_adb: SimOverAdb) -> None:
    out = sim_adb.server.run("devices", "-l").stdout.decode()
    line = next(ln for ln in out.splitlines() if ln.startswith(sim_adb.serial))
    assert "device" in line.split() and "model:guilens_sim" in line


def test_exec_out_screencap_is_the_sims_own_render(sim_adb: SimOverAdb) -> None:
    png = sim_adb.adb("exec-out", "screencap", "-p").stdout
    assert png.startswith(b"\x89PNG")
    shot = Image.open(io.BytesIO(png))
    assert shot.size == (1080, 2400)
    own = sim_adb.on_sim(sim_adb.sim.observe).screenshot
    assert shot.convert("RGB").tobytes() == own.convert("RGB").tobytes()


def test_dump_then_tap_a_launcher_icon_opens_the_app(sim_adb: SimOverAdb) -> None:
    out = sim_adb.adb("shell", "uiautomator", "dump").stdout.decode()
    assert out.strip() == "UI hierchary dumped to: /sdcard/window_dump.xml"
    xml = sim_adb.adb("shell", "cat", "/sdcard/window_dump.xml").stdout.decode()
    x, y = _bounds(xml, "Notes")
    sim_adb.adb("shell", "input", "tap", str(x), str(y))
    focus = sim_adb.adb("shell", "dumpsys window | grep mCurrentFocus").stdout.decode()
    assert "com.guilens.notes/" in focus
    assert sim_adb.state()["foreground"] == "com.guilens.notes"


def test_shell_v2_exit_codes_and_separate_streams(sim_adb: SimOverAdb) -> None:
    r = sim_adb.adb("shell", "frobnicate", "--now", check=False)
    assert r.returncode == 127
    assert b"frobnicate: not found" in r.stderr and r.stdout == b""
    assert sim_adb.adb("shell", "false", check=False).returncode == 1
    assert sim_adb.adb("shell", "exit 42", check=False).returncode == 42
    r = sim_adb.adb("shell", "echo out; echo err >&2", check=False)
    assert (r.returncode, r.stdout, r.stderr) == (0, b"out\n", b"err\n")
    r = sim_adb.adb("shell", "getprop", "ro.product.model")
    assert r.stdout == b"guilens_sim\n"


def test_input_text_from_the_cli_arrives_literally(sim_adb: SimOverAdb) -> None:
    sim_adb.adb("shell", "monkey -p com.guilens.notes -c android.intent.category.LAUNCHER 1")
    xml = sim_adb.adb("exec-out", "uiautomator", "dump", "/dev/tty").stdout.decode()
    x, y = _bounds(xml, "New note")
    sim_adb.adb("shell", "input", "tap", str(x), str(y))
    # the adb CLI joins arguments with spaces; quoting is for the device shell, %s is input's space
    sim_adb.adb("shell", "input", "text", "'hello;%sreboot'")
    assert sim_adb.state()["fields"]["title"] == "hello; reboot"


def test_pull_and_push_through_the_sync_service(sim_adb: SimOverAdb, tmp_path: object) -> None:
    local = os.path.join(str(tmp_path), "dump.xml")
    sim_adb.adb("shell", "uiautomator", "dump", "/sdcard/d.xml")
    sim_adb.adb("pull", "/sdcard/d.xml", local)
    with open(local, encoding="utf-8") as f:
        assert "<hierarchy" in f.read()
    with open(local, "w", encoding="utf-8") as f:
        f.write("pushed\n")
    sim_adb.adb("push", local, "/data/local/tmp/p.txt")
    assert sim_adb.adb("shell", "cat", "/data/local/tmp/p.txt").stdout == b"pushed\n"
    assert sim_adb.adb("pull", "/sdcard/missing.txt", local, check=False).returncode != 0


def test_adbutils_helpers_work_against_the_sim(sim_adb: SimOverAdb) -> None:
    import adbutils

    d = adbutils.AdbClient(port=sim_adb.server.port).device(sim_adb.serial)
    assert d.shell("echo hi") == "hi"  # shell v1
    assert d.window_size() == (1080, 2400)  # wm size + dumpsys display
    assert d.app_current().package == "com.guilens.launcher"
    assert "<hierarchy" in d.dump_hierarchy()  # uiautomator dump + sync pull
    assert d.prop.model == "guilens_sim"
    shot = d.screenshot()
    own = sim_adb.on_sim(sim_adb.sim.observe).screenshot
    assert shot.tobytes() == own.convert("RGB").tobytes()
    d.app_start("com.guilens.calculator")
    assert d.app_current().package == "com.guilens.calculator"
    d.keyevent("KEYCODE_HOME")
    assert d.app_current().package == "com.guilens.launcher"


def test_interactive_shell_reads_commands_from_stdin(sim_adb: SimOverAdb) -> None:
    proc = subprocess.run(
        [sim_adb.server.binary, "-P", str(sim_adb.server.port), "-s", sim_adb.serial, "shell"],
        input=b"echo one\nwm size\nexit 5\necho never\n",
        capture_output=True,
        timeout=30,
        env=sim_adb.server.env,
    )
    assert proc.stdout == b"one\nPhysical size: 1080x2400\n"
    assert proc.returncode == 5


def test_concurrent_streams_share_one_phone(sim_adb: SimOverAdb) -> None:
    import adbutils

    d = adbutils.AdbClient(port=sim_adb.server.port).device(sim_adb.serial)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            for _ in range(4):
                png = d.shell("screencap -p", encoding=None)
                assert Image.open(io.BytesIO(png)).size == (1080, 2400)
                assert d.shell(f"echo {i}") == str(i)
        except BaseException as err:  # collected and re-raised in the main thread
            errors.append(err)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors


def test_a_large_png_crosses_intact_in_payload_sized_writes(sim_adb: SimOverAdb) -> None:
    big = os.urandom(3 * 1024 * 1024 + 17)  # not a PNG: the bytes only have to arrive unchanged
    sim_adb.bridge.screencap_override = big
    assert sim_adb.adb("exec-out", "screencap", "-p").stdout == big


def test_an_unauthorized_phone_is_listed_as_such(adb_srv: object) -> None:
    with sim_over_adb(adb_srv, unauthorized=True) as s:  # type: ignore[arg-type]
        s.server.wait_state(s.serial, "unauthorized")
        r = s.adb("shell", "echo hi", check=False)
        assert r.returncode != 0 and b"unauthorized" in r.stderr


def test_the_dump_chain_of_a_ui_automation_library(sim_adb: SimOverAdb) -> None:
    out = sim_adb.adb("shell", "cp /dev/null /sdcard/ui.xml && uiautomator dump /sdcard/ui.xml && cat /sdcard/ui.xml")
    message, _, xml = out.stdout.decode().partition("\n")
    assert message == "UI hierchary dumped to: /sdcard/ui.xml"
    assert xml.startswith("<?xml") and xml.rstrip().endswith("</hierarchy>")
    assert sim_adb.adb("shell", "which", "cp", "touch").stdout == b"/system/bin/cp\n/system/bin/touch\n"
    assert b"level: 80" in sim_adb.adb("shell", "dumpsys", "battery").stdout
    assert sim_adb.adb("shell", "cat", "/proc/stat").stdout.startswith(b"cpu  ")


def test_framebuffer_through_the_adb_server(sim_adb: SimOverAdb) -> None:
    import struct

    import adbutils

    d = adbutils.AdbClient(port=sim_adb.server.port).device(sim_adb.serial)
    with d.open_transport() as c:
        c.send_command("framebuffer:")
        c.check_okay()
        raw = c.read_until_close(encoding=None)
    assert isinstance(raw, bytes)
    version, bpp, size, width, height = struct.unpack_from("<5I", raw)
    assert (version, bpp, width, height, size, len(raw)) == (1, 32, 1080, 2400, 1080 * 2400 * 4, 52 + size)
    own = sim_adb.on_sim(sim_adb.sim.observe).screenshot.convert("RGBA").tobytes()
    assert raw[52:] == own
    assert sim_adb.adb("shell", "echo", "alive").stdout == b"alive\n"


def test_long_commands_do_not_stall_other_streams(sim_adb: SimOverAdb) -> None:
    """Ten `adb shell sleep 25` at once (more than any fixed worker pool would hold), then `echo ok`."""
    import time

    def sleepers() -> int:
        return sum(t.name.startswith("sim-shell") for t in threading.enumerate())

    base = sleepers()
    procs = [
        subprocess.Popen(
            [sim_adb.server.binary, "-P", str(sim_adb.server.port), "-s", sim_adb.serial, "shell", "sleep", "25"],
            env=sim_adb.server.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        for _ in range(10)
    ]
    try:
        deadline = time.monotonic() + 15
        while sleepers() < base + 10:
            assert time.monotonic() < deadline, f"only {sleepers() - base} sleeps started"
            time.sleep(0.05)
        started = time.monotonic()
        assert sim_adb.adb("shell", "echo", "ok", timeout=20).stdout == b"ok\n"
        assert time.monotonic() - started < 2
    finally:
        for p in procs:
            p.kill()
            p.wait(10)
    deadline = time.monotonic() + 10  # the clients went away: their streams close and the sleeps end
    while sleepers() > base:
        assert time.monotonic() < deadline, f"{sleepers() - base} sleeps still running"
        time.sleep(0.05)
