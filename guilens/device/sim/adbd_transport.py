"""One ADB transport (a TCP connection from a host) on the simulated phone: packets, streams, flow control.

Written by hand because no maintained Python library implements the *device*
side of the ADB protocol (adb-shell, adbutils and pure-python-adb are hosts).
What a host relies on, and how each is kept here:

- no AUTH: a device that answers CNXN with CNXN is trusted at once
  (`unauthorized` hosts are challenged forever instead);
- the CNXN reply carries the negotiated maximum payload, min(host's, 1 MiB),
  as adbd's does: hosts such as adb-shell size their writes by it;
- one WRTE in flight per stream, both ways. We wait for the host's OKAY before
  the next WRTE. The host's WRTEs are queued for the service and OKAYed at
  once while the queue is small; past `INBOX_SOFT_LIMIT` the OKAY is held
  until the service has read, so a host can never queue more than that plus
  one payload, and a second WRTE before our OKAY is a protocol error;
- a CLSE from the host is answered with a CLSE, unless we had closed first
  (then theirs is the answer to ours). Hosts that speak the protocol
  directly (adb-shell) wait for that answer after every file transfer;
- a header whose payload length exceeds the negotiated maximum, or whose magic
  is wrong, closes the connection with one logged line, before a byte of the
  payload is buffered;
- at most `MAX_STREAMS` open streams per transport; further OPENs are refused;
- TCP ACKs go out at once (see `Transport._ack_now`), or a host that does not
  disable Nagle waits 40 ms on every request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import struct
import threading
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

log = logging.getLogger("guilens.device.sim.adbd")

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
MIN_PAYLOAD = 4096
AUTH_TOKEN, AUTH_SIGNATURE, AUTH_RSAPUBLICKEY = 1, 2, 3
_HEADER = struct.Struct("<6I")
INBOX_SOFT_LIMIT = 256 * 1024
MAX_STREAMS = 256
_QUICKACK: int | None = getattr(socket, "TCP_QUICKACK", None)


class StreamClosed(Exception):
    """The host closed the stream (or the transport) while we were writing to it."""


class ProtocolError(ConnectionError):
    """The host broke the protocol; the transport is closed with this message logged."""


Handler = Callable[["Stream"], Awaitable[None]]


class Host(Protocol):
    """What a transport needs from the bridge that accepted it."""

    unauthorized: bool
    banner: str

    def service_for(self, service: str) -> Handler | None: ...


@dataclass
class Packet:
    cmd: int
    arg0: int
    arg1: int
    data: bytes


class Stream:
    """One OPENed service on one transport: our side of a host socket.

    `cancelled` is set when the stream closes, so a command still running for
    it in a thread (a `sleep`, say) can stop early.
    """

    def __init__(self, conn: Transport, local_id: int, remote_id: int) -> None:
        self.conn = conn
        self.local_id = local_id
        self.remote_id = remote_id
        self.closed = False
        self.cancelled = threading.Event()
        self._credit = asyncio.Event()
        self._credit.set()  # after our OKAY to the OPEN, the first WRTE may go at once
        self._inbox: deque[bytes] = deque()
        self._queued = 0
        self._okay_owed = False
        self._arrived = asyncio.Event()
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
        """Next chunk the host wrote, or None once the stream is closed and drained."""
        while not self._inbox:
            if self.closed:
                return None
            self._arrived.clear()
            await self._arrived.wait()
        data = self._inbox.popleft()
        self._queued -= len(data)
        if self._okay_owed and self._queued <= INBOX_SOFT_LIMIT and not self.closed:
            self._okay_owed = False
            await self.conn.send(A_OKAY, self.local_id, self.remote_id, b"")
        return data

    def on_okay(self) -> None:
        self._credit.set()

    def on_write(self, data: bytes) -> bool:
        """Queue what the host wrote; True when it may be OKAYed now (else `read` will)."""
        if self._okay_owed:
            raise ProtocolError(
                f"stream {self.local_id}: the host sent a WRTE before the OKAY for its previous one"
            )
        self._inbox.append(data)
        self._queued += len(data)
        self._arrived.set()
        if self._queued > INBOX_SOFT_LIMIT:
            self._okay_owed = True
            return False
        return True

    def on_close(self) -> None:
        self.closed = True
        self.cancelled.set()
        self._credit.set()
        self._arrived.set()

    async def close(self) -> None:
        """Close from our side, once the host has taken the last write."""
        if self.closed:
            return
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._credit.wait(), timeout=10)
        if self.closed:
            return
        self.closed = True
        self.cancelled.set()
        await self.conn.send(A_CLSE, self.local_id, self.remote_id, b"")


class Transport:
    """One TCP connection from a host: CNXN, then multiplexed streams."""

    def __init__(self, host: Host, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.host = host
        self.reader = reader
        self.writer = writer
        self.max_payload = MAX_PAYLOAD  # what we accept before CNXN: the CNXN itself is small
        self.version = A_VERSION_SKIP_CHECKSUM
        self.streams: dict[int, Stream] = {}
        self._next_id = 1
        self._send_lock = asyncio.Lock()
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) and len(peer) >= 2 else "a host"

    def _ack_now(self) -> None:
        """Acknowledge at the TCP level at once (Linux), rather than after the 40 ms delayed-ACK timer.

        Hosts that write a header and its payload in two sends without TCP_NODELAY (adb-shell does)
        hold the payload back until the header is ACKed (Nagle); with delayed ACKs every request would
        cost 40 ms. The kernel clears the flag by itself, so it is set again for each packet.
        """
        sock = self.writer.get_extra_info("socket")
        if sock is not None and _QUICKACK is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)

    async def send(self, cmd: int, arg0: int, arg1: int, data: bytes | memoryview) -> None:
        checksum = 0 if self.version >= A_VERSION_SKIP_CHECKSUM else sum(bytes(data)) & 0xFFFFFFFF
        header = _HEADER.pack(cmd, arg0, arg1, len(data), checksum, cmd ^ 0xFFFFFFFF)
        async with self._send_lock:
            self.writer.write(header)
            if len(data):
                self.writer.write(data)
            await self.writer.drain()

    async def recv(self) -> Packet:
        head = await self.reader.readexactly(_HEADER.size)
        self._ack_now()
        cmd, arg0, arg1, length, _crc, magic = _HEADER.unpack(head)
        if magic != cmd ^ 0xFFFFFFFF:
            raise ProtocolError(f"bad packet magic {magic:#010x} for command {cmd:#010x}")
        if length > self.max_payload:
            raise ProtocolError(
                f"packet {_name(cmd)} declares a {length}-byte payload, over the negotiated maximum "
                f"of {self.max_payload}"
            )
        data = await self.reader.readexactly(length) if length else b""
        return Packet(cmd, arg0, arg1, data)

    async def run(self) -> None:
        try:
            while True:
                pkt = await self.recv()
                await self._handle(pkt)
        except ProtocolError as err:
            log.warning("adb bridge: closing the connection from %s: %s", self.peer, err)
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

    async def _handle(self, pkt: Packet) -> None:
        if pkt.cmd in (A_CNXN, A_AUTH) and self.host.unauthorized:
            # Challenge forever and never accept: the host lists us as `unauthorized`, as a phone
            # whose USB-debugging prompt nobody answered.
            if pkt.cmd == A_CNXN or pkt.arg0 == AUTH_SIGNATURE:
                await self.send(A_AUTH, AUTH_TOKEN, 0, os.urandom(20))
            return
        if pkt.cmd == A_CNXN:
            self.version = max(A_VERSION_MIN, min(pkt.arg0, A_VERSION_SKIP_CHECKSUM))
            self.max_payload = max(MIN_PAYLOAD, min(pkt.arg1 or MIN_PAYLOAD, MAX_PAYLOAD))
            for old in list(self.streams.values()):
                old.on_close()
            self.streams.clear()
            await self.send(A_CNXN, self.version, self.max_payload, self.host.banner.encode() + b"\0")
        elif pkt.cmd == A_OPEN:
            await self._open(pkt)
        elif pkt.cmd == A_OKAY:
            acked = self.streams.get(pkt.arg1)
            if acked is not None and acked.remote_id == pkt.arg0:
                acked.on_okay()
        elif pkt.cmd == A_WRTE:
            target = self.streams.get(pkt.arg1)
            if target is None or target.closed:
                return
            if target.on_write(pkt.data):
                await self.send(A_OKAY, target.local_id, target.remote_id, b"")
        elif pkt.cmd == A_CLSE:
            await self._closed_by_host(pkt)
        # Nothing else arrives: AUTH only answers our challenges, STLS only follows our own STLS.

    async def _open(self, pkt: Packet) -> None:
        service = pkt.data.rstrip(b"\0").decode("utf-8", "replace")
        handler = self.host.service_for(service)
        if handler is None or len(self.streams) >= MAX_STREAMS:
            log.debug("refusing service %r (%d streams open)", service, len(self.streams))
            await self.send(A_CLSE, 0, pkt.arg0, b"")
            return
        local_id = self._next_id
        self._next_id = self._next_id % 0xFFFFFFFF + 1
        stream = Stream(self, local_id, pkt.arg0)
        self.streams[local_id] = stream
        await self.send(A_OKAY, local_id, pkt.arg0, b"")
        stream.task = asyncio.create_task(self._serve(stream, handler))

    async def _closed_by_host(self, pkt: Packet) -> None:
        stream = self.streams.get(pkt.arg1)
        # arg0 is the host's id, or 0 (old hosts used CLSE(0, id) for any close)
        if stream is None or pkt.arg0 not in (0, stream.remote_id):
            return
        del self.streams[pkt.arg1]
        answered = stream.closed  # we closed first: their CLSE answers ours
        stream.on_close()
        if not answered:
            await self.send(A_CLSE, stream.local_id, stream.remote_id, b"")

    async def _serve(self, stream: Stream, handler: Handler) -> None:
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
            if self.streams.get(stream.local_id) is stream:
                del self.streams[stream.local_id]


def _name(cmd: int) -> str:
    raw = cmd.to_bytes(4, "little")
    return raw.decode("ascii") if raw.isalpha() and raw.isupper() else f"{cmd:#010x}"
