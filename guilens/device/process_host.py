"""`ProcessHost`: a device in a child process of its own, reached over a pipe.

Why a process: a sim spends its step drawing with Pillow, and two sims as
threads of one process share one GIL with each other, the agents, the checks
and the recorder, so a second sim made a run slower (issue 14). In a child
process each sim draws on its own core.

Why `forkserver` (`spawn` where there is none, on Windows): plain `fork`
copies a process that already runs threads (the TUI's, the recorder's encoders,
the other devices' workers), and a lock one of them held at that moment stays
held forever in the child. `spawn` starts a clean interpreter per device, which
imports the sim again (0.3 s of CPU each, per run) and re-runs the parent's
`__main__` script as multiprocessing does (a script without a main guard, or
code piped to `python -`, breaks there). The fork server is a clean
single-threaded process, started once per guilens process, which imports the
sim once (preloaded) and forks each device from itself: two sims were ready in
0.37 s, then 0.02 s for every later run of the same process (a TUI session),
against 0.8 s and 0.6 s of CPU every time with `spawn`. It stays, idle, until
guilens exits, and ends by itself then.

How a screen crosses: a 1080x2400 RGB screen is 7.8 MB. Pickled through the
pipe it cost 16-22 ms a step, its raw bytes through the pipe 10-11 ms, and
through `multiprocessing.shared_memory` 3-5 ms (measured side by side on the
dev machine), against a few ms for the sim's own step. So the pixels go
through a shared-memory segment the parent owns (it unlinks it; a parent
killed outright leaves it to multiprocessing's resource tracker), and the pipe
carries only the `Observation` without its image plus the frame's mode and
size. A screen that did not change since the last one the parent got (the sim
re-renders only when its tree changes) crosses as a mark, not as pixels. A
frame too big for the segment crosses once through the pipe and the segment
grows for the next one.

A child that dies is `DeviceLost` for every call from then on, naming its
pid and how it ended, with no traceback; the child ignores Ctrl-C (the parent
decides what a Ctrl-C means and closes it), and it ends by itself when the
parent goes away: its read on the pipe meets end-of-file.

Hand-written rather than a library: `concurrent.futures.ProcessPoolExecutor`
and `multiprocessing.managers` cannot pin a stateful device to one process
for its lifetime, nor hand screens over through shared memory.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import pickle
import signal
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.shared_memory import SharedMemory
from typing import Any

from PIL import Image, ImageFile

try:
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

from guilens.device.base import DeviceError, DeviceLost, Observation, readonly_view
from guilens.device.hosted import ActResult, serve

_CLOSE = "__close__"
_CLOSE_WAIT_S = 5.0
_PRELOAD = ["guilens.device.process_host", "guilens.device.sim"]
_RAW = {"RGB": "RGBX"}
"""Pillow keeps an RGB pixel in 4 bytes: copied out and back as RGBX it costs 0.6 + 0.3 ms a
1080x2400 frame, against 1.0-2.2 + 1.0 ms packed to 3 bytes (measured on the dev machine)."""
_BYTES = {"RGBX": 4, "RGBA": 4, "RGB": 3, "L": 1, "1": 1, "P": 1, "LA": 2, "I": 4, "F": 4}
"""Bytes per pixel of a raw mode, to know whether a frame fits the segment before writing it."""


@dataclass(frozen=True)
class _Frame:
    """How the screen of an `Observation` reply crosses: in the segment, through the pipe, or unchanged."""

    mode: str
    size: tuple[int, int]
    raw: str
    """The pixels' layout in transit (Pillow raw mode): `RGBX` for an RGB screen."""
    nbytes: int
    via: str  # "shm" | "pipe" | "same"


class ProcessHost:
    """A `DeviceHost` running `factory(*args, **kwargs)` in a child process.

    The factory (a class such as `SimDevice`, or a module-level function) and
    its arguments must pickle. The child starts at once; the first `call` waits
    until the device is made, and raises the factory's own error if it failed.
    Calls are serialised (one request on the pipe at a time), so one host may
    be used from several threads.
    """

    def __init__(self, factory: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None:
        ctx = _context()
        self.kind = getattr(factory, "__name__", type(factory).__name__)
        self._lock = threading.Lock()
        self._conn, child_conn = ctx.Pipe()
        self._proc = ctx.Process(target=_child_main, args=(child_conn, factory, args, kwargs),
                                 name=f"guilens-device-{self.kind}", daemon=True)
        try:
            self._proc.start()
        except (pickle.PicklingError, AttributeError, TypeError) as err:  # the factory or its arguments
            self._conn.close()
            raise TypeError(f"cannot start {self.kind} in a process of its own: {err}") from None
        except OSError as err:  # no processes or pipes left (ulimit, a locked-down container)
            self._conn.close()
            raise DeviceError(f"cannot start a process for the {self.kind}: {err}",
                              "free some processes, or run one device at a time") from None
        finally:
            child_conn.close()  # the child's end lives in the child only: its death is end-of-file here
        self.pid: int | None = self._proc.pid
        self._ready = False
        self._lost: DeviceLost | None = None
        self._closed = False
        self._shm: SharedMemory | None = None
        self._shm_sent = True
        self._last: Image.Image | None = None
        self.cpu_s: float | None = None
        """The CPU seconds the device process used, as it reported when it was closed (benchmarks)."""

    def __repr__(self) -> str:
        return f"ProcessHost({self.kind}, pid {self.pid})"

    # -- the DeviceHost protocol ---------------------------------------------------------------------
    def call(self, method: str, /, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            if self._closed:
                raise DeviceLost(f"{self.kind} (pid {self.pid}) is closed")
            if self._lost is not None:
                raise self._lost
            try:
                if not self._ready:
                    self._receive()  # the child's hello: ("ok", None, None), or why the device was not made
                    self._ready = True
                shm = None if self._shm_sent or self._shm is None else (self._shm.name, self._shm.size)
                self._conn.send((method, args, kwargs, shm))
                self._shm_sent = True
                return self._receive()
            except (EOFError, OSError) as err:  # BrokenPipe, ConnectionReset: the child is gone
                raise self._gone(err) from None

    def close(self) -> None:
        """Close the device in the child and end the child (terminated if it does not end in 5 s)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._lost is None and self._proc.is_alive():
                with contextlib.suppress(EOFError, OSError):
                    self._conn.send((_CLOSE, (), {}, None))
                    if self._conn.poll(_CLOSE_WAIT_S):
                        self.cpu_s = self._conn.recv()[1]
            self._proc.join(_CLOSE_WAIT_S)
            if self._proc.is_alive():
                self._proc.terminate()
                self._proc.join(1.0)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join(1.0)
            self._conn.close()
            self._drop_shm()
            self._last = None

    def alive(self) -> bool:
        """The child process still runs (it may still be making its device)."""
        return not self._closed and self._lost is None and self._proc.is_alive()

    # -- replies ---------------------------------------------------------------------------------------
    def _receive(self) -> Any:
        reply = self._conn.recv()
        if reply[0] == "err":
            raise _unpack_error(reply[1])
        _, result, frame = reply
        if frame is None:
            return result
        img = readonly_view(self._frame(frame))
        if isinstance(result, ActResult):
            assert result.observation is not None
            result.observation = dataclasses.replace(result.observation, screenshot=img)
            return result
        return dataclasses.replace(result, screenshot=img)

    def _frame(self, frame: _Frame) -> Image.Image:
        if frame.via == "same":  # the child says so only after sending a frame, which is `_last`
            assert self._last is not None, "the child marked a screen unchanged before sending one"
            return self._last
        if frame.via == "pipe":
            img = Image.frombytes(frame.mode, frame.size, self._conn.recv_bytes(), "raw", frame.raw)
            self._grow(frame.nbytes)
        else:
            assert self._shm is not None, "the child wrote a frame into a segment the parent has not made"
            buf = self._shm.buf
            assert buf is not None
            with buf[:frame.nbytes] as pixels:
                img = Image.frombytes(frame.mode, frame.size, pixels, "raw", frame.raw)  # a copy: the segment is reused
        self._last = img
        return img

    def _grow(self, nbytes: int) -> None:
        """A segment big enough for frames of `nbytes`, made here and named to the child with the next call."""
        self._drop_shm()
        with contextlib.suppress(OSError):  # no /dev/shm (a locked-down container): frames go through the pipe
            self._shm = SharedMemory(create=True, size=nbytes)
            self._shm_sent = False

    def _drop_shm(self) -> None:
        if self._shm is not None:
            with contextlib.suppress(OSError, BufferError):
                self._shm.close()
                self._shm.unlink()
            self._shm = None

    def _gone(self, err: BaseException) -> DeviceLost:
        self._proc.join(1.0)
        code = self._proc.exitcode
        if code is None:
            how = f"stopped answering ({type(err).__name__})"
        elif code < 0:
            try:
                how = f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"was killed by signal {-code}"
        else:
            how = f"ended with exit code {code}"
        self._lost = DeviceLost(f"the {self.kind} process (pid {self.pid}) {how}", performed=None)
        self._conn.close()
        self._drop_shm()
        return self._lost


def _context() -> Any:
    """The fork server, preloaded with the sim, where the platform has one; else spawn."""
    if "forkserver" not in multiprocessing.get_all_start_methods():  # pragma: no cover - Windows
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)  # no effect once the server runs: it has what it preloaded
    return ctx


def _pack_error(err: BaseException) -> tuple[Any, ...]:
    """An exception as (class, args, attributes, remote traceback), which pickles even where the
    exception itself would not come back whole (`DeviceError.fix`, `DeviceDisconnected.performed`)."""
    tb = "".join(traceback.format_exception(err))
    packed = (type(err), err.args, dict(vars(err)), tb)
    try:
        pickle.dumps(packed)
    except Exception:
        packed = (RuntimeError, (f"{type(err).__name__}: {err}",), {}, tb)
    return packed


def _unpack_error(packed: tuple[Any, ...]) -> BaseException:
    cls, args, attrs, tb = packed
    err: BaseException = cls.__new__(cls, *args)
    err.args = args
    err.__dict__.update(attrs)
    if not isinstance(err, DeviceError):  # a bug, not a phone's trouble: say where it happened
        err.add_note(f"raised in the device process:\n{tb}")
    return err


# -- the child ---------------------------------------------------------------------------------------
def _child_main(conn: Connection, factory: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Make the device, then answer requests until told to close or the parent goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    shm: SharedMemory | None = None
    try:
        try:
            device = factory(*args, **kwargs)
        except BaseException as err:
            conn.send(("err", _pack_error(err)))
            return
        conn.send(("ok", None, None))
        last: Any = None
        while True:
            try:
                method, a, kw, seg = conn.recv()
            except (EOFError, OSError):  # the parent is gone
                with contextlib.suppress(Exception):
                    device.close()
                return
            if seg is not None:
                if shm is not None:
                    shm.close()
                try:
                    shm = SharedMemory(name=seg[0])
                except OSError:  # the segment cannot be opened here: frames go through the pipe
                    shm = None
            if method == _CLOSE:
                with contextlib.suppress(Exception):
                    device.close()
                used = resource.getrusage(resource.RUSAGE_SELF) if resource is not None else None
                conn.send(("ok", used.ru_utime + used.ru_stime if used is not None else None, None))
                return
            try:
                result = serve(device, method, a, kw)
            except BaseException as err:
                conn.send(("err", _pack_error(err)))
                continue
            if isinstance(result, Observation | ActResult):
                last = _send_observation(conn, result, shm, last)
            else:
                try:
                    conn.send(("ok", result, None))
                except Exception as err:  # a result that does not pickle
                    conn.send(("err", _pack_error(err)))
    except (EOFError, OSError):
        return  # the parent went away mid-reply
    finally:
        if shm is not None:
            shm.close()
        conn.close()


def _send_observation(conn: Connection, result: Observation | ActResult, shm: SharedMemory | None, last: Any) -> Any:
    """Send an observation (alone or in an `ActResult`) with its screen in the segment (or through
    the pipe, or as unchanged); returns the image core sent, to know an unchanged screen next time."""
    obs = result.observation if isinstance(result, ActResult) else result
    if obs is None:
        conn.send(("ok", result, None))
        return last
    img = obs.screenshot
    core = img.im
    bare: Any = dataclasses.replace(obs, screenshot=None)  # type: ignore[arg-type]  # the pixels go apart
    if isinstance(result, ActResult):
        bare = dataclasses.replace(result, observation=bare)
    raw = _RAW.get(img.mode, img.mode)
    if core is last:
        conn.send(("ok", bare, _Frame(img.mode, img.size, raw, 0, "same")))
        return core
    need = img.size[0] * img.size[1] * _BYTES.get(raw, 0)
    if shm is not None and shm.buf is not None and 0 < need <= shm.size:
        n = _write_pixels(img, raw, shm.buf)
        conn.send(("ok", bare, _Frame(img.mode, img.size, raw, n, "shm")))
    else:
        pixels = img.tobytes("raw", raw)
        conn.send(("ok", bare, _Frame(img.mode, img.size, raw, len(pixels), "pipe")))
        conn.send_bytes(pixels)
    return core


def _write_pixels(img: Image.Image, raw: str, buf: memoryview) -> int:
    """Copy `img`'s pixels into `buf` as `raw`, chunk by chunk; returns the bytes written.

    `Image.tobytes` gathers its chunks into one new 10 MB `bytes`, and each such
    allocation is fresh pages to fault in: 9.7 ms with the copy into the segment,
    against 0.5 ms written straight from Pillow's raw encoder (its own loop, minus
    the join: `Image._getencoder` is Pillow's, private but unchanged for a decade;
    any surprise falls back to `tobytes`).
    """
    try:
        enc = Image._getencoder(img.mode, "raw", (raw,))
    except Exception:  # pragma: no cover - a Pillow without the hook
        data = img.tobytes("raw", raw)
        buf[:len(data)] = data
        return len(data)
    try:
        enc.setimage(img.im, (0, 0, *img.size))
        chunk = max(ImageFile.MAXBLOCK, img.size[0] * 4)
        off = 0
        while True:
            _, err, data = enc.encode(chunk)
            buf[off:off + len(data)] = data
            off += len(data)
            if err:
                break
        if err < 0:
            raise RuntimeError(f"Pillow's raw encoder failed ({err})")
        return off
    finally:
        enc.cleanup()
