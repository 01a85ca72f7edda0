"""Waiting for a phone that went away mid-run, and knowing when it is back.

A pulled cable, an emulator or a bridge restarted, `adb` dropping a network
device: the device raises `DeviceDisconnected`, and rather than failing the
attempt (and then every task after it, on a phone that is back seconds later)
the run waits:
- it pauses the run (`RunControl.pause`), says so (`announce("disconnected")`,
  with the device's message in the episode's `error` while it waits), and asks
  the device `alive()` every `POLL_S` seconds (a device without `alive()` can
  only be resumed by a person);
- the phone answers again: the run resumes by itself (if it was this wait that
  paused it and no other device is still waiting);
- a person resumes the run (the resume key, Enter headless): the phone is
  asked at once; if it is still gone the run pauses again and keeps waiting;
- `wait_s` passes: `DeviceLost`, and the caller ends the attempt `error`.

Each wait is kept as a `DeviceGap` (start, end, seconds, the device's message,
how it ended), which the step loop records on the step it interrupted.

Why the run is paused, not just this device's call held: a person watching
must see at once that the run stands still and why, and the resume key they
know (space in the TUI) is the way to say "it is plugged back, go on". Several
devices may wait at once; the run resumes when the last of them is back.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from guilens.control import RunControl
from guilens.device.base import DeviceDisconnected, DeviceLost
from guilens.episode_model import DeviceGap

if TYPE_CHECKING:
    from guilens.run.store import RunRecord

T = TypeVar("T")

POLL_S = 0.5
"""How often a waiting run asks the phone whether it answers again."""
_TICK_S = 0.05
"""How often the wait looks at the control (a resume key, a cancel) between polls."""

_waiting: weakref.WeakKeyDictionary[RunControl, set[str]] = weakref.WeakKeyDictionary()
"""Per run (its control): the devices waiting now, so one coming back does not resume the run for another."""
_lock = threading.Lock()


def message_of(err: BaseException) -> str:
    """What a device error says, without its `fix` (which `str()` appends)."""
    return str(err.args[0]) if err.args else str(err)


def seconds_text(s: float) -> str:
    return f"{s:g} s" if s < 120 else f"{s / 60:g} min"


class DeviceWait:
    """Waits for one device of a run. `announce(state, message)` tells the people watching:
    `disconnected` with what the device said and how long the run waits, then `running` when
    it goes on (the attempt reports these as observer states)."""

    def __init__(
        self,
        device: Any,
        control: RunControl,
        *,
        label: str,
        wait_s: float,
        announce: Callable[[str, str], None] = lambda state, message: None,
        poll_s: float = POLL_S,
    ) -> None:
        self.device = device
        self.control = control
        self.label = label
        self.wait_s = wait_s
        self.announce = announce
        self.poll_s = poll_s
        self._we_paused = False

    def wait(self, err: DeviceDisconnected, during: str, gaps: list[DeviceGap]) -> DeviceGap:
        """Block until the device is back (returns the gap, also appended to `gaps`); `DeviceLost`
        when it is not back within `wait_s` (the gap, `lost`, is appended all the same);
        `Cancelled` if the run is cancelled meanwhile."""
        started, t0 = datetime.now().astimezone(), time.monotonic()
        said = message_of(err)
        if self.wait_s <= 0:
            gaps.append(self._gap(said, during, started, t0, "lost"))
            raise DeviceLost(f"{said}; the run does not wait for it (disconnect_wait_s is 0)",
                             performed=err.performed) from None
        with _lock:
            _waiting.setdefault(self.control, set()).add(self.label)
        self._we_paused = not self.control.paused
        self.control.pause()
        how = f" ({err.fix})" if err.fix else ""
        self.announce("disconnected", f"{said}; waiting up to {seconds_text(self.wait_s)} for it to answer again{how}")
        try:
            on_key = self._until_back(t0)
        except DeviceLost:
            gaps.append(self._gap(said, during, started, t0, "lost"))
            raise DeviceLost(f"{said}, and did not come back within {seconds_text(self.wait_s)}",
                             performed=err.performed) from None
        finally:
            with _lock:
                others = _waiting.get(self.control, set())
                others.discard(self.label)
                last = not others
        if self._we_paused and last and self.control.paused and not self.control.cancelled:
            self.control.resume()
        gap = self._gap(said, during, started, t0, "back", on_key=on_key)
        gaps.append(gap)
        self.announce("running", gap.describe())
        return gap

    def _until_back(self, t0: float) -> bool:
        """Poll until the device answers: True if a person's resume asked for it, False if the run
        noticed by itself. `DeviceLost` past the deadline; `Cancelled` from the control."""
        alive = getattr(self.device, "alive", None)
        deadline = t0 + self.wait_s
        next_poll = time.monotonic() + min(self.poll_s, 0.2)  # a bridge restarting answers within a second
        while True:
            self.control.check()
            now = time.monotonic()
            if not self.control.paused:  # resumed by a person: ask the phone now
                if alive is None or alive():
                    return True
                self.control.pause()  # still gone: keep waiting, and say so again
                self._we_paused = True  # the person wants the run going: it resumes once the phone is back
                self.announce("disconnected", f"{self.label} still does not answer; waiting "
                                              f"{seconds_text(max(0.0, round(deadline - now)))} more")
                next_poll = now + self.poll_s
            elif alive is not None and now >= next_poll:
                if alive():
                    return False
                next_poll = time.monotonic() + self.poll_s
            if time.monotonic() >= deadline:
                raise DeviceLost(self.label)
            time.sleep(_TICK_S)

    def _gap(self, said: str, during: str, started: datetime, t0: float, outcome: str,
             *, on_key: bool = False) -> DeviceGap:
        return DeviceGap(
            started_at=started, ended_at=datetime.now().astimezone(), seconds=round(time.monotonic() - t0, 3),
            message=said, during=during, outcome=outcome, on_key=on_key,  # type: ignore[arg-type]
        )


class GonePhones:
    """The run's side of waiting: phones gone while a task is set up (no episode yet, so the
    news goes to run.json's warnings), and the phones that did not come back at all."""

    def __init__(self, control: RunControl, wait_s: float) -> None:
        self.control = control
        self.wait_s = wait_s
        self.record: RunRecord | None = None
        """run.json, once the run has one."""
        self.lost: dict[str, DeviceLost] = {}
        """Phones (by label) that went away and did not come back: they get no more tasks."""

    def _warn(self, text: str) -> None:
        if self.record is not None:
            self.record.warn(text)

    def set_up(self, device: Any, label: str, what: str, fn: Callable[[], T]) -> T:
        """`fn()`, a set-up call on the phone (reset steps, snapshot, clock): a phone that goes away
        meanwhile is waited for as mid-episode, and `fn` made again from its start once it is back
        (set-up is repeatable). `DeviceLost`, also kept in `lost`, if it does not come back."""
        while True:
            try:
                return fn()
            except DeviceLost:
                raise
            except DeviceDisconnected as err:
                gaps: list[DeviceGap] = []
                wait = DeviceWait(device, self.control, label=label, wait_s=self.wait_s,
                                  announce=lambda state, text: self._warn(f"{label}: {what}: {text}")
                                  if state == "disconnected" else None)
                try:
                    wait.wait(err, what, gaps)
                except DeviceLost as lost:
                    self.mark_lost(label, lost)
                    raise
                self._warn(f"{label}: {what}: {gaps[-1].describe()}")

    def mark_lost(self, label: str, lost: DeviceLost) -> None:
        """A phone that did not come back: it gets no more tasks, and run.json says why."""
        if label not in self.lost:
            self.lost[label] = lost
            self._warn(f"{label}: {message_of(lost)}: it gets no more tasks (another phone of the run takes what is left, if there is one)")
