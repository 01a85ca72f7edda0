"""How the outside world steers a running episode and hears about it.

`RunControl` pauses, resumes, single-steps, cancels and hands the controls to
a person; `QuestionChannel` carries `ask_user` questions (and a person's
actions) to whoever answers them, one Future each; `RunObserver` is the
protocol through which the runner reports. The TUI implements the observer
with `post_message`, the headless printer with rich; none of this imports
Textual.

A run over several devices shares one control and one channel. Pause, resume
and cancel reach the whole run; a single step and a take-over may name one
device (by the label the runner gives each, `sim-1`, `adb:SERIAL`; see
`guilens.run.engine.device_labels`). Every request a device's attempt opens
says which device asks (`Request.device`): the attempt runs inside
`acting_for(label)`, so whatever asks from there (the agent, the user, a
take-over) is tagged without being told.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from PIL import Image

    from guilens.episode import Episode, Step


class Cancelled(Exception):
    """Raised inside the run loop when the episode was cancelled from outside."""


class Withdrawn(Exception):
    """Raised by `QuestionChannel.ask` when the asker stopped wanting the answer (a hand-back)."""


_acting_for: ContextVar[str | None] = ContextVar("guilens_acting_for", default=None)


@contextmanager
def acting_for(device: str | None) -> Iterator[None]:
    """Everything run inside works for `device`: requests it opens name it (`Request.device`).

    A context variable rather than a parameter, so the agent, the simulated user and
    the take-over prompt, which know nothing of devices, still ask on its behalf.
    """
    token = _acting_for.set(device)
    try:
        yield
    finally:
        _acting_for.reset(token)


def current_device() -> str | None:
    """The device the calling code works for (`acting_for`), or None outside a run."""
    return _acting_for.get()


class RunControl:
    """Thread-safe pause / step / cancel / take-over flags, checked by the runner between steps.

    Pausing holds the agent, not a person: while a person holds a device's controls
    (`take_over`), that device's gate lets their moves through even when the run is
    paused, and when they hand back a paused run stays paused.
    """

    def __init__(self, *, paused: bool = False) -> None:
        self._lock = threading.Condition()
        self._paused = paused
        self._steps_allowed: dict[str | None, int] = {}
        """Single steps granted while paused, per device label; None: to whichever device comes first."""
        self._cancelled = False
        self._human_all = False
        self._human: set[str] = set()
        self._injections: list[tuple[str | None, str]] = []
        """Anomalies asked for (`inject`) and not yet shown: (device label or None, kind)."""
        self._listeners: list[Callable[[], None]] = []

    # -- commands ---------------------------------------------------------------------------
    def pause(self) -> None:
        with self._lock:
            self._paused = True
            self._steps_allowed.clear()
            self._lock.notify_all()
        self._changed()

    def resume(self) -> None:
        with self._lock:
            self._paused = False
            self._lock.notify_all()
        self._changed()

    def toggle_pause(self) -> bool:
        if self.paused:
            self.resume()
        else:
            self.pause()
        return self.paused

    def step_once(self, device: str | None = None) -> None:
        """Let exactly one more step run, then stay paused: on `device`, or (None) on whichever
        device reaches its gate first. A step granted while a person holds the controls waits
        for the agent's turn."""
        with self._lock:
            self._paused = True
            self._steps_allowed[device] = self._steps_allowed.get(device, 0) + 1
            self._lock.notify_all()
        self._changed()

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            self._lock.notify_all()
        self._changed()

    def take_over(self, human: bool = True, device: str | None = None) -> None:
        """Give a person the controls of `device` (every device when None), or hand them back.
        Handing back with None returns every device to its agent."""
        with self._lock:
            if device is None:
                self._human_all = human
                if not human:
                    self._human.clear()
            elif human:
                self._human.add(device)
            else:
                self._human.discard(device)
                self._human_all = False
            self._lock.notify_all()
        self._changed()

    def inject(self, kind: str, device: str | None = None) -> None:
        """Ask for an anomaly (`ad`, `permission`, `battery`, `crash`) on `device` (None: whichever
        device comes next). The step loop shows it between steps, before the agent looks again
        (`guilens.run.anomaly_log.apply_injections`): the TUI never touches the phone itself."""
        with self._lock:
            self._injections.append((device, kind))
        self._changed()

    def take_injections(self, device: str | None) -> list[str]:
        """The anomalies asked for on `device` (or on any device), in order; each is taken once."""
        with self._lock:
            mine = [kind for dev, kind in self._injections if dev is None or dev == device]
            self._injections = [(dev, kind) for dev, kind in self._injections if not (dev is None or dev == device)]
        return mine

    # -- state ------------------------------------------------------------------------------
    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    @property
    def human(self) -> bool:
        """A person holds the controls of some device."""
        return self.is_human()

    def is_human(self, device: str | None = None) -> bool:
        """A person holds the controls of `device` (of any device when None)."""
        if self._human_all:
            return True
        return bool(self._human) if device is None else device in self._human

    def holds(self, device: str | None = None) -> bool:
        """Would `gate(device)` wait now? (The runner reports `paused` only when it does.)"""
        with self._lock:
            return self._holds(device)

    def _holds(self, device: str | None) -> bool:
        if self._cancelled or not self._paused:
            return False
        if device is not None and self.is_human(device):
            return False
        return self._steps_allowed.get(device, 0) <= 0 and self._steps_allowed.get(None, 0) <= 0

    def on_change(self, fn: Callable[[], None]) -> None:
        self._listeners.append(fn)

    def _changed(self) -> None:
        for fn in list(self._listeners):
            fn()

    # -- runner side ------------------------------------------------------------------------
    def gate(self, device: str | None = None) -> None:
        """Block while paused, unless a single step is allowed or a person holds `device`'s
        controls (their move is not held); raise `Cancelled` when cancelled. Without a device
        (a phone gone away, waiting for someone to plug it back) only resuming opens it."""
        with self._lock:
            while True:
                if self._cancelled:
                    raise Cancelled()
                if not self._paused:
                    return
                if device is not None and self.is_human(device):
                    return
                for key in (device, None):
                    if self._steps_allowed.get(key, 0) > 0:
                        self._steps_allowed[key] -= 1
                        return
                self._lock.wait(timeout=0.2)

    def check(self) -> None:
        if self._cancelled:
            raise Cancelled()


@dataclass
class Request:
    """A question for the user (`kind="question"`) or a request for a person's action (`kind="action"`)."""

    kind: str
    text: str
    suggestion: str | None = None
    """The simulated user's answer, offered to a person who answers instead."""
    context: dict[str, Any] = field(default_factory=dict)
    id: int = 0
    future: concurrent.futures.Future[str] = field(default_factory=concurrent.futures.Future)
    device: str | None = None
    """The device whose attempt asks (its label), or None when asked outside a run's attempt."""


class QuestionChannel:
    """Pending requests, each with a Future the runner waits on and the UI resolves.

    The UI subscribes with `on_change`; a cancelled run withdraws what is pending,
    so no modal waits for an episode that is gone.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[int, Request] = {}
        self._ids = itertools.count(1)
        self._listeners: list[Callable[[Request, str], None]] = []

    def on_change(self, fn: Callable[[Request, str], None]) -> None:
        """`fn(request, event)` with event `"opened"`, `"answered"` or `"withdrawn"`."""
        self._listeners.append(fn)

    def _notify(self, req: Request, event: str) -> None:
        for fn in list(self._listeners):
            fn(req, event)

    def ask(
        self,
        kind: str,
        text: str,
        *,
        suggestion: str | None = None,
        context: dict[str, Any] | None = None,
        control: RunControl | None = None,
        timeout: float | None = None,
        still_wanted: Callable[[], bool] | None = None,
    ) -> str:
        """Open a request and block until it is answered.

        `Cancelled` if the run is cancelled meanwhile; `Withdrawn` once `still_wanted()`
        turns false (a person handing control back while the runner waits for their move).
        """
        req = Request(kind=kind, text=text, suggestion=suggestion, context=context or {}, id=next(self._ids),
                      device=current_device())
        with self._lock:
            self._pending[req.id] = req
        self._notify(req, "opened")
        waited = 0.0
        try:
            while True:
                if control is not None and control.cancelled:
                    raise Cancelled()
                if still_wanted is not None and not still_wanted():
                    raise Withdrawn()
                try:
                    return req.future.result(timeout=0.1)
                except concurrent.futures.TimeoutError:
                    waited += 0.1
                    if timeout is not None and waited >= timeout:
                        raise TimeoutError(f"no answer to {text!r} after {timeout:g} s") from None
                except concurrent.futures.CancelledError:
                    raise Cancelled() from None
        finally:
            with self._lock:
                still = self._pending.pop(req.id, None)
            if still is not None and not req.future.done():
                req.future.cancel()
                self._notify(req, "withdrawn")

    def answer(self, request_id: int, text: str) -> bool:
        with self._lock:
            req = self._pending.pop(request_id, None)
        if req is None or req.future.done():
            return False
        req.future.set_result(text)
        self._notify(req, "answered")
        return True

    def pending(self) -> list[Request]:
        with self._lock:
            return list(self._pending.values())

    def withdraw_all(self) -> None:
        with self._lock:
            reqs = list(self._pending.values())
            self._pending.clear()
        for req in reqs:
            req.future.cancel()
            self._notify(req, "withdrawn")


class RunObserver(Protocol):
    """What the runner reports, in order. Called on the runner's thread (one thread per device
    in a batch): implementations hand the data to their own thread (the TUI posts messages)
    and return quickly. Every method is optional for `ObserverList`; implement the ones you need.

    Every call about an attempt passes its `Episode`, whose `device` is the label of the
    device it runs on: that is how an observer of a batch tells the devices apart.
    """

    def on_run_started(self, run_dir: Path, total: int) -> None:
        """The run directory exists; `total` tasks are to run."""
        ...

    def on_devices(self, devices: list[str]) -> None:
        """The run's devices, by label (`Episode.device`), once open and before any attempt."""
        ...

    def on_attempt_started(self, episode: Episode) -> None: ...

    def on_step_started(self, episode: Episode, index: int) -> None: ...

    def on_screen(self, episode: Episode, index: int, screenshot: Image.Image, ui_xml: str | None) -> None:
        """What the phone shows now, as soon as the runner has it; `index` is the step that will
        see this screen (after the last step: the number of steps, and this is the final screen).

        Reported when the attempt first looks at the phone, after every action that changed
        what the device shows (before the next step waits at a pause), and when a phone that
        can change by itself (a real one) is looked at again after a pause. A step that does
        not touch the device (`ask_user`, `answer`, `finish`, a rejected action) reports none.
        """
        ...

    def on_step(self, episode: Episode, step: Step) -> None:
        """A step is complete: thought, action, memory, ask, milestones are all in `step`."""
        ...

    def on_question(self, episode: Episode, question: str, suggestion: str | None) -> None: ...

    def on_answer(self, episode: Episode, question: str, answer: str, answered_by: str) -> None: ...

    def on_milestone(self, episode: Episode, milestone_id: str, step: int) -> None: ...

    def on_state(self, episode: Episode, state: str) -> None:
        """`running`, `paused`, `waiting` (for an answer), `human` (at the controls), `disconnected`,
        `finished`."""
        ...

    def on_attempt_finished(self, episode: Episode) -> None: ...

    def on_task_finished(self, task: str, status: str) -> None: ...

    def on_run_finished(self, episodes: list[Episode]) -> None: ...


class ObserverList:
    """Fans every call out to the observers that implement it; one failing observer does not stop the run."""

    def __init__(self, observers: list[Any] | None = None) -> None:
        self.observers: list[Any] = list(observers or [])
        self.errors: list[BaseException] = []

    def add(self, observer: Any) -> None:
        self.observers.append(observer)

    def __getattr__(self, name: str) -> Callable[..., None]:
        if not name.startswith("on_"):
            raise AttributeError(name)

        def call(*args: Any, **kwargs: Any) -> None:
            for obs in self.observers:
                fn = getattr(obs, name, None)
                if fn is None:
                    continue
                try:
                    fn(*args, **kwargs)
                except Exception as err:  # an observer bug must not lose the episode
                    self.errors.append(err)

        return call
