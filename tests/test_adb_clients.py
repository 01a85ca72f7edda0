"""The bridge as ADB client libraries use a phone directly over TCP, with no adb server in between.

adb-shell (JeffLIrion's pure-Python host) speaks the device protocol itself:
it waits for the device to answer its CLSE after every transfer and checks
packet checksums (it negotiates the pre-checksum-skip version), so it catches
what the real adb server forgives. A raw client does what no library will: a
bad header, a WRTE out of turn, a close in the middle of a command.
"""

from __future__ import annotations

import io
import os
import socket
import struct
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from guilens.device.sim import SimDevice
from guilens.device.sim.adbd import AdbBridge

adb_device = pytest.importorskip("adb_shell.adb_device", reason="adb-shell is a dev dependency")
adb_exceptions = pytest.importorskip("adb_shell.exceptions")

CNXN, OPEN, OKAY, CLSE, WRTE = (int.from_bytes(c, "little") for c in (b"CNXN", b"OPEN", b"OKAY", b"CLSE", b"WRTE"))
HEADER = struct.Struct("<6I")


@pytest.fixture
def bridge() -> Iterator[AdbBridge]:
    b = AdbBridge(SimDevice(), port=0).start()
    try:
        yield b
    finally:
        b.stop()


@pytest.fixture
def phone(bridge: AdbBridge) -> Iterator[Any]:
    """adb-shell connected straight to the bridge; every wait is short, so a missing answer fails fast."""
    d = adb_device.AdbDeviceTcp("127.0.0.1", bridge.port, default_transport_timeout_s=5)
    assert d.connect(read_timeout_s=5)
    try:
        yield d
    finally:
        d.close()


class RawHost:
    """A bare ADB host on a socket: what a library would send, and what none would."""

    def __init__(self, port: int, maxdata: int = 256 * 1024) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.send(CNXN, 0x01000001, maxdata, b"host::raw\0")
        cmd, _, self.maxdata, banner = self.recv()
        assert cmd == CNXN and banner.startswith(b"device::")

    def send(self, cmd: int, arg0: int, arg1: int, data: bytes = b"") -> None:
        self.sock.sendall(HEADER.pack(cmd, arg0, arg1, len(data), 0, cmd ^ 0xFFFFFFFF) + data)

    def recv(self) -> tuple[int, int, int, bytes]:
        cmd, arg0, arg1, length, _crc, _magic = HEADER.unpack(self._exact(HEADER.size))
        return cmd, arg0, arg1, self._exact(length)

    def _exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise EOFError("the bridge closed the connection")
            buf += chunk
        return bytes(buf)

    def open(self, local_id: int, service: str) -> int:
        self.send(OPEN, local_id, 0, service.encode() + b"\0")
        cmd, remote, mine, _ = self.recv()
        assert (cmd, mine) == (OKAY, local_id)
        return remote

    def closed_by_peer(self, within: float = 3.0) -> bool:
        self.sock.settimeout(within)
        try:
            while self.sock.recv(65536):
                pass
        except TimeoutError:
            return False
        except ConnectionResetError:
            pass
        return True


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _sim_rgba(bridge: AdbBridge) -> bytes:
    return bridge.call(bridge.device.observe).screenshot.convert("RGBA").tobytes()  # type: ignore[no-any-return]


# -- adb-shell: the acceptance list ------------------------------------------------------------------


def test_connect_and_shell(phone: Any) -> None:
    assert phone.available
    assert phone.shell("echo hello; getprop ro.product.model") == "hello\nguilens_sim\n"
    assert phone.shell("wm size") == "Physical size: 1080x2400\n"


def test_push_stat_list_pull_round_trip(phone: Any, tmp_path: Path) -> None:
    payload = os.urandom(300 * 1024 + 7)  # several DATA chunks and several WRTEs
    local = tmp_path / "up.bin"
    local.write_bytes(payload)
    started = time.monotonic()
    phone.push(str(local), "/data/local/tmp/up.bin", mtime=1_700_000_000, read_timeout_s=5)
    mode, size, mtime = phone.stat("/data/local/tmp/up.bin", read_timeout_s=5)
    assert (mode & 0o170000, size, mtime) == (0o100000, len(payload), 1_700_000_000)
    names = {bytes(e.filename).decode(): e for e in phone.list("/data/local/tmp", read_timeout_s=5)}
    assert names["up.bin"].size == len(payload)
    down = tmp_path / "down.bin"
    phone.pull("/data/local/tmp/up.bin", str(down), read_timeout_s=5)
    assert down.read_bytes() == payload
    assert time.monotonic() - started < 5  # each transfer is answered, none waits out a timeout
    assert phone.stat("/sdcard/nothing-here", read_timeout_s=5) == (0, 0, 0)
    with pytest.raises(adb_exceptions.AdbCommandFailureException, match="does not exist"):
        phone.pull("/sdcard/nothing-here", str(tmp_path / "x"), read_timeout_s=5)
    assert phone.shell("echo after") == "after\n"  # the connection survived every close


def test_framebuffer_header_and_pixels(phone: Any, bridge: AdbBridge) -> None:
    raw = phone._service(b"framebuffer", b"", decode=False, read_timeout_s=10)  # no public call for it
    fields = struct.unpack_from("<13I", raw)
    version, bpp, size, width, height = fields[:5]
    assert (version, bpp, width, height) == (1, 32, 1080, 2400)
    # red, blue, green, alpha: offset and length in bits, RGBA_8888 in memory order
    assert fields[5:] == (0, 8, 16, 8, 8, 8, 24, 8)
    pixels = raw[52:]
    assert size == len(pixels) == width * height * 4
    assert pixels == _sim_rgba(bridge)
    assert phone.shell("echo still here") == "still here\n"  # asking for it did not kill the connection


def test_uiautomator_dump_through_cp_dump_cat(phone: Any) -> None:
    out = phone.shell("cp /dev/null /sdcard/ui.xml && uiautomator dump /sdcard/ui.xml && cat /sdcard/ui.xml")
    message, _, xml = out.partition("\n")
    assert message == "UI hierchary dumped to: /sdcard/ui.xml"
    root = ET.fromstring(xml)
    assert root.tag == "hierarchy" and root.find(".//node[@content-desc='Notes']") is not None


def test_screencap_png_matches_the_framebuffer(phone: Any, bridge: AdbBridge) -> None:
    png = phone.exec_out("screencap -p", decode=False)
    assert Image.open(io.BytesIO(png)).convert("RGBA").tobytes() == _sim_rgba(bridge)


# -- raw protocol: closes, bounds, faults ------------------------------------------------------------


def test_a_host_close_is_answered_and_stops_the_command(bridge: AdbBridge) -> None:
    host = RawHost(bridge.port)
    remote = host.open(7, "shell:sleep 30")
    time.sleep(0.2)
    sleepers = sum(t.name == "sim-shell" for t in threading.enumerate())
    assert sleepers >= 1
    started = time.monotonic()
    host.send(CLSE, 7, remote)
    assert host.recv()[:3] == (CLSE, remote, 7)
    assert time.monotonic() - started < 1
    deadline = time.monotonic() + 3
    while sum(t.name == "sim-shell" for t in threading.enumerate()) >= sleepers and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sum(t.name == "sim-shell" for t in threading.enumerate()) < sleepers  # the sleep was cut short
    assert host.open(8, "shell:echo ok")  # the transport lives on


def test_a_huge_length_field_closes_the_connection_without_buffering(
    bridge: AdbBridge, caplog: pytest.LogCaptureFixture
) -> None:
    before = _rss_kb()
    host = RawHost(bridge.port)
    assert host.maxdata == 256 * 1024  # the negotiated size: min(the host's, the bridge's 1 MiB)
    host.sock.sendall(HEADER.pack(WRTE, 1, 1, 200 * 1024 * 1024, 0, WRTE ^ 0xFFFFFFFF))
    with pytest.raises(OSError):  # the bridge hangs up while we are still sending the "payload"
        for _ in range(200):
            host.sock.sendall(b"\0" * 1024 * 1024)
            time.sleep(0.005)
    assert host.closed_by_peer()
    assert _rss_kb() - before < 50 * 1024
    assert any("209715200-byte payload" in r.getMessage() for r in caplog.records)
    assert RawHost(bridge.port).open(1, "shell:echo ok")  # other hosts are unaffected


def test_a_second_write_before_the_okay_is_a_protocol_error(bridge: AdbBridge) -> None:
    host = RawHost(bridge.port)
    remote = host.open(3, "shell:sleep 5")  # a service that never reads its input
    host.send(WRTE, 3, remote, b"x" * 200 * 1024)
    assert host.recv()[:3] == (OKAY, remote, 3)  # under the inbox limit: acknowledged at once
    host.send(WRTE, 3, remote, b"x" * 200 * 1024)  # over it now: the OKAY is held back...
    host.sock.settimeout(0.5)
    with pytest.raises(TimeoutError):
        host.recv()
    host.send(WRTE, 3, remote, b"x")  # ...and a host that does not wait for it is cut off
    assert host.closed_by_peer()


def test_a_bad_magic_closes_the_connection(bridge: AdbBridge) -> None:
    host = RawHost(bridge.port)
    host.sock.sendall(HEADER.pack(OPEN, 1, 0, 0, 0, 0))
    assert host.closed_by_peer()
