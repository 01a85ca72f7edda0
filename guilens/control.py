"""How the outside world steers a running episode and hears about it.

`RunControl` pauses, resumes, single-steps, cancels and hands the controls to
a person; `QuestionChannel` carries `ask_user` questions (and a person's
actions) to whoever answers them, one Future each; `RunObserver` is the
protocol through which the runner reports. The TUI implements the observer
with `post_message`, the headless printer with rich; none of this imports
Textual.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from PIL import Image

    from guilens.episode import Episode, Step


class Cancelled(Exception):
    """Raised inside the run loop when the episode was cancelled from outside."""


class Withdrawn(Exception):
    """Raised by `QuestionChannel.ask` when the asker stopped wanting the answer (a hand-back)."""


class RunControl:
    """Thread-safe pause / step / cancel / take-over flags, checked by the runner between steps."""

    def __init__(self, *, paused: bool = False) -> None:
        self._lock = threading.Condition()
        self._paused = paused
        self._steps_allowed = 0
        self._cancelled = False
        self._human = False
        self._listeners: list[Callable[[], None]] = []

    # -- commands ---------------------------------------------------------------------------
    def pause(self) -> None:
        with self._lock:
            self._paused = True
            self._steps_allowed = 0
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

    def step_once(self) -> None:
        """Let exactly one more step run, then stay paused."""
        with self._lock:
            self._paused = True
            self._steps_allowed += 1
            self._lock.notify_all()
        self._changed()

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            self._lock.notify_all()
        self._changed()

    def take_over(self, human: bool = True) -> None:
        with self._lock:
            self._human = human
            self._lock.notify_all()
        self._changed()

    # -- state ------------------------------------------------------------------------------
    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    @property
    def human(self) -> bool:
        return self._human

    def on_change(self, fn: Callable[[], None]) -> None:
        self._listeners.append(fn)

    def _changed(self) -> None:
        for fn in list(self._listeners):
            fn()

    # -- runner side ------------------------------------------------------------------------
    def gate(self) -> None:
        """Block while paused (unless a single step is allowed); raise `Cancelled` when cancelled."""
        with self._lock:
            while True:
                if self._cancelled:
                    raise Cancelled()
                if not self._paused:
                    return
                if self._steps_allowed > 0:
                    self._steps_allowed -= 1
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
        req = Request(kind=kind, text=text, suggestion=suggestion, context=context or {}, id=next(self._ids))
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
    """What the runner reports, in order. Called on the runner's thread: implementations hand
    the data to their own thread (the TUI posts messages) and return quickly. Every method is
    optional for `ObserverList`; implement the ones you need."""

    def on_attempt_started(self, episode: Episode) -> None: ...

    def on_step_started(self, episode: Episode, index: int) -> None: ...

    def on_screen(self, episode: Episode, index: int, screenshot: Image.Image, ui_xml: str | None) -> None: ...

    def on_step(self, episode: Episode, step: Step) -> None:
        """A step is complete: thought, action, memory, ask, milestones are all in `step`."""
        ...

    def on_question(self, episode: Episode, question: str, suggestion: str | None) -> None: ...

    def on_answer(self, episode: Episode, question: str, answer: str, answered_by: str) -> None: ...

    def on_milestone(self, episode: Episode, milestone_id: str, step: int) -> None: ...

    def on_state(self, episode: Episode, state: str) -> None:
        """`running`, `paused`, `waiting` (for an answer), `human` (at the controls), `finished`."""
        ...

    def on_attempt_finished(self, episode: Episode) -> None: ...

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
