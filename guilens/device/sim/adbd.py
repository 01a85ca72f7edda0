"""The simulated phone speaking the device side of the ADB protocol.

The real `adb` server connects to it like to any TCP device (`adb connect
127.0.0.1:5599`), and so can a host library that speaks the protocol itself
(adb-shell's `AdbDeviceTcp`), so adbutils, the adb CLI and any adb-based agent
or tool can drive the sim without knowing it is one. That is also how the
tests exercise `AdbDevice` end to end without a phone.

The packets, streams and flow control are in adbd_transport.py; this module
is the phone behind them:
- `shell:` is the v1 protocol (stdout and stderr merged, no exit code),
  `shell,v2,...:` frames output as stdout/stderr/exit packets, `exec:` is a raw
  byte stream (what `adb exec-out` uses, so a PNG arrives untouched),
  `framebuffer:` is the raw-image header plus RGBA pixels, `sync:` is files;
- the commands run in `SimShell` (adbd_shell.py), which maps them onto
  `SimDevice.act(...)`. Every call into the device goes through one worker
  thread, so any number of streams and transports can share one phone;
- each command line runs on a thread of its own, not in a fixed pool: on a
  phone every `adb shell` is its own process, and with a pool eight streams
  running `sleep 25` would hold every worker and stall everyone else. The
  number of threads is bounded by the streams a transport may open.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from guilens.device.sim.adbd_services import (
    Run,
    parse_shell_service,
    serve_exec,
    serve_framebuffer,
    serve_interactive,
    serve_shell,
    serve_sync,
)
from guilens.device.sim.adbd_shell import ShellResult, SimShell
from guilens.device.sim.adbd_transport import Handler, Stream, Transport

T = TypeVar("T")

DEFAULT_PORT = 5599
BANNER = (
    "device::ro.product.name=guilens_sim;ro.product.model=guilens_sim;"
    "ro.product.device=guilens_sim;features=shell_v2,cmd"
)


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
        self.shell = SimShell(device, self.call, adb_keyboard=adb_keyboard, bridge=self)
        self._server: asyncio.AbstractServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._transports: dict[Transport, asyncio.Task[None]] = {}
        self._stopped: asyncio.Event | None = None

    # -- device access ---------------------------------------------------------------------------

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(*args)` on the one thread that owns the device, and wait for it."""
        return self._device_thread.submit(fn, *args).result()

    async def in_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a blocking `fn(*args)` on a thread of its own and await it (see the module docstring)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def settle(ok: bool, value: Any) -> None:
            if not future.done():
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)

        def work() -> None:
            try:
                outcome: tuple[bool, Any] = (True, fn(*args))
            except BaseException as err:  # handed to the awaiting service
                outcome = (False, err)
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody is waiting any more
                loop.call_soon_threadsafe(settle, *outcome)

        threading.Thread(target=work, name="sim-shell", daemon=True).start()
        return await future

    def _runner(self, stream: Stream) -> Run:
        """How a service on `stream` runs a command line: off the event loop, stopped if the stream closes."""

        async def run(command: str) -> ShellResult:
            return await self.in_thread(self.shell.run, command, b"", stream.cancelled)

        return run

    async def _framebuffer(self) -> tuple[int, int, bytes]:
        return await self.in_thread(self.shell.phone.framebuffer)

    # -- services --------------------------------------------------------------------------------

    def service_for(self, service: str) -> Handler | None:
        shell = parse_shell_service(service)
        if shell is not None:
            v2, pty, command = shell
            if not command:
                return lambda s: serve_interactive(s, self._runner(s), v2=v2, pty=pty)
            return lambda s: serve_shell(s, self._runner(s), command, v2=v2, pty=pty)
        if service.startswith("exec:"):
            return lambda s: serve_exec(s, self._runner(s), service[5:])
        if service.startswith("sync:"):
            return lambda s: serve_sync(s, self.shell.files)
        if service == "framebuffer:":
            return lambda s: serve_framebuffer(s, self._framebuffer)
        if service in ("root:", "unroot:"):
            return lambda s: s.write(b"adbd is already running as root\n")
        return None

    # -- lifecycle -------------------------------------------------------------------------------

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        transport = Transport(self, reader, writer)
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
        self._device_thread.shutdown(wait=False, cancel_futures=True)

    def __enter__(self) -> AdbBridge:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
