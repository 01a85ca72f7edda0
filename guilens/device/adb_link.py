"""One phone's link through the adb server: picking it, opening streams, and telling a phone that
went away from one that merely failed.

Kept apart from `AdbDevice` (adb.py), which says what to run on the phone; this
module says how a command gets there and what its failure means.

Why the classification is careful: a phone that vanishes mid-read does not
raise anything on its own. The adb server closes our stream, and what we hold
is an empty or cut-short read, while the server may still list the phone as
`device` for a few milliseconds. So a failure is called a disconnect when:
- the adb server refuses the connection (it went away), or
- the phone's state is no longer `device` (`offline`, or not listed: what
  `device offline` and `device 'X' not found` mean), or
- it still reads `device` but stops being so within a moment, or does not
  answer a one-line probe.
Anything else is an ordinary `DeviceError` (the command failed on a phone
that is there).

`DeviceDisconnected.performed` says whether the request could have reached
the phone: False when the stream never opened (the runner may safely repeat
it), None when it was cut midway (a tap may or may not have happened).

`alive()` is what a waiting run polls (`guilens.run.reconnect`). For a network
device it also asks the adb server to reconnect at once: the server's own retry
of an offline TCP device comes only about every ten seconds, so without this a
phone back in half a second would still read `offline` for several. A local adb
server that died is started again, as opening a device does.

Is something listening on a network device's address again? A plain TCP connect
can fool us: to a port with nothing listening, Linux may pick that very port as
the connection's source and connect the socket to itself (a "self-connect"),
which looks like a listener, and holds the port the phone is about to bind. Such
a connection is told apart by its two ends being the same address.
"""

from __future__ import annotations

import os
import re
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager

from guilens.device.adb_server import (
    FIX_NOT_FOUND,
    ensure_server,
    make_client,
    server_address,
    server_up,
    state_error,
)
from guilens.device.base import DeviceDisconnected, DeviceError, DeviceNotFound

_NETWORK_SERIAL = re.compile(r"([\w.\-]+|\[[0-9a-fA-F:]+\]):(\d+)")
SETTLE_S = 1.0
"""How long a phone that still reads `device` after a cut stream gets to show it is gone."""
PROBE_TIMEOUT_S = 3.0
FIX_GONE = "reconnect it: cable, `adb connect`; a waiting run resumes by itself once it answers"


class _NotSent(Exception):
    """The stream never opened: whatever it was to carry did not reach the phone."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


class AdbLink:
    """The connection half of `AdbDevice`. `serial` None: the only attached device."""

    def __init__(
        self,
        serial: str | None = None,
        *,
        host: str | None = None,
        port: int | None = None,
        timeout: float = 60.0,
    ) -> None:
        self.host, self.port = server_address(host, port)
        ensure_server(self.host, self.port)
        self._client = make_client(self.host, self.port, timeout)
        self.serial = self._pick(serial)
        self.name = f"adb:{self.serial}"
        self._d = self._client.device(self.serial)
        with self._guard("reading its features"):
            self._v2 = "shell_v2" in self._d.get_features().split(",")

    # -- connecting ------------------------------------------------------------------------------
    def _states(self) -> dict[str, str]:
        return {d.serial: d.state for d in self._client.list()}

    def _pick(self, serial: str | None) -> str:
        try:
            states = self._states()
        except Exception as err:
            raise DeviceError(f"cannot talk to the adb server at {self.host}:{self.port}: {err}") from None
        if serial is None:
            serial = os.environ.get("ANDROID_SERIAL") or None
        if serial is None:
            ready = [s for s, st in states.items() if st == "device"]
            if len(ready) == 1:
                return ready[0]
            if len(ready) > 1:
                raise DeviceNotFound(
                    f"{len(ready)} adb devices are attached ({', '.join(sorted(ready))})",
                    fix="pick one with --device adb:SERIAL",
                )
            if states:
                first, first_state = next(iter(states.items()))
                raise state_error(first, first_state)
            raise DeviceNotFound("no adb device is attached", fix=FIX_NOT_FOUND)
        if serial not in states and _NETWORK_SERIAL.fullmatch(serial):
            self._connect(serial)
            states = self._states()
        state = states.get(serial)
        if state is None:
            known = ", ".join(sorted(states)) or "none"
            raise DeviceNotFound(f"adb device {serial!r} is not attached (attached: {known})", fix=FIX_NOT_FOUND)
        if state != "device":
            raise state_error(serial, state)
        return serial

    def _connect(self, addr: str) -> None:
        """`adb connect` a network device; it is ready once the server lists it as `device`."""
        try:
            out = self._client.connect(addr, timeout=10)
        except Exception as err:
            raise DeviceNotFound(f"adb connect {addr} failed: {err}", fix="is the device listening there?") from None
        if "cannot" in out or "failed" in out:
            raise DeviceNotFound(f"adb connect {addr}: {out.strip()}", fix="is the device listening there?")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self._states().get(addr) not in (None, "offline", "connecting", "authorizing"):
                return
            time.sleep(0.1)

    # -- is it there? ----------------------------------------------------------------------------
    def alive(self) -> bool:
        """Whether the phone answers now: listed as `device`, and a shell round trip works.

        A network device the server holds as offline (or no longer lists) is reconnected
        at once when something listens on its address again; a USB phone comes back
        by itself when replugged.
        """
        try:
            try:
                state = self._states().get(self.serial)
            except Exception:
                if server_up(self.host, self.port):
                    return False
                ensure_server(self.host, self.port)  # the adb server went away: start it, as opening a device does
                state = self._states().get(self.serial)
            if state != "device" and self._network_back():
                self._renew(state)
                state = self._states().get(self.serial)
        except Exception:  # the adb server is down, or busy restarting
            return False
        if state != "device" or not self._probe():
            return False
        try:  # the same address may now be a different adbd (a restarted emulator): ask again
            self._v2 = "shell_v2" in self._d.get_features().split(",")
        except Exception:
            return False
        return True

    def _network_back(self) -> bool:
        m = _NETWORK_SERIAL.fullmatch(self.serial)
        if m is None:
            return False
        try:
            with socket.create_connection((m[1].strip("[]"), int(m[2])), timeout=0.5) as sock:
                return bool(sock.getsockname() != sock.getpeername())  # not a self-connect (module docstring)
        except OSError:
            return False

    def _renew(self, state: str | None) -> None:
        """Drop the server's stale connection to a network device and connect again."""
        if state is not None:
            self._client.disconnect(self.serial)
        self._client.connect(self.serial, timeout=5)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and self._states().get(self.serial) in ("offline", "connecting"):
            time.sleep(0.05)

    def _probe(self) -> bool:
        """`echo` through the phone's shell, with a short timeout."""
        try:
            sock = self._open("shell:echo guilens-probe")
            sock.settimeout(PROBE_TIMEOUT_S)
            return b"guilens-probe" in self._read_all(sock)
        except Exception:
            return False

    # -- classifying failures --------------------------------------------------------------------
    @contextmanager
    def _guard(self, what: str) -> Iterator[None]:
        """Turn adb failures into device errors; a device that is gone raises `DeviceDisconnected`."""
        from adbutils.errors import AdbError

        try:
            yield
        except DeviceError:
            raise
        except _NotSent as err:
            raise self._gone_or(what, err.cause, sent=False) from None
        except (AdbError, OSError, EOFError) as err:
            raise self._gone_or(what, err) from None

    def _gone_or(self, what: str, err: BaseException, *, sent: bool = True) -> DeviceError:
        """A disconnect (naming the phone and what it was doing) or, for a phone that is still
        there, the plain failure."""
        performed: bool | None = None if sent else False
        try:
            state = self._states().get(self.serial)
        except Exception:
            return DeviceDisconnected(
                f"the adb server at {self.host}:{self.port} went away while {what} ({self.name})",
                fix="a waiting run starts it again, and goes on once the phone answers",
                performed=performed,
            )
        if state == "device":  # the server may not have noticed yet, or the phone is fine
            state = self._settle()
        if state == "device":
            return DeviceError(f"{self.name}: {what} failed: {err or type(err).__name__}")
        return DeviceDisconnected(
            f"{self.name} disconnected while {what} (now {state or 'gone'})", fix=FIX_GONE, performed=performed
        )

    def _settle(self) -> str | None:
        """The state once the server has caught up: `device` only if it stays so and the phone answers."""
        deadline = time.monotonic() + SETTLE_S
        while time.monotonic() < deadline:
            try:
                state = self._states().get(self.serial)
            except Exception:
                return None
            if state != "device":
                return state
            if self._probe():
                return "device"
            time.sleep(0.1)
        return "not answering"

    # -- streams ---------------------------------------------------------------------------------
    def _open(self, service: str) -> socket.socket:
        """A stream to `service` on the phone. `host:transport:` directly: adbutils' open_transport
        asks the server's version first, on a connection whose close sleeps 10 ms."""
        try:
            conn = self._client.make_connection()
        except Exception as err:
            raise _NotSent(err) from None
        try:
            conn.send_command(f"host:transport:{self.serial}")
            conn.check_okay()
            conn.send_command(service)
            conn.check_okay()
        except BaseException as err:
            conn.conn.close()
            if isinstance(err, Exception):
                raise _NotSent(err) from None
            raise
        return conn.conn

    @staticmethod
    def _read_all(sock: socket.socket) -> bytes:
        """Everything until the device closes the stream, in one growing buffer (linear in the size)."""
        try:
            buf = bytearray(1 << 20)
            size = 0
            while True:
                if size == len(buf):
                    buf.extend(bytes(len(buf)))
                with memoryview(buf) as view:
                    n = sock.recv_into(view[size:])
                if n == 0:
                    break
                size += n
            del buf[size:]
            return bytes(buf)
        finally:
            sock.close()

    def exec_bytes(self, command: str, *, what: str) -> bytes:
        """The raw stdout of `exec:COMMAND` (what `adb exec-out` reads), read as a stream."""
        with self._guard(what):
            return self._read_all(self._open("exec:" + command))

    def cut_short(self, what: str, detail: str) -> DeviceError:
        """For a read that ended early (empty, or a PNG without its end): a disconnect if the
        phone has gone, else the plain failure."""
        return self._gone_or(what, EOFError(detail))

    def shell_raw(self, command: str, what: str) -> tuple[bytes, int]:
        """Run `command` in the device shell: its output (stdout and stderr merged) and exit status.

        Reads the stream ourselves rather than through adbutils' `shell2`, whose close
        sleeps 10 ms on every call.
        """
        with self._guard(what):
            if self._v2:
                return self._shell_v2(command)
            marker = "X4EXIT:"
            raw = self._read_all(self._open(f"shell:{command}; echo {marker}$?"))
            at = raw.rfind(marker.encode())
            if at < 0:
                raise EOFError(f"the shell closed before `{command[:60]}` finished")
            return raw[:at], int(raw[at + len(marker) :].strip() or b"255")

    def _shell_v2(self, command: str) -> tuple[bytes, int]:
        data = self._read_all(self._open(f"shell,v2,raw:{command}"))
        out = bytearray()
        pos = 0
        while pos + 5 <= len(data):
            kind = data[pos]
            length = int.from_bytes(data[pos + 1 : pos + 5], "little")
            body = data[pos + 5 : pos + 5 + length]
            pos += 5 + length
            if kind in (1, 2):
                out += body
            elif kind == 3:
                return bytes(out), body[0] if body else 255
        raise EOFError(f"the shell closed before `{command[:60]}` finished")
