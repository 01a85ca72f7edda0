"""A hosted device replies first and encodes after (issue 14): the screen's PNG bytes follow the reply.

The run's step work (the agent, the checks, queueing the record) then overlaps
the child's encoding. These tests hold the child's encoder at a gate (a file
the test creates), so the order is certain rather than a race: the reply is
back while the PNG is not; the recorder still writes the bytes the child
encoded, byte for byte, and they decode to the sim's own pixels; a child
killed between its reply and its PNG is `DeviceLost` for whoever reads the
screen and for the next call, and leaves no screen file, whole or half.
"""

from __future__ import annotations

import io
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from guilens.actions import OpenApp
from guilens.device.base import DeviceLost
from guilens.device.hosted import HostedDevice
from guilens.device.process_host import ProcessHost
from guilens.device.sim import SimDevice
from guilens.encoded_screen import EncodedScreen, encoded_future
from guilens.episode import Recorder
from tests.test_recorder_memory import make_episode, make_step

_GATE_WAIT_S = 30.0


def gated_sim(gate: str) -> SimDevice:
    """A sim whose process encodes a screen only once the file `gate` exists (runs in the child)."""
    import guilens.png as png

    encode = png.FrameEncoder.encode

    def held(self: Any, img: Image.Image) -> bytes:
        deadline = time.monotonic() + _GATE_WAIT_S
        while not os.path.exists(gate) and time.monotonic() < deadline:
            time.sleep(0.005)
        return encode(self, img)

    png.FrameEncoder.encode = held  # type: ignore[method-assign]
    return SimDevice()


@pytest.fixture
def gate(tmp_path: Path) -> Path:
    return tmp_path / "gate"


@pytest.fixture
def device(gate: Path) -> Any:
    hosted = HostedDevice(ProcessHost(gated_sim, str(gate)), prefetch=True)
    yield hosted
    gate.touch()  # let a held child finish, so closing it is quick
    hosted.close()


def test_the_reply_comes_before_the_png_and_the_recorder_writes_the_bytes_that_follow(
        tmp_path: Path, gate: Path, device: HostedDevice) -> None:
    local = SimDevice()
    started = time.monotonic()
    assert device.act(OpenApp(app="notes")) == local.act(OpenApp(app="notes"))
    shot = device.observe().screenshot
    assert time.monotonic() - started < _GATE_WAIT_S / 2  # back while the child still holds the PNG
    late = encoded_future(shot)
    assert isinstance(shot, EncodedScreen) and late is not None and not late.done()
    assert (shot.mode, shot.size) == ("RGB", local.size)  # known before the bytes are
    rec = Recorder(tmp_path / "ep", make_episode())
    rec.record_step(make_step(0), shot)  # handed over at once: the step loop does not wait for the PNG
    assert not late.done()
    gate.touch()
    rec.finish("success", final_screen=shot)
    assert rec.fault is None
    written = (tmp_path / "ep" / "screens" / "0000.png").read_bytes()
    assert written == shot.encoded  # the child's bytes as they came, not encoded again here
    want = local.observe().screenshot.tobytes()
    assert Image.open(io.BytesIO(written)).convert("RGB").tobytes() == want
    assert shot.tobytes() == want  # a reader of the pixels gets them too (TUI, LLM agents)
    assert device.state() == local.state()
    assert device.act(OpenApp(app="clock")) == local.act(OpenApp(app="clock"))  # the pipe is in step
    assert device.observe().screenshot.tobytes() == local.observe().screenshot.tobytes()


def test_a_screen_shown_again_is_a_new_image_of_the_same_bytes(gate: Path, device: HostedDevice) -> None:
    first = device.observe().screenshot
    gate.touch()  # the next call reads the pending PNG off the pipe before it asks
    again = device.observe().screenshot  # unchanged: crosses as a mark
    assert again is not first and encoded_future(again) is encoded_future(first)
    assert again.tobytes() == first.tobytes() == SimDevice().observe().screenshot.tobytes()


def test_a_child_killed_between_its_reply_and_its_png_is_device_lost_and_leaves_no_file(
        tmp_path: Path, device: HostedDevice, capfd: pytest.CaptureFixture[str]) -> None:
    device.act(OpenApp(app="notes"))
    shot = device.observe().screenshot
    host = device.host
    assert isinstance(host, ProcessHost) and host.pid is not None
    rec = Recorder(tmp_path / "ep", make_episode())
    rec.record_step(make_step(0), shot)
    os.kill(host.pid, signal.SIGKILL)
    with pytest.raises(DeviceLost, match=rf"pid {host.pid}\) was killed by SIGKILL"):
        shot.encoded  # noqa: B018 - the reader learns why the bytes will never come
    with pytest.raises(DeviceLost):
        device.act(OpenApp(app="clock"))
    rec.close()
    assert isinstance(rec.fault, DeviceLost)
    assert not list((tmp_path / "ep").rglob("*.png")) and not list((tmp_path / "ep").rglob(".*.tmp"))
    assert "Traceback" not in "".join(capfd.readouterr())


def sim_whose_first_encoding_fails() -> SimDevice:
    """A sim whose process fails to encode its first screen (runs in the child)."""
    import guilens.png as png

    encode = png.FrameEncoder.encode
    calls: list[int] = []

    def flaky(self: Any, img: Image.Image) -> bytes:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("encoder broke")
        return encode(self, img)

    png.FrameEncoder.encode = flaky  # type: ignore[method-assign]
    return SimDevice()


def test_a_png_that_failed_after_its_reply_fails_its_readers_and_the_pipe_stays_in_step() -> None:
    device = HostedDevice(ProcessHost(sim_whose_first_encoding_fails), prefetch=True)
    try:
        broken = device.observe().screenshot
        with pytest.raises(RuntimeError, match="encoder broke"):
            broken.encoded  # noqa: B018
        assert device.act(OpenApp(app="notes")) == "opened Notes"
        local = SimDevice()
        local.act(OpenApp(app="notes"))
        assert device.observe().screenshot.tobytes() == local.observe().screenshot.tobytes()
        home = device.act(OpenApp(app="launcher"))
        assert home and device.observe().screenshot.tobytes() == SimDevice().observe().screenshot.tobytes()
    finally:
        device.close()


class LoggedPipe:
    """The parent's end of a host's pipe, noting the order of what it sends and reads."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.log: list[str] = []

    def send_bytes(self, data: bytes) -> None:
        self.log.append("send")
        self.conn.send_bytes(data)

    def recv(self) -> Any:
        got = self.conn.recv()
        self.log.append("png" if got[0] == "png" else "reply")
        return got

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


@pytest.mark.parametrize(("ahead_max", "order"), [
    (None, ["send", "png", "reply"]),  # an action: asked before the last screen's bytes are read
    (0, ["png", "send", "reply"]),  # too large to go first: the bytes are read off the pipe, then it goes
])
def test_a_small_request_goes_out_before_the_last_screens_bytes_are_read(
        monkeypatch: pytest.MonkeyPatch, ahead_max: int | None, order: list[str]) -> None:
    """The child reads the next request as soon as its PNG is out, without waiting for the run's thread to
    read that PNG first; a request that might not fit the pipe beside a large PNG goes after it."""
    import guilens.device.process_host as process_host

    if ahead_max is not None:
        monkeypatch.setattr(process_host, "_AHEAD_MAX", ahead_max)
    device = HostedDevice(ProcessHost(SimDevice), prefetch=True)
    try:
        local = SimDevice()
        device.observe()  # a screen whose bytes are still on the pipe behind its reply
        host = device.host
        assert isinstance(host, ProcessHost)
        pipe = LoggedPipe(host._conn)
        host._conn = pipe
        assert device.act(OpenApp(app="notes")) == local.act(OpenApp(app="notes"))
        assert pipe.log == order
        assert device.observe().screenshot.tobytes() == local.observe().screenshot.tobytes()
        assert device.state() == local.state()
    finally:
        device.close()
