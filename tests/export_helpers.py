"""A person, simulated: drives the human agent along a task's reference, with one detour.

The person answers the run's `action` requests with the commands a person types
(`tap #7` from the element list, `tap 540 1200` on the phone view, `tap
"New note"`, `type ...`, `back`), computed from the task's reference on the
screen the runner last showed. Somewhere along the way they press back and
return to where they were (the detour), at a point found beforehand on a
simulated phone where back and the same step again leave the phone exactly as
it was; and once, on a screen they had not seen before, they mark a milestone
(`m`) with a label of their own.
"""

from __future__ import annotations

import re
import threading
from datetime import datetime
from typing import Any

from guilens.actions import Answer, AskUser, Finish, KeyPress, LongPress, OpenApp, Swipe, Tap, Type, Wait
from guilens.device.base import Observation
from guilens.device.uitree import actionable_elements
from guilens.scenarios.model import Scenario, Task
from guilens.scenarios.spec_reference import OpenStep, TapStep, step_to_data

MARK = "new screen"
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b")


def detoured(task: Task, k: int) -> Task:
    """The task with `back` and reference step `k` again inserted after step `k`."""
    steps = [step_to_data(s) for s in task.reference]
    data = task.model_dump(mode="json", by_alias=True, exclude_none=True)
    data["reference"] = [*steps[: k + 1], "back", steps[k], *steps[k + 1:]]
    return Task.model_validate(data)


def _fingerprint(device: Any) -> tuple[str, str]:
    state = {k: v for k, v in device.state().items() if k not in ("clock", "step")}
    return repr(sorted(state.items(), key=lambda kv: kv[0])), _CLOCK.sub("HH:MM", device.observe().ui_xml or "")


def _play(task: Task, device: Any, values: dict[str, str], stop_after: int | None = None) -> Any:
    """Play the reference at L0 on `device`; return the player (stopped after reference step `stop_after`)."""
    from guilens.scenarios.reference import ReferencePlayer

    player = ReferencePlayer(task, "L0", values)
    while True:
        ra = player.next_step(device.observe())
        if ra is None:
            return player
        if isinstance(ra.action, AskUser):
            player.answered(task.user.answer(ra.action.question) or "")
        elif not isinstance(ra.action, Answer | Finish):
            device.act(ra.action)
        if stop_after is not None and ra.index >= stop_after or player.done:
            return player


def find_detour(task: Task, device: Any, values: dict[str, str]) -> int:
    """A reference step after which back + the same step again changes nothing, and the task still succeeds."""
    from guilens.scenarios.reference import ReferenceError, run_reference

    snap = device.snapshot()
    kinds = [(0 if isinstance(s, TapStep) else 1, i) for i, s in enumerate(task.reference)
             if isinstance(s, TapStep | OpenStep) and i > 0]
    try:
        for _, k in sorted(kinds):
            device.restore(snap)
            _play(task, device, values, stop_after=k)
            before = _fingerprint(device)
            trial = detoured(task, k)
            device.restore(snap)
            try:
                _play(trial, device, values, stop_after=k + 2)
            except ReferenceError:  # back went somewhere the step cannot be done again from
                continue
            if _fingerprint(device) != before:
                continue
            device.restore(snap)
            if run_reference(trial, device, "L0", values=values).ok:
                return k
    finally:
        device.restore(snap)
    raise AssertionError(f"task {task.id!r}: no step of its reference can be left and come back to")


def plan_detours(scenario: Scenario) -> dict[str, Task]:
    """Each task of a scenario with its detour, found on a simulated phone set up as a run would be."""
    from guilens.device.sim import SimDevice
    from guilens.scenarios.checks import extract_value
    from guilens.scenarios.reference import run_reference

    out: dict[str, Task] = {}
    if scenario.kind == "tasks":
        for t in scenario.tasks:
            out[t.id] = detoured(t, find_detour(t, SimDevice(setup=scenario.setup_for(t)), {}))
        return out
    device = SimDevice(setup=scenario.setup)
    values: dict[str, str] = {}
    for t in scenario.tasks:
        when = scenario.when(t)
        if when is not None:
            device.set_clock(when)
        out[t.id] = detoured(t, find_detour(t, device, dict(values)))
        run = run_reference(t, device, "L0", values=dict(values))
        for name, src in t.outputs.items():
            got = extract_value(src, device.state(), run.answer)
            values[name] = got if got is not None else src.expected
    return out


class Person:
    """Observer and question-channel listener: the person at the keyboard (see the module docstring)."""

    def __init__(self, tasks: dict[str, Task], channel: Any) -> None:
        self.tasks = tasks
        self.channel = channel
        self.runner: Any = None
        self.errors: list[str] = []
        self.marked: dict[str, int] = {}
        """Task id -> the step (from 1) the person marked."""
        self.detour_done: dict[str, bool] = {}
        self._player: Any = None
        self._task: Task | None = None
        self._obs: Observation | None = None
        self._seen: set[str] = set()
        self._steps = 0
        self._lock = threading.Lock()
        channel.on_change(self._on_request)

    # -- observer ------------------------------------------------------------------------------------
    def on_attempt_started(self, episode: Any) -> None:
        from guilens.scenarios.reference import ReferencePlayer

        self._task = self.tasks[episode.task]
        self._player = ReferencePlayer(self._task, "L0", dict(episode.values))
        self._seen = set()
        self._steps = 0

    def on_screen(self, episode: Any, index: int, screenshot: Any, ui_xml: str | None) -> None:
        self._obs = Observation(screenshot=screenshot, ui_xml=ui_xml, app="", clock=datetime.now(),
                                size=tuple(screenshot.size))

    def on_answer(self, episode: Any, question: str, text: str, answered_by: str) -> None:
        self._player.answered(text)

    def on_step(self, episode: Any, step: Any) -> None:
        self._steps = step.index + 1

    # -- the person ----------------------------------------------------------------------------------
    def _on_request(self, req: Any, event: str) -> None:
        if event != "opened" or req.kind != "action":
            return
        try:
            if req.context.get("error"):
                raise AssertionError(f"step {self._steps + 1}: {req.context['error']}")
            self._maybe_mark()
            command = self._command()
        except Exception as err:  # the run goes on to the next task; the test reads `errors`
            assert self._task is not None
            self.errors.append(f"{self._task.id}: {err}")
            command = "finish failure"
        self.channel.answer(req.id, command)

    def _maybe_mark(self) -> None:
        """Mark the first screen, past the first few steps, that the person has not seen before."""
        assert self._obs is not None and self._task is not None
        shown = _CLOCK.sub("HH:MM", self._obs.ui_xml or "")
        fresh = shown not in self._seen
        self._seen.add(shown)
        if fresh and self._steps >= 3 and self._task.id not in self.marked and self.runner.annotate(MARK):
            self.marked[self._task.id] = self._steps

    def _command(self) -> str:
        obs = self._obs
        assert obs is not None and obs.ui is not None
        ra = self._player.next_step(obs)
        if ra is None:
            return "finish"
        a = ra.action
        n = self._steps
        match a:
            case Tap() | LongPress():
                verb = "tap" if isinstance(a, Tap) else "long"
                return self._pointed(verb, a, ra.target, n % 3)
            case Type():
                return f"type {a.text}"
            case KeyPress():
                return a.key
            case OpenApp():
                return f"open {a.app}"
            case Wait():
                return f"wait {a.seconds:g}"
            case AskUser():
                return f"ask {a.question}"
            case Answer():
                return f"answer {a.text}"
            case Finish():
                return f"finish {a.status}"
            case Swipe():
                return f"swipe {a.x1} {a.y1} {a.x2} {a.y2}"
        raise AssertionError(f"no command for {a!r}")

    def _pointed(self, verb: str, a: Tap | LongPress, selector: str | None, how: int) -> str:
        """The three ways a person points: the element list, the phone view's pixels, a text."""
        from guilens.run.resolve import resolve_action

        obs = self._obs
        assert obs is not None and obs.ui is not None and a.x is not None and a.y is not None
        elements = actionable_elements(obs.ui)
        under = [i for i, n in enumerate(elements) if n.bounds[0] <= a.x < n.bounds[2] and n.bounds[1] <= a.y < n.bounds[3]]
        if how == 1 or not under:
            return f"{verb} {a.x} {a.y}"
        if how == 2 and selector and '"' not in selector:
            cls = Tap if verb == "tap" else LongPress
            _, target = resolve_action(cls(target=selector), obs)
            box = (target or {}).get("bounds")
            if box and box[0] <= a.x < box[2] and box[1] <= a.y < box[3] and box == list(elements[under[-1]].bounds):
                return f'{verb} "{selector}"'
        return f"{verb} #{under[-1]}"
