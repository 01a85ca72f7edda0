"""The `sync:` service of the simulated phone: `adb pull`, `adb push`, stat and ls.

Tools read `uiautomator dump` output with `adb pull` (adbutils' `dump_hierarchy`
does), so the files the sim's shell writes live in a small in-memory file
system both services share. Requests arrive split across WRTE packets however
the host likes, so the session buffers until a whole request is there, and
no further: a path is at most 1024 bytes and a DATA chunk 64 KiB, as adbd's
limits, and the files together at most `CAPACITY` ("No space left on device"
past it), so a host cannot grow the process without bound. `/dev/null` and
the `/proc` files tools read (adbd_procfs.py) are there too, read-only.
"""

from __future__ import annotations

import stat
import struct
import time
from dataclasses import dataclass, field

from guilens.device.sim.adbd_procfs import PROC_FILES, proc_file

_CHUNK = 64 * 1024
SYNC_DATA_MAX = 64 * 1024
MAX_PATH = 1024
CAPACITY = 256 * 1024 * 1024
DIRS = (
    "/", "/sdcard", "/sdcard/Download", "/data", "/data/local", "/data/local/tmp", "/storage/emulated/0",
    "/proc", "/dev", "/system", "/system/bin",
)
DEVICES = ("/dev/null", "/dev/tty", "/dev/stdout", "/dev/stderr")  # read empty, swallow writes


class NoSpace(OSError):
    """Writing would take the files past `CAPACITY`."""


def normpath(path: str) -> str:
    """One spelling per file: `/storage/emulated/0/x` and `/sdcard/x` are the same file on Android."""
    path = "/" + path.strip().strip("/")
    for alias in ("/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard"):
        if path == alias or path.startswith(alias + "/"):
            path = "/sdcard" + path[len(alias) :]
    return path


@dataclass
class VirtualFiles:
    """Files the sim's shell and sync services read and write (not persisted)."""

    files: dict[str, bytes] = field(default_factory=dict)
    mtimes: dict[str, int] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)  # made with mkdir
    booted: float = field(default_factory=time.monotonic)

    def used(self) -> int:
        return sum(len(v) for v in self.files.values())

    def write(self, path: str, data: bytes, append: bool = False) -> None:
        """Store a file; /dev/* swallow it, /proc is read-only and space is finite (OSError)."""
        p = normpath(path)
        if p in DEVICES:
            return
        if p == "/proc" or p.startswith("/proc/"):
            raise PermissionError(f"{path}: Read-only file system")
        old = self.files.get(p, b"")
        if self.used() - (0 if append else len(old)) + len(data) > CAPACITY:
            raise NoSpace(f"{path}: No space left on device")
        self.files[p] = (old + data) if append else data
        self.mtimes[p] = int(time.time())

    def touch(self, path: str) -> None:
        p = normpath(path)
        if p in self.files:
            self.mtimes[p] = int(time.time())
        elif not self.is_dir(p):
            self.write(p, b"")

    def read(self, path: str) -> bytes | None:
        p = normpath(path)
        if p in DEVICES:
            return b""
        if p.startswith("/proc/"):
            return proc_file(p, time.monotonic() - self.booted)
        return self.files.get(p)

    def remove(self, path: str) -> bool:
        p = normpath(path)
        self.mtimes.pop(p, None)
        return self.files.pop(p, None) is not None

    def is_dir(self, path: str) -> bool:
        p = normpath(path)
        return p in DIRS or p in self.dirs or any(f.startswith(p.rstrip("/") + "/") for f in self.files)

    def mkdir(self, path: str) -> None:
        p = normpath(path)
        if p in self.files or p in DEVICES or p.startswith("/proc"):
            raise FileExistsError(f"{path}: File exists")
        self.dirs.add(p)

    def listdir(self, path: str) -> list[str]:
        p = normpath(path).rstrip("/") + "/"
        names = {f[len(p) :].split("/")[0] for f in self.files if f.startswith(p)}
        known = (*DIRS, *self.dirs, *DEVICES, *(f"/proc/{name}" for name in PROC_FILES))
        names |= {d[len(p) :].split("/")[0] for d in known if d.startswith(p) and d != p.rstrip("/")}
        return sorted(n for n in names if n)

    def stat(self, path: str) -> tuple[int, int, int]:
        """(mode, size, mtime); all zero when missing, as adbd answers. /proc files have size 0, as there."""
        p = normpath(path)
        if p in self.files:
            return stat.S_IFREG | 0o660, len(self.files[p]), self.mtimes.get(p, 0)
        if p in DEVICES:
            return stat.S_IFCHR | 0o666, 0, 0
        if p.startswith("/proc/") and self.read(p) is not None:
            return stat.S_IFREG | 0o444, 0, 0
        if self.is_dir(p):
            return stat.S_IFDIR | 0o771, 4096, 0
        return 0, 0, 0


class SyncSession:
    """The state of one `sync:` stream; `feed` takes host bytes and returns the replies."""

    def __init__(self, fs: VirtualFiles) -> None:
        self.fs = fs
        self._buf = b""
        self._sending: tuple[str, bytearray] | None = None

    def feed(self, data: bytes) -> tuple[list[bytes], bool]:
        self._buf += data
        out: list[bytes] = []
        while len(self._buf) >= 8:
            rid = self._buf[:4]
            (length,) = struct.unpack("<I", self._buf[4:8])
            if self._sending is not None:
                if rid == b"DATA":
                    if length > SYNC_DATA_MAX:
                        return out + [_fail(f"DATA chunk of {length} bytes (the limit is {SYNC_DATA_MAX})")], True
                    if len(self._buf) < 8 + length:
                        break
                    target, received = self._sending
                    if len(received) + length > CAPACITY:
                        return out + [_fail(f"{target}: No space left on device")], True
                    received.extend(self._buf[8 : 8 + length])
                    self._buf = self._buf[8 + length :]
                    continue
                self._buf = self._buf[8:]
                if rid == b"DONE":
                    path, received = self._sending
                    self._sending = None
                    try:
                        self.fs.write(path, bytes(received))
                    except OSError as err:
                        return out + [_fail(str(err))], True
                    if length:  # DONE's argument is the file's mtime
                        self.fs.mtimes[normpath(path)] = length
                    out.append(b"OKAY" + struct.pack("<I", 0))
                    continue
                return out + [_fail(f"unexpected {rid!r} while receiving a file")], True
            if rid == b"QUIT":
                return out, True
            if length > MAX_PATH:
                return out + [_fail(f"{rid.decode('ascii', 'replace')} path of {length} bytes (the limit is {MAX_PATH})")], True
            if len(self._buf) < 8 + length:
                break
            arg = self._buf[8 : 8 + length].decode("utf-8", "replace")
            self._buf = self._buf[8 + length :]
            if rid == b"STAT":
                out.append(b"STAT" + struct.pack("<III", *self.fs.stat(arg)))
            elif rid == b"LIST":
                for name in self.fs.listdir(arg):
                    mode, size, mtime = self.fs.stat(arg.rstrip("/") + "/" + name)
                    raw = name.encode()
                    out.append(b"DENT" + struct.pack("<IIII", mode, size, mtime, len(raw)) + raw)
                out.append(b"DONE" + struct.pack("<IIII", 0, 0, 0, 0))
            elif rid == b"RECV":
                content = self.fs.read(arg)
                if content is None:
                    out.append(_fail(f"remote object '{arg}' does not exist"))
                    continue
                for start in range(0, len(content), _CHUNK):
                    piece = content[start : start + _CHUNK]
                    out.append(b"DATA" + struct.pack("<I", len(piece)) + piece)
                out.append(b"DONE" + struct.pack("<I", 0))
            elif rid == b"SEND":
                path, _, _mode = arg.rpartition(",")
                self._sending = (path or arg, bytearray())
            else:
                return out + [_fail(f"unknown sync request {rid!r}")], True
        return out, False


def _fail(message: str) -> bytes:
    raw = message.encode()
    return b"FAIL" + struct.pack("<I", len(raw)) + raw
