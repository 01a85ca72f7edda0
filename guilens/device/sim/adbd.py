"""The simulated phone speaking the device side of the ADB protocol.

The real `adb` server connects to it like to any TCP device (`adb connect
127.0.0.1:5599`), so adbutils, the adb CLI and any adb-based agent or tool can
drive the sim without knowing it is one. That is also how the tests exercise
`AdbDevice` end to end without a phone.

What the host expects, and why this is shaped the way it is:
- no AUTH: a device that answers CNXN with CNXN is trusted straight away
  (`unauthorized=True` instead challenges forever, like a phone whose
  USB-debugging prompt nobody answered);
- flow control is one WRTE in flight per stream: after a WRTE we wait for the
  host's OKAY before the next one, and never send more than the negotiated
  max payload in one WRTE (the host drops the transport otherwise);
- `shell:` is the v1 protocol (stdout and stderr merged, no exit code),
  `shell,v2,...:` frames output as stdout/stderr/exit packets, `exec:` is a raw
  byte stream (what `adb exec-out` uses, so a PNG arrives untouched);
- the commands themselves run in `SimShell` (adbd_shell.py), which maps them
  onto `SimDevice.act(...)`. Every call into the device goes through one
  worker thread, so any number of streams and transports can share one phone.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import struct
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from guilens.device.sim.adbd_services import (
    parse_shell_service,
    serve_exec,
    serve_interactive,
    serve_shell,
    serve_sync,
)
from guilens.device.sim.adbd_shell import ShellResult, SimShell

log = logging.getLogger(__name__)

A_CNXN = 0x4E584E43
A_AUTH = 0x48545541
A_OPEN = 0x4E45504F
A_OKAY = 0x59414B4F
A_CLSE = 0x45534C43
A_WRTE = 0x45545257
A_STLS = 0x534C5453
A_VERSION_MIN = 0x01000000
A_VERSION_SKIP_CHECKSUM = 0x01000001
MAX_PAYLOAD = 1024 * 1024
AUTH_TOKEN, AUTH_SIGNATURE, AUTH_RSAPUBLICKEY = 1, 2, 3
_HEADER = struct.Struct("<6I")

DEFAULT_PORT = 5599
BANNER = (
    "device::ro.product.name=guilens_sim;ro.product.model=guilens_sim;"
    "ro.product.device=guilens_sim;features=shell_v2,cmd"
)


class StreamClosed(Exception):
    """The host closed the stream (or the transport) while we were writing to it."""


@dataclass
class _Packet:
    cmd: int
    arg0: int
    arg1: int
    data: bytes


class _Stream:
    """One OPENed service on one transport: our side of a host socket."""

    def __init__(self, conn: _Transport, local_id: int, remote_id: int) -> None:
        self.conn = conn
        self.local_id = local_id
        self.remote_id = remote_id
        self.closed = False
        self._credit = asyncio.Event()
        self._credit.set()  # after our OKAY to the OPEN, the first WRTE may go at once
        self._inbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    async def write(self, data: bytes | memoryview) -> None:
        view = memoryview(data)
        step = self.conn.max_payload
        for start in range(0, len(view), step):
            await self._credit.wait()
            if self.closed:
                raise StreamClosed
            self._credit.clear()
            await self.conn.send(A_WRTE, self.local_id, self.remote_id, view[start : start + step])

    async def read(self) -> bytes | None:
        """Next chunk the host wrote, or None once the stream is closed."""
        if self.closed and self._inbox.empty():
            return None
        return await self._inbox.get()

    def on_okay(self) -> None:
        self._credit.set()

    def on_write(self, data: bytes) -> None:
        self._inbox.put_nowait(data)

    def on_close(self) -> None:
        self.closed = True
        self._credit.set()
        self._inbox.put_nowait(None)

    async def close(self) -> None:
        """Close from our side, once the host has taken the last write."""
        if self.closed:
            return
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._credit.wait(), timeout=10)
        if self.closed:
            return
        self.closed = True
        await self.conn.send(A_CLSE, self.local_id, self.remote_id, b"")


class _Transport:
    """One TCP connection from an adb server: CNXN, then multiplexed streams."""

    def __init__(self, bridge: AdbBridge, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.bridge = bridge
        self.reader = reader
        self.writer = writer
        self.max_payload = 4096
        self.version = A_VERSION_SKIP_CHECKSUM
        self.streams: dict[int, _Stream] = {}
        self._next_id = 1
        self._send_lock = asyncio.Lock()

    async def send(self, cmd: int, arg0: int, arg1: int, data: bytes | memoryview) -> None:
        checksum = 0 if self.version >= A_VERSION_SKIP_CHECKSUM else sum(bytes(data)) & 0xFFFFFFFF
        header = _HEADER.pack(cmd, arg0, arg1, len(data), checksum, cmd ^ 0xFFFFFFFF)
        async with self._send_lock:
            self.writer.write(header)
            if len(data):
                self.writer.write(data)
            await self.writer.drain()

    async def recv(self) -> _Packet:
        head = await self.reader.readexactly(_HEADER.size)
        cmd, arg0, arg1, length, _crc, magic = _HEADER.unpack(head)
        if magic != cmd ^ 0xFFFFFFFF:
            raise ConnectionError(f"bad ADB packet magic {magic:#x} for command {cmd:#x}")
        data = await self.reader.readexactly(length) if length else b""
        return _Packet(cmd, arg0, arg1, data)

    async def run(self) -> None:
        try:
            while True:
                pkt = await self.recv()
                await self._handle(pkt)
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            pass
        finally:
            for stream in list(self.streams.values()):
                stream.on_close()
                if stream.task is not None:
                    stream.task.cancel()
            self.streams.clear()
            with contextlib.suppress(Exception):
                self.writer.close()

    async def _handle(self, pkt: _Packet) -> None:
        if pkt.cmd in (A_CNXN, A_AUTH) and self.bridge.unauthorized:
            # Challenge forever and never accept: the host lists us as `unauthorized`, as a phone
            # whose USB-debugging prompt nobody answered.
            if pkt.cmd == A_CNXN or pkt.arg0 == AUTH_SIGNATURE:
                await self.send(A_AUTH, AUTH_TOKEN, 0, os.urandom(20))
            return
        if pkt.cmd == A_CNXN:
            self.version = max(A_VERSION_MIN, min(pkt.arg0, A_VERSION_SKIP_CHECKSUM))
            self.max_payload = max(4096, min(pkt.arg1 or 4096, MAX_PAYLOAD))
            for stream in list(self.streams.values()):
                stream.on_close()
            self.streams.clear()
            await self.send(A_CNXN, self.version, MAX_PAYLOAD, self.bridge.banner.encode() + b"\0")
        elif pkt.cmd == A_OPEN:
            service = pkt.data.rstrip(b"\0").decode("utf-8", "replace")
            handler = self.bridge.service_for(service)
            if handler is None:
                log.debug("refusing service %r", service)
                await self.send(A_CLSE, 0, pkt.arg0, b"")
                return
            local_id = self._next_id
            self._next_id += 1
            stream = _Stream(self, local_id, pkt.arg0)
            self.streams[local_id] = stream
            await self.send(A_OKAY, local_id, pkt.arg0, b"")
            stream.task = asyncio.create_task(self._serve(stream, handler))
        elif pkt.cmd == A_OKAY:
            stream = self.streams.get(pkt.arg1)
            if stream is not None and stream.remote_id == pkt.arg0:
                stream.on_okay()
        elif pkt.cmd == A_WRTE:
            stream = self.streams.get(pkt.arg1)
            if stream is None or stream.closed:
                return
            stream.on_write(pkt.data)
            await self.send(A_OKAY, stream.local_id, stream.remote_id, b"")
        elif pkt.cmd == A_CLSE:
            stream = self.streams.pop(pkt.arg1, None)
            if stream is not None:
                stream.on_close()
        # Nothing else arrives: AUTH only answers our challenges, STLS only follows our own STLS.

    async def _serve(self, stream: _Stream, handler: Callable[[_Stream], Awaitable[None]]) -> None:
        try:
            await handler(stream)
            await stream.close()
        except (StreamClosed, asyncio.CancelledError, ConnectionError, OSError):
            pass
        except Exception:  # a bug in a command must not take the transport down
            log.exception("service failed on the simulated phone")
            with contextlib.suppress(Exception):
                await stream.close()
        finally:
            self.streams.pop(stream.local_id, None)


class AdbBridge:
    """Serves one `Device` (normally a `SimDevice`) as an ADB device on a TCP port.

    `start()` runs it on a background thread (tests, benchmarks, embedding);
    `serve_forever()` runs it on the caller's event loop (`guilens sim serve-adb`).
    `screencap_override`, when set to PNG bytes, is what `screencap -p` returns:
    a debug hook so the benchmark can push a chosen image through the real stack.
    `unauthorized` makes it a phone whose USB-debugging prompt was never accepted.
    """

    def __init__(
        self,
        device: Any,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        *,
        banner: str = BANNER,
        adb_keyboard: bool = True,
        unauthorized: bool = False,
    ) -> None:
        self.device = device
        self.unauthorized = unauthorized
        self.host = host
        self.port = port
        self.banner = banner
        self.screencap_override: bytes | None = None
        self._device_thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="sim-device")
        self._command_pool = concurrent.futures.ThreadPoolExecutor(8, thread_name_prefix="sim-shell")
        self.shell = SimShell(device, self.call, adb_keyboard=adb_keyboard, bridge=self)
        self._server: asyncio.AbstractServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._transports: dict[_Transport, asyncio.Task[None]] = {}
        self._stopped: asyncio.Event | None = None

    # -- device access ---------------------------------------------------------------------------

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run `fn(*args)` on the one thread that owns the device, and wait for it."""
        return self._device_thread.submit(fn, *args).result()

    async def _run_command(self, command: str, stdin: bytes = b"") -> ShellResult:
        """Run a command line off the event loop (it may sleep, or wait for the device thread)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._command_pool, self.shell.run, command, stdin)

    # -- services --------------------------------------------------------------------------------

    def service_for(self, service: str) -> Callable[[_Stream], Awaitable[None]] | None:
        run = self._run_command
        shell = parse_shell_service(service)
        if shell is not None:
            v2, pty, command = shell
            if not command:
                return lambda s: serve_interactive(s, run, v2=v2, pty=pty)
            return lambda s: serve_shell(s, run, command, v2=v2, pty=pty)
        if service.startswith("exec:"):
            return lambda s: serve_exec(s, run, service[5:])
        if service.startswith("sync:"):
            return lambda s: serve_sync(s, self.shell.files)
        if service in ("root:", "unroot:"):
            return lambda s: s.write(b"adbd is already running as root\n")
        return None

    # -- lifecycle -------------------------------------------------------------------------------

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        transport = _Transport(self, reader, writer)
        self._transports[transport] = task
        try:
            await transport.run()
        finally:
            self._transports.pop(transport, None)

    async def listen(self) -> None:
        """Bind the port; `self.port` is the real one afterwards (useful with port 0)."""
        self._loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        self._server = await asyncio.start_server(self._accept, self.host, self.port, reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]

    async def serve_forever(self) -> None:
        if self._server is None:
            await self.listen()
        assert self._stopped is not None
        try:
            await self._stopped.wait()
        finally:
            await self._shutdown()

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        # Abort the sockets rather than cancel the tasks: the host sees the phone vanish at once,
        # and each transport ends through its normal path.
        for transport in list(self._transports):
            transport.writer.transport.abort()
        if self._transports:
            await asyncio.wait(list(self._transports.values()), timeout=5)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    def start(self) -> AdbBridge:
        """Serve on a background thread; returns once the port is bound."""
        ready = threading.Event()
        failure: list[BaseException] = []

        def main() -> None:
            async def body() -> None:
                try:
                    await self.listen()
                except BaseException as err:
                    failure.append(err)
                    ready.set()
                    return
                ready.set()
                await self.serve_forever()

            asyncio.run(body())

        self._thread = threading.Thread(target=main, name=f"adb-bridge-{self.port}", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        """Close the port and every transport: to the adb server, the phone has gone away."""
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopped.set)
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None
        self._command_pool.shutdown(wait=False, cancel_futures=True)
        self._device_thread.shutdown(wait=False, cancel_futures=True)

    def __enter__(self) -> AdbBridge:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
