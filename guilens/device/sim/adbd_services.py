"""What the simulated phone does on each ADB service a host opens: shell, exec, sync, framebuffer.

A service talks to one stream: it reads what the host wrote and writes back
bytes; the transport (adbd_transport.py) does the packets and flow control.
`run` runs a command line on the phone's shell and returns a `ShellResult`.
What a host sends is bounded here too: an interactive line, a v2 stdin packet
and a sync request each have a ceiling, past which the stream ends with an
error instead of buffering without limit.
"""

from __future__ import annotations

import struct
from collections.abc import Awaitable, Callable
from typing import Protocol

from guilens.device.sim.adbd_shell import ShellResult
from guilens.device.sim.adbd_sync import SyncSession, VirtualFiles

# shell protocol v2 packet ids (adb's shell_protocol.h)
SH_STDIN, SH_STDOUT, SH_STDERR, SH_EXIT, SH_CLOSE_STDIN, SH_WINSIZE = range(6)
PROMPT = b"guilens_sim:/ # "
MAX_LINE = 64 * 1024  # an interactive command line; a terminal's is 4 KiB
MAX_V2_PACKET = 1024 * 1024  # a shell-v2 packet from the host (adb sends at most its payload size)
# The raw-image header adbd's framebuffer service sends (version 1: no colour-space field), then the
# pixels: version, bpp, size, width, height, then offset/length of red, blue, green and alpha.
FB_HEADER = struct.Struct("<13I")

Run = Callable[[str], Awaitable[ShellResult]]


class Stream(Protocol):
    async def write(self, data: bytes) -> None: ...

    async def read(self) -> bytes | None: ...


def v2_packet(kind: int, data: bytes) -> bytes:
    return struct.pack("<BI", kind, len(data)) + data


def parse_shell_service(service: str) -> tuple[bool, bool, str] | None:
    """`shell:CMD` / `shell,v2,TERM=x,raw:CMD` → (v2, pty, command); None for other services.

    As on adbd, a command runs without a terminal unless `pty` is asked for, and
    an interactive shell gets one unless `raw` is asked for.
    """
    head, sep, command = service.partition(":")
    if not sep or not (head == "shell" or head.startswith("shell,")):
        return None
    args = head.split(",")[1:]
    pty = "pty" in args or ("raw" not in args and not command)
    return "v2" in args, pty, command


async def serve_shell(stream: Stream, run: Run, command: str, *, v2: bool, pty: bool) -> None:
    result = await run(command)
    if not v2:
        await stream.write(result.stdout + result.stderr)
        return
    out, err = result.stdout, result.stderr
    if pty:  # a terminal turns \n into \r\n and shows stderr in the same stream
        out, err = (out + err).replace(b"\n", b"\r\n"), b""
    if out:
        await stream.write(v2_packet(SH_STDOUT, out))
    if err:
        await stream.write(v2_packet(SH_STDERR, err))
    await stream.write(v2_packet(SH_EXIT, bytes([result.code & 0xFF])))


async def serve_exec(stream: Stream, run: Run, command: str) -> None:
    result = await run(command)
    if result.stdout:
        await stream.write(result.stdout)
    if result.stderr:
        await stream.write(result.stderr)


class InputTooLarge(ValueError):
    """The host sent more than a service buffers; the stream ends with this message."""


class _StdinDecoder:
    """The host's keystrokes: raw bytes (v1) or stdin/close-stdin packets (v2). Close-stdin reads as EOF."""

    def __init__(self, v2: bool) -> None:
        self.v2 = v2
        self.pending = b""
        self.eof = False

    def feed(self, chunk: bytes) -> bytes:
        if not self.v2:
            return chunk
        self.pending += chunk
        data = bytearray()
        while len(self.pending) >= 5:
            kind, length = struct.unpack("<BI", self.pending[:5])
            if length > MAX_V2_PACKET:
                raise InputTooLarge(f"shell protocol packet of {length} bytes (the limit is {MAX_V2_PACKET})")
            if len(self.pending) < 5 + length:
                break
            if kind == SH_STDIN:
                data += self.pending[5 : 5 + length]
            elif kind == SH_CLOSE_STDIN:
                self.eof = True
            self.pending = self.pending[5 + length :]
        return bytes(data)


async def serve_interactive(stream: Stream, run: Run, *, v2: bool, pty: bool) -> None:
    """`adb shell` with no command. With a pty: a prompt, echo and a line editor; without: run lines from stdin."""

    async def out(data: bytes) -> None:
        if data:
            await stream.write(v2_packet(SH_STDOUT, data) if v2 else data)

    async def finish(code: int) -> None:
        if v2:
            await stream.write(v2_packet(SH_EXIT, bytes([code & 0xFF])))

    async def execute(text: str) -> ShellResult:
        result = await run(text)
        shown = result.stdout + result.stderr
        await out(shown.replace(b"\n", b"\r\n") if pty else shown)
        return result

    if pty:
        await out(PROMPT)
    decoder = _StdinDecoder(v2)
    line = bytearray()
    code = 0
    while True:
        chunk = await stream.read()
        if chunk is None:
            return
        try:
            typed = decoder.feed(chunk)
        except InputTooLarge as err:
            await out(f"/system/bin/sh: {err}\n".encode())
            await finish(1)
            return
        for byte in typed:
            ch = bytes([byte])
            if ch in (b"\r", b"\n"):
                if pty:
                    await out(b"\r\n")
                text = line.decode("utf-8", "replace").strip()
                line.clear()
                if text:
                    result = await execute(text)
                    code = result.code
                    if result.exited:
                        await finish(code)
                        return
                if pty:
                    await out(PROMPT)
            elif pty and ch == b"\x04" and not line:  # Ctrl-D on an empty line
                await out(b"\r\n")
                await finish(code)
                return
            elif pty and ch == b"\x03":  # Ctrl-C
                line.clear()
                await out(b"^C\r\n" + PROMPT)
            elif pty and ch in (b"\x7f", b"\x08"):
                if line:
                    line.pop()
                    await out(b"\x08 \x08")
            elif byte >= 0x20 or byte == 0x09:
                if len(line) >= MAX_LINE:
                    await out(f"\r\n/system/bin/sh: line too long (over {MAX_LINE} bytes)\r\n".encode())
                    await finish(2)
                    return
                line += ch
                if pty:
                    await out(ch)
        if decoder.eof:
            text = line.decode("utf-8", "replace").strip()
            if text:
                code = (await execute(text)).code
            await finish(code)
            return


async def serve_sync(stream: Stream, files: VirtualFiles) -> None:
    session = SyncSession(files)
    while True:
        chunk = await stream.read()
        if chunk is None:
            return
        replies, done = session.feed(chunk)
        for reply in replies:
            await stream.write(reply)
        if done:
            return


async def serve_framebuffer(stream: Stream, grab: Callable[[], Awaitable[tuple[int, int, bytes]]]) -> None:
    """`framebuffer:`: what ddmlib, adbkit and `adb screencap`-less tools read, RGBA_8888 as on a phone.

    The host may write a byte after the header (ddmlib's old "nudge"); nothing waits for it.
    """
    width, height, pixels = await grab()
    header = FB_HEADER.pack(1, 32, len(pixels), width, height, 0, 8, 16, 8, 8, 8, 24, 8)
    await stream.write(header)
    await stream.write(pixels)
