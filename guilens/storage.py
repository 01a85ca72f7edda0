"""Writing a run's files so that a full disk, a read-only folder or a file-size limit is one clear line.

Every file guilens writes into a run (screens, step lines, `episode.json`,
`run.json`, state, long-term memory, verdicts, HTML reports) goes through
`write_atomic` or is wrapped by `StorageError.of`, so what the person reads
names the file and the reason (`runs/x/screens/0005.png: cannot write: No space
left on device`), never a bare `OSError` without a path (a failing `write()`
names none) or a traceback. A failed write removes its temporary file, so a
full disk leaves no `.0005.png.tmp` behind.

`Reserve` keeps a little room back on the run's disk: when the disk fills
mid-run, giving that room up lets the record still say so (`episode.json` and
`run.json` marked `error` with the reason), where otherwise the last rewrite of
each would fail too and both would be left saying `running`.

`check_output_dir` asks the file system, without creating anything, whether a
run could be written under a folder: `--out` and the `run_dir` setting are
checked before a device opens or a terminal changes.

Written by hand because the libraries for this (`atomicwrites`, archived in
2022, and its forks) neither name the path in their errors nor remove the
temporary file on every failure, and none keeps a reserve; the whole of it is
a temporary file, `os.replace` and error wording.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
import threading
from pathlib import Path

__all__ = ["FULL", "RESERVE_NAME", "Reserve", "StorageError", "check_file_target", "check_output_dir", "reason",
           "remove_temporaries", "write_atomic"]

FULL = frozenset({errno.ENOSPC, errno.EDQUOT})
"""Errors that giving up the reserve can cure."""

_HINTS = {
    errno.EFBIG: "over the file-size limit, ulimit -f",
    errno.EPERM: "immutable or otherwise protected?",
    errno.EDQUOT: "the disk quota is used up",
}

RESERVE_NAME = ".guilens-reserve"
RESERVE_BYTES = 256 * 1024
"""Enough for the last rewrites of `episode.json` and a `run.json` of some hundred tasks, twice over."""


def reason(err: BaseException) -> str:
    """What went wrong, in the operating system's words plus a hint where they are cryptic."""
    if not isinstance(err, OSError):
        return f"{type(err).__name__}: {err}"
    text = err.strerror or str(err) or type(err).__name__
    hint = _HINTS.get(err.errno or 0)
    return f"{text} ({hint})" if hint and hint not in text else text


class StorageError(OSError):
    """A file that could not be written; `str()` names it and says why."""

    def __init__(self, path: Path | str, why: str, code: int | None = None) -> None:
        super().__init__(code if code is not None else errno.EIO, why)
        self.path = Path(path)
        self.why = why

    @classmethod
    def of(cls, path: Path | str, err: BaseException) -> StorageError:
        """`err` (an `OSError` from writing `path`) as a `StorageError` naming `path`; one passes through."""
        if isinstance(err, StorageError):
            return err
        return cls(path, reason(err), err.errno if isinstance(err, OSError) else None)

    @property
    def full(self) -> bool:
        """The disk (or the quota) is full: space freed elsewhere may let a small write through."""
        return self.errno in FULL

    def __str__(self) -> str:
        return f"{self.path}: cannot write: {self.why}"

    def __reduce__(self) -> tuple[object, ...]:  # OSError's own pickling drops the extra arguments
        return (type(self), (self.path, self.why, self.errno))


class Reserve:
    """A file of room kept back on the run's disk, given up when the disk fills. Thread-safe.

    Made with `posix_fallocate` where the file system has it (the blocks are
    really taken), else written as zeros. A disk too full to make it leaves no
    reserve, and the run goes on without one.
    """

    def __init__(self, path: Path, size: int = RESERVE_BYTES) -> None:
        self.path: Path | None = Path(path)
        self._lock = threading.Lock()
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                try:
                    os.posix_fallocate(fd, 0, size)
                except (AttributeError, OSError) as err:
                    if isinstance(err, OSError) and err.errno in FULL:
                        raise
                    view = memoryview(bytes(size))  # a file system without fallocate: zeros take the room
                    while view:
                        view = view[os.write(fd, view):]
            finally:
                os.close(fd)
        except OSError:
            with contextlib.suppress(OSError):
                self.path.unlink()
            self.path = None

    @property
    def held(self) -> bool:
        return self.path is not None

    def release(self) -> bool:
        """Give the room back to the disk; True if this call freed it."""
        with self._lock:
            path, self.path = self.path, None
        if path is None:
            return False
        try:
            path.unlink()
        except OSError:
            return False
        return True

    close = release


def _write(path: Path, data: bytes, tmp: Path) -> None:
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_atomic(path: Path | str, data: bytes | str, *, reserve: Reserve | None = None, unique: bool = False) -> int:
    """Write `data` to `path` through a temporary file and `os.replace`: a reader sees the old file or
    the new one, never half of either. Returns the bytes written.

    Raises `StorageError` naming `path`; the temporary file is gone by then. With a `reserve`, a full
    disk gives it up and tries once more (the writes that mark a record). `unique` puts the process id
    in the temporary name, for files several processes may write at once (verdicts).
    """
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp" if unique else f".{path.name}.tmp")
    try:
        _write(path, raw, tmp)
    except OSError as err:
        if not (reserve is not None and err.errno in FULL and reserve.release()):
            raise StorageError.of(path, err) from None
        try:
            _write(path, raw, tmp)
        except OSError as again:
            raise StorageError.of(path, again) from None
    return len(raw)


def remove_temporaries(directory: Path) -> list[Path]:
    """Remove the `.NAME.tmp` files a killed or failed writer left under `directory`; return them."""
    gone = []
    for tmp in Path(directory).rglob(".*.tmp"):
        with contextlib.suppress(OSError):
            tmp.unlink()
            gone.append(tmp)
    return gone


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate):
            return candidate
    return Path(".")


def check_output_dir(path: Path | str) -> None:
    """Raise `StorageError` unless a run could be written under `path`. Creates nothing that stays:
    a folder to be made is tried by making a file in its nearest existing ancestor, and removing it."""
    path = Path(path)
    base = _nearest_existing(path.absolute())
    if not base.is_dir():
        if base == path.absolute():
            raise StorageError(path, "it is a file, not a folder", errno.ENOTDIR)
        raise StorageError(path, f"{base} is a file, not a folder", errno.ENOTDIR)
    try:
        fd, probe = tempfile.mkstemp(dir=base, prefix=".guilens-probe-")
    except OSError as err:
        why = "it takes no new files (a virtual file system?)" if err.errno == errno.ENOENT else reason(err)
        where = "" if base == path.absolute() else f"cannot make a folder in {base}: "
        raise StorageError(path, f"{where}{why}", err.errno) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)


def check_file_target(path: Path | str) -> None:
    """Raise `StorageError` unless `write_atomic(path, ...)` could replace `path`: its folder takes new
    files (`check_output_dir`), and a file already there is not a folder, nor immutable or append-only,
    nor on a read-only mount (those refuse even root, and refuse the rename). Changes nothing.

    A file the user may not write but whose folder they may (mode 0444) is no refusal: the rename
    replaces it, as it would with any editor's save."""
    path = Path(path)
    if path.is_dir():
        raise StorageError(path, "it is a folder, not a file", errno.EISDIR)
    check_output_dir(path.parent)
    if not path.is_file():
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)  # no O_TRUNC: opening changes nothing
    except OSError as err:
        if err.errno in (errno.EPERM, errno.EROFS):
            raise StorageError(path, reason(err), err.errno) from None
        return
    os.close(fd)
