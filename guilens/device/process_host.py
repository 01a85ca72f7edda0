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
guilens exits, and ends by itself then. It is started from
`guilens.device.fork_server` (standard library only) at the top of a command,
and it draws the sim's screens once before forking anyone
(`guilens.device.warm_sim`), so each device starts with fonts and glyphs
loaded: the first recorded step of the memory pack on two sims came after
0.289 s of `Runner.run()`, and after 0.091-0.129 s with both (0.09 s for one
sim in-process).

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
so no two observations share pixels someone might draw on. The parsed UI tree crosses with
the XML it was written from (`Observation.__getstate__`): the run reads it every step, and parsing
the XML again in the run's process was 0.65 ms of its 4 ms a step; with it, two sims went from
1.55x to 1.67x the throughput of one (`benchmarks/bench_parallel.py --baseline`, same rounds).

The app state crosses as the apps that changed since the state before
(`guilens.device.state_crossing`): two sims 148.5 against 140.3 steps/s, and
2.79 against about 3.1 ms of the parent's CPU a step (medians of 4 rounds of
`benchmarks/bench_parallel.py --baseline` beside the last tree).

The reply does not wait for the PNG: the child sends the action's result, the
UI tree and the state with the new screen's mode and size, then encodes, then
sends the bytes as a message of their own. The parent's `EncodedScreen` holds
a `guilens.encoded_screen.LateBytes` for them, so the run's step work for that reply
(the agent, the milestone checks, handing the step to the recorder) runs
while the child encodes (about 2 ms of its 6 a step), instead of after it.
The bytes are read off the pipe right after the next request goes out (so the
child, its PNG sent, finds that request waiting instead of idling until the
run's thread has read the PNG: two sims 145.9 against 144.8 and 145.3 against
142.9 steps/s, medians of 5 and 4 rounds of `benchmarks/bench_parallel.py
--baseline` beside the last tree; a request over `_AHEAD_MAX` goes after
them, so both ends can never be writing into full buffers at once), or sooner
when a reader wants them (the recorder's writer thread, a decode); nothing is
reordered, since one pipe carries everything in order, and a child that dies
before its PNG is out makes that screen's bytes, and every later call,
`DeviceLost`, so the recorder writes no file for it. Measured side by side
on the memory pack (two sims, 5 runs each, loaded machine): 202 steps/s after
the first step before, 214 with it, for the same CPU per step.

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
import importlib
import pickle
import signal
import threading
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from typing import Any

from PIL import Image

try:
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

from guilens.device.base import DeviceError, DeviceLost, Observation
from guilens.device.fork_server import context as _context
from guilens.device.fork_server import real_stderr as _real_stderr
from guilens.device.hosted import ActResult, serve
from guilens.device.state_crossing import StateReceiver, StateSender
from guilens.encoded_screen import EncodedScreen, LateBytes
from guilens.png import FrameEncoder, output_mode

_CLOSE = "__close__"
_CLOSE_WAIT_S = 5.0
_AHEAD_MAX = 32 * 1024
"""A request up to this size goes out before the last screen's bytes are read off the pipe (see `call`);
a larger one after, so neither side can block writing while the other writes too."""
_SAME = "same"
"""The reply's frame when the screen is the one the parent got last."""
_PNG = "png"
"""A new screen's frame is `(_PNG, mode, size)` in the reply, and its bytes follow in a message of their
own, `(_PNG, bytes)`, or `("err", packed)` if encoding failed."""


@dataclasses.dataclass(frozen=True)
class Imported:
    """A device factory named by where it lives (`Imported("guilens.device.sim", "SimDevice")`),
    imported only in the device process, when it is called.

    Why: a class handed to `ProcessHost` as itself pickles as a reference, yet
    the caller must import it first to hand it over. For the sim that import
    sits on the way to a run's first step (0.05 s with bytecode cached, 0.14 s
    without), in the run's process, which never draws a hosted sim's screens;
    its device processes come from a fork server that imported the sim already
    (`guilens.device.fork_server.PRELOAD`), so there it costs nothing."""

    module: str
    name: str

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(self.module), self.name)(*args, **kwargs)


class ProcessHost:
    """A `DeviceHost` running `factory(*args, **kwargs)` in a child process.

    The factory (a class such as `SimDevice`, a module-level function, or an
    `Imported` naming one) and its arguments must pickle. The child starts at
    once; the first `call` waits until the device is made, and raises the
    factory's own error if it failed. Calls are serialised (one request on the
    pipe at a time), so one host may be used from several threads.
    """

    def __init__(self, factory: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None:
        ctx = _context()
        if isinstance(factory, Imported):
            self.kind = factory.name
        else:
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
        self._last: tuple[LateBytes, str, tuple[int, int]] | None = None
        """The bytes (delivered or on their way), mode and size of the last new screen: what a screen marked
        unchanged is."""
        self._pending: LateBytes | None = None
        """The bytes of the last new screen while they are still on the pipe, behind its reply."""
        self._states = StateReceiver()
        """The app states the child sent, put together again (`guilens.device.state_crossing`)."""
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
                request = ForkingPickler.dumps((method, args, kwargs, self._states.have))
                if self._pending is not None and len(request) <= _AHEAD_MAX:
                    self._conn.send_bytes(request)  # waiting in the pipe when the child's PNG is out
                    self._settle()
                else:
                    self._settle()
                    self._conn.send_bytes(request)
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
                    self._settle()  # a screen's bytes still on the pipe are delivered, not dropped
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
            self._fail_pending(DeviceLost(f"{self.kind} (pid {self.pid}) was closed before it sent a screen"))
            self._last = None

    # -- replies ---------------------------------------------------------------------------------------
    def _receive(self) -> Any:
        reply = self._conn.recv()
        if reply[0] == "err":
            raise _unpack_error(reply[1])
        _, result, frame, state = reply
        if state is not None:  # the app state crossed as what changed (`guilens.device.state_crossing`)
            if isinstance(result, ActResult):
                result.state = self._states.unpack(state)
            else:
                result = self._states.unpack(state)
        if frame is None:
            return result
        img = self._screen(frame)
        if isinstance(result, ActResult):
            assert result.observation is not None
            result.observation = result.observation.with_screenshot(img)
            return result
        return result.with_screenshot(img)

    def _screen(self, frame: Any) -> EncodedScreen:
        """The reply's screen, still encoded: a new one, whose bytes follow the reply (the child encodes
        after replying, so the caller's step work overlaps the encoding), or the last one again (a new
        object of the same bytes: two observations never share pixels a caller might draw on)."""
        if frame == _SAME:  # the child says so only after sending a screen
            assert self._last is not None, "the child marked a screen unchanged before sending one"
        else:
            _, mode, size = frame
            self._pending = LateBytes(self._deliver)
            self._last = (self._pending, mode, size)
        assert self._last is not None
        return EncodedScreen.later(*self._last)

    def _settle(self) -> None:
        """Read the pending screen's bytes off the pipe (they come right behind its reply); the lock is held.
        Raises EOFError/OSError when the child is gone (the caller makes that `DeviceLost`)."""
        late, self._pending = self._pending, None
        if late is None:
            return
        try:
            msg = self._conn.recv()
        except BaseException:
            self._pending = late  # `_gone` fails it with the reason
            raise
        if msg[0] == _PNG:
            late.set_result(msg[1])
        else:  # encoding failed in the child: a bug, said where it happened, to whoever reads the screen
            late.set_exception(_unpack_error(msg[1]))

    def _deliver(self) -> None:
        """`LateBytes`' fetch: a reader (the recorder's writer, a decode) wants bytes not read yet."""
        with self._lock:
            if self._pending is None or self._pending.done():
                return
            try:
                self._settle()
            except (EOFError, OSError) as err:
                self._gone(err)

    def _fail_pending(self, err: BaseException) -> None:
        late, self._pending = self._pending, None
        if late is not None and not late.done():
            late.set_exception(err)

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
        self._fail_pending(self._lost)
        return self._lost


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
        conn.send(("ok", None, None, None))
        screens, states = _Screens(), StateSender()
        while True:
            try:
                method, a, kw, have = conn.recv()
            except (EOFError, OSError):  # the parent is gone
                with contextlib.suppress(Exception):
                    device.close()
                return
            if method == _CLOSE:
                with contextlib.suppress(Exception):
                    device.close()
                used = resource.getrusage(resource.RUSAGE_SELF) if resource is not None else None
                conn.send(("ok", used.ru_utime + used.ru_stime if used is not None else None, None, None))
                return
            try:
                result = serve(device, method, a, kw)
            except BaseException as err:
                conn.send(("err", _pack_error(err)))
                continue
            state = None
            if isinstance(result, ActResult) and result.has_state:
                state, result.state = states.pack(result.state, have), None
            elif method == "state":
                state, result = states.pack(result, have), None
            if isinstance(result, Observation | ActResult):
                try:
                    result, frame, img = screens.split(result)
                except Exception as err:  # an observation without a usable screen: a bug, said where it happened
                    conn.send(("err", _pack_error(err)))
                    continue
                try:
                    conn.send(("ok", result, frame, state))
                except (EOFError, OSError):
                    raise
                except Exception as err:  # the rest of the observation does not pickle (pickled before sending)
                    conn.send(("err", _pack_error(err)))
                    continue
                if img is not None:  # the reply is out: encode while the parent works on it, then send the bytes
                    try:
                        png = screens.encode(img)
                    except Exception as err:  # a screen the PNG writer cannot take: a bug, said where it happened
                        conn.send(("err", _pack_error(err)))
                        continue
                    conn.send((_PNG, png))
            else:
                try:
                    conn.send(("ok", result, None, state))
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

    def split(self, result: Observation | ActResult) -> tuple[Any, Any, Image.Image | None]:
        """`result` without its screen; the reply's frame (`_SAME`, `(_PNG, mode, size)`, or None: no
        observation); and the image to encode and send after the reply (None: nothing new)."""
        obs = result.observation if isinstance(result, ActResult) else result
        if obs is None:
            return result, None, None
        img = obs.screenshot
        bare: Any = obs.with_screenshot(None)  # the pixels go apart; the parsed tree crosses with the rest
        if isinstance(result, ActResult):
            bare = dataclasses.replace(result, observation=bare)
        if img.im is self.last:
            return bare, _SAME, None
        self.last = None  # until encoded: a screen that failed to cross is never marked unchanged
        return bare, (_PNG, output_mode(img), tuple(img.size)), img

    def encode(self, img: Image.Image) -> bytes:
        png = self.encoder.encode(img)
        self.last = img.im
        return png
