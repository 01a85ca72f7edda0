"""`guilens devices`, `guilens sim serve-adb` and `open_device`, as a person would use them."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from guilens.cli import UserError, app
from guilens.device import open_device
from guilens.device.base import DeviceDisconnected
from tests import adb_helpers
from tests.adb_helpers import AdbServer, free_port, needs_adb, sim_over_adb

pytestmark = [pytest.mark.adb, needs_adb]
adb_srv = adb_helpers.adb_srv  # the shared fixture


def test_open_device_specs(adb_srv: AdbServer) -> None:
    from guilens.device.adb import AdbDevice
    from guilens.device.sim import SimDevice

    assert isinstance(open_device("sim"), SimDevice)
    with sim_over_adb(adb_srv) as s:
        d = open_device(f"adb:{s.serial}", port=adb_srv.port)
        assert isinstance(d, AdbDevice) and d.name == f"adb:{s.serial}"
    with pytest.raises(UserError, match="unknown device 'phone'"):
        open_device("phone")
    with pytest.raises(UserError, match="names no serial"):
        open_device("adb:")


def test_devices_lists_the_sim_and_adb_devices(adb_srv: AdbServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(adb_srv.port))
    monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
    with sim_over_adb(adb_srv) as s:
        result = CliRunner().invoke(app, ["devices"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[0] == "sim"
    assert any(ln.split()[0] == f"adb:{s.serial}" and ln.split()[-2:] == ["guilens_sim", "device"] for ln in lines)


def test_devices_without_adb_still_lists_the_sim(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(free_port()))  # nothing listens there
    monkeypatch.setenv("ADBUTILS_ADB_PATH", "/nonexistent/adb")
    monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
    result = CliRunner().invoke(app, ["devices"])
    assert result.exit_code == 0
    assert result.output.splitlines()[0].split()[0] == "sim"
    assert "the `adb` binary was not found" in result.output
    assert "adb:" not in result.output.split("sim", 1)[1].split("\n", 1)[0]


def test_serve_adb_end_to_end(adb_srv: AdbServer, tmp_path: Path) -> None:
    """The brief's acceptance check: connect, screencap, dump, tap an icon, list it; then kill it mid-run."""
    setup = tmp_path / "setup.yaml"
    setup.write_text("clock: 2026-05-04T10:20:30\n", encoding="utf-8")
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "guilens", "sim", "serve-adb", "--port", str(port), "--setup", str(setup)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline().decode()
        assert f"127.0.0.1:{port}" in banner, banner + proc.stderr.read().decode() if proc.poll() else banner
        serial = f"127.0.0.1:{port}"
        adb_srv.connect(serial)

        def adb(*args: str) -> bytes:
            return adb_srv.run("-s", serial, *args).stdout

        png = Image.open(io.BytesIO(adb("exec-out", "screencap", "-p")))
        assert png.format == "PNG" and png.size == (1080, 2400)
        adb("shell", "uiautomator", "dump")
        xml = adb("shell", "cat", "/sdcard/window_dump.xml").decode()
        m = re.search(r'content-desc="Contacts"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', xml)
        assert m
        x1, y1, x2, y2 = map(int, m.groups())
        adb("shell", "input", "tap", str((x1 + x2) // 2), str((y1 + y2) // 2))
        assert b"com.guilens.contacts/" in adb("shell", "dumpsys", "window")
        assert adb("shell", "date", "+%Y-%m-%d").startswith(b"2026-05-04")

        env = dict(os.environ, ANDROID_ADB_SERVER_PORT=str(adb_srv.port))
        env.pop("ADB_SERVER_SOCKET", None)
        listing = subprocess.run(
            [sys.executable, "-m", "guilens", "devices"], capture_output=True, env=env, timeout=60
        ).stdout.decode()
        assert f"adb:{serial}" in listing and "guilens_sim" in listing

        dev = open_device(f"adb:{serial}", port=adb_srv.port)
        dev.observe()
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        time.sleep(0.2)
        with pytest.raises(DeviceDisconnected):
            dev.observe()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        adb_srv.run("disconnect", f"127.0.0.1:{port}", check=False)


def test_serve_adb_rejects_a_bad_setup_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("- not\n- a mapping\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "guilens", "sim", "serve-adb", "--port", str(free_port()), "--setup", str(bad)],
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert f"setup file {bad} must hold a mapping" in proc.stderr.decode()
    assert b"Traceback" not in proc.stderr


def test_bind_advice_warns_off_loopback_and_never_suggests_a_wildcard() -> None:
    from guilens.commands.devices import bind_advice

    for host in ("127.0.0.1", "localhost", "::1"):
        warning, hint = bind_advice(host, 5599)
        assert warning is None and "adb connect" in hint
    for host in ("0.0.0.0", "::"):
        warning, hint = bind_advice(host, 5599)
        assert warning is not None and "no authentication" in warning and "\n" not in warning
        assert "0.0.0.0:" not in hint and "[::]:" not in hint
        assert re.search(r"adb connect (127\.0\.0\.1|\[::1\]):5599", hint)
    warning, hint = bind_advice("192.0.2.7", 5599)
    assert warning is not None and "adb connect 192.0.2.7:5599" in hint


def test_serve_adb_on_all_interfaces_warns_once_and_points_at_a_real_address(adb_srv: AdbServer) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "guilens", "sim", "serve-adb", "--host", "0.0.0.0", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        banner = proc.stdout.readline().decode()
        assert f"0.0.0.0:{port}" in banner, banner
        warning = proc.stderr.readline().decode()
        assert warning.startswith("warning: listening on 0.0.0.0") and "no authentication" in warning
        hint = proc.stdout.readline().decode()
        assert f"adb connect 127.0.0.1:{port}" in hint and "adb connect 0.0.0.0" not in hint
        adb_srv.connect(f"127.0.0.1:{port}")  # the address it suggests works
        assert adb_srv.run("-s", f"127.0.0.1:{port}", "shell", "echo", "hi").stdout == b"hi\n"
    finally:
        proc.kill()
        proc.wait(10)
        adb_srv.run("disconnect", f"127.0.0.1:{port}", check=False)
