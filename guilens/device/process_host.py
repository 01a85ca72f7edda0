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

How a screen crosses: as the PNG the recorder will store, encoded in the child
(`guilens.png.FrameEncoder`, one per device, so bands unchanged since the
device's last screen are not compressed again) and sent through the pipe
with the rest of the reply, about 90 kB. In the run's process it becomes an
`EncodedScreen`: an image whose pixels are decoded only if someone reads them
(the TUI's phone view, an LLM agent's resize), while the recorder writes its
bytes as they are. Before, the raw 7.8 MB of pixels crossed through a shared-
memory segment and the parent encoded them: with two sims that parent spent
8.1 ms of CPU a step (taking the pixels out of the segment, encoding, the GIL
shared by both devices' loops) and capped the run at 0.88x the throughput of
one sim. Encoding in the child moves that work onto the device's own core,
where it overlaps with the other device and the run's loop. Measured on the
memory pack (`benchmarks/bench_parallel.py`, the parent's imports counted):
two sims cost 10.0 ms of CPU a step, 3.9 of it in the parent, against 12.2 and
7.5 before, and 8.3 for one sim in-process. A screen that did not change since
the last one the parent got (the sim re-renders only when its tree changes)
crosses as a mark; the parent makes a new `EncodedScreen` of the same bytes,
so no two observations share pixels someone might draw on.

A child that dies is `DeviceLost` for every call from then on, naming its
pid and how it ended, with no traceback; the child ignores Ctrl-C (the parent
decides what a Ctrl-C means and closes it), and it ends by itself when the
parent goes away: its read on the pipe meets end-of-file.

Hand-written rather than a library: `concurrent.futures.ProcessPoolExecutor`
and `multiprocessing.managers` cannot pin a stateful device to one process
for its lifetime.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import pickle
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from typing import Any

try:
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

from guilens.device.base import DeviceError, DeviceLost, Observation
from guilens.device.hosted import ActResult, serve
from guilens.png import EncodedScreen, FrameEncoder

_CLOSE = "__close__"
_CLOSE_WAIT_S = 5.0
_PRELOAD = ["guilens.device.process_host", "guilens.device.sim"]
_SAME = "same"
"""The reply's frame when the screen is the one the parent got last (else the frame is PNG bytes)."""


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
            with _real_stderr():
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
        self._last: bytes | None = None
        """The PNG of the last screen the child sent: what a screen marked unchanged is."""
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
                self._conn.send((method, args, kwargs))
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
                    self._conn.send((_CLOSE, (), {}))
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
            self._last = None

    # -- replies ---------------------------------------------------------------------------------------
    def _receive(self) -> Any:
        reply = self._conn.recv()
        if reply[0] == "err":
            raise _unpack_error(reply[1])
        _, result, frame = reply
        if frame is None:
            return result
        img = self._screen(frame)
        if isinstance(result, ActResult):
            assert result.observation is not None
            result.observation = dataclasses.replace(result.observation, screenshot=img)
            return result
        return dataclasses.replace(result, screenshot=img)

    def _screen(self, frame: bytes | str) -> EncodedScreen:
        """The reply's screen, still encoded: a new one, or the last one again (a new object of the same
        bytes: two observations never share pixels a caller might draw on)."""
        if frame == _SAME:  # the child says so only after sending a screen
            assert self._last is not None, "the child marked a screen unchanged before sending one"
            return EncodedScreen(self._last)
        assert isinstance(frame, bytes)
        self._last = frame
        return EncodedScreen(frame)

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
        return self._lost


def start_fork_server() -> None:
    """Start the fork server now, without waiting for it: it imports the sim (about 0.2 s) while the
    caller goes on (loading scenarios, planning), instead of while the first device waits for it.
    Harmless when it runs already, and where there is none (spawn)."""
    ctx = _context()
    if ctx.get_start_method() == "forkserver":
        from multiprocessing import forkserver

        with _real_stderr():
            forkserver.ensure_running()


@contextlib.contextmanager
def _real_stderr() -> Iterator[None]:
    """Hand the fork server the process's real stderr. multiprocessing's resource tracker, which the
    fork server starts first, passes `sys.stderr.fileno()` to its child; under the TUI, Textual has
    swapped `sys.stderr` for a capture whose `fileno()` is -1, and the start fails with "bad value(s)
    in fds_to_keep". For that moment `sys.stderr` is the one the interpreter started with."""
    try:
        usable = sys.stderr is None or sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):  # no fileno at all: the tracker skips it itself
        usable = True
    if usable or sys.__stderr__ is None:
        yield
        return
    saved = sys.stderr
    sys.stderr = sys.__stderr__
    try:
        yield
    finally:
        sys.stderr = saved


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
    try:
        try:
            device = factory(*args, **kwargs)
        except BaseException as err:
            conn.send(("err", _pack_error(err)))
            return
        conn.send(("ok", None, None))
        screens = _Screens()
        while True:
            try:
                method, a, kw = conn.recv()
            except (EOFError, OSError):  # the parent is gone
                with contextlib.suppress(Exception):
                    device.close()
                return
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
                try:
                    result, frame = screens.split(result)
                except Exception as err:  # a screen the PNG writer cannot take: a bug, said where it happened
                    conn.send(("err", _pack_error(err)))
                    continue
                try:
                    conn.send(("ok", result, frame))
                except (EOFError, OSError):
                    raise
                except Exception as err:  # the rest of the observation does not pickle (pickled before sending)
                    screens.last = None
                    conn.send(("err", _pack_error(err)))
            else:
                try:
                    conn.send(("ok", result, None))
                except Exception as err:  # a result that does not pickle
                    conn.send(("err", _pack_error(err)))
    except (EOFError, OSError):
        return  # the parent went away mid-reply
    finally:
        conn.close()


class _Screens:
    """The child's side of a screen's crossing: each new screen encoded once, an unchanged one marked."""

    def __init__(self) -> None:
        self.encoder = FrameEncoder()
        self.last: Any = None
        """The image core of the last screen sent (the sim hands out views of one core until it redraws)."""

    def split(self, result: Observation | ActResult) -> tuple[Any, bytes | str | None]:
        """`result` without its screen, and the screen as PNG bytes (or `_SAME`; None: no observation)."""
        obs = result.observation if isinstance(result, ActResult) else result
        if obs is None:
            return result, None
        img = obs.screenshot
        bare: Any = dataclasses.replace(obs, screenshot=None)  # type: ignore[arg-type]  # the pixels go apart
        if isinstance(result, ActResult):
            bare = dataclasses.replace(result, observation=bare)
        core = img.im
        if core is self.last:
            return bare, _SAME
        png = self.encoder.encode(img)
        self.last = core  # only once encoded: a screen that failed to cross is never marked unchanged
        return bare, png
