"""The run screen's half that listens to the runner: each observer message goes to the pane of
the device it is about (`Episode.device`), which updates its panels.

Mixed into `RunScreen`. Handlers are found by name (`on_step_recorded` for
`messages.StepRecorded`), which Textual looks up along the class's MRO. They
are coroutines because a device the screen has not seen yet gets its pane
first (`add_pane` completes asynchronously), and the message after it must
find that pane mounted.
"""

from __future__ import annotations

import functools
import inspect
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import TabbedContent

from guilens.screens import messages as m
from guilens.screens.device_pane import DevicePane

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from guilens.control import Request
    from guilens.episode import Episode
    from guilens.screens.widgets.phone import Renderer


F = TypeVar("F", bound="Callable[..., Any]")


def live(handler: F) -> F:
    """Skip a runner message that lands while the screen is going away: a cancelled run keeps
    reporting (aborted, finished) for a moment after the person quit."""

    @functools.wraps(handler)
    async def wrapper(self: Screen[None], *args: Any) -> None:
        if not self.is_mounted or not self.is_attached:
            return
        try:
            result = handler(self, *args)
            if inspect.isawaitable(result):
                await result
        except NoMatches:  # a panel already removed: the screen is closing
            if self.is_attached:
                raise

    return wrapper  # type: ignore[return-value]


class RunnerFeed(Screen[None]):
    """A part of `RunScreen`, which sets up the state below."""

    renderer: Renderer
    dir_lookup: Callable[[Episode], Path | None] | None
    task_lookup: Callable[[Episode], Any] | None
    finished_dirs: list[Path]
    pending: dict[int, Request]
    zoomed: bool
    created_panes: list[DevicePane]
    _asking: int | None

    if TYPE_CHECKING:
        @property
        def pane(self) -> DevicePane: ...

        @property
        def panes(self) -> list[DevicePane]: ...

        def _update_state(self) -> None: ...

        def _set_finished(self) -> None: ...

        def _close_question(self) -> None: ...

        def _several_devices(self) -> None: ...

        def open_question(self, req: Request) -> None: ...

        def open_next_task(self, req: Request) -> None: ...

        def close_next_task(self, req: Request) -> None: ...

        def human_request_opened(self, req: Request) -> None: ...

    # -- which pane --------------------------------------------------------------------------
    def new_pane(self, label: str | None) -> DevicePane:
        pane = DevicePane(self.renderer, label=label, id=f"device-{len(self.created_panes) + 1}",
                          task_lookup=self.task_lookup, dir_lookup=self.dir_lookup, zoomed=self.zoomed)
        self.created_panes = [*self.created_panes, pane]  # a new list: the runner's thread may be reading the old
        return pane

    async def pane_for(self, label: str | None) -> DevicePane:
        """The pane of the device called `label`: the first pane takes the first name it hears
        (a runner that never lists its devices), a device not seen before gets a new tab."""
        panes = self.panes
        for pane in panes:
            if pane.label == label:
                return pane
        unnamed = next((p for p in panes if p.label is None), None)
        if unnamed is not None or label is None:
            pane = unnamed or panes[0]
            if label is not None:
                pane.label = label
            return pane
        pane = self.new_pane(label)
        await self.query_one("#devices", TabbedContent).add_pane(pane)
        self._several_devices()
        return pane

    def pane_of_request(self, req: Request) -> DevicePane:
        """Whose request: the device that asked, else the device running the task it names, else
        the pane in view (a runner that does not say which device asks)."""
        panes = self.panes
        for pane in panes:
            if req.device is not None and pane.label == req.device:
                return pane
        task = (req.context or {}).get("task")
        for pane in panes:
            if task is not None and pane.episode is not None and pane.episode.task == task:
                return pane
        return panes[0] if len(panes) == 1 else self.pane

    def _feed(self, msg: Any, apply: Callable[[DevicePane], Any]) -> Awaitable[None]:
        async def go() -> None:
            pane = await self.pane_for(msg.episode.device if msg.episode is not None else None)
            apply(pane)

        return go()

    # -- the runner's messages ---------------------------------------------------------------------
    @live
    async def on_devices_known(self, msg: m.DevicesKnown) -> None:
        for label in msg.devices:
            await self.pane_for(label)
        self._update_state()

    @live
    async def on_attempt_started(self, msg: m.AttemptStarted) -> None:
        await self._feed(msg, lambda pane: pane.attempt_started(msg))
        self._update_state()

    @live
    def on_step_started(self, msg: m.StepStarted) -> Awaitable[None]:
        return self._feed(msg, lambda pane: pane.step_started(msg))

    @live
    def on_screen_captured(self, msg: m.ScreenCaptured) -> Awaitable[None]:
        return self._feed(msg, lambda pane: pane.screen_captured(msg))

    @live
    def on_step_recorded(self, msg: m.StepRecorded) -> Awaitable[None]:
        return self._feed(msg, lambda pane: pane.step_recorded(msg))

    @live
    def on_question_asked(self, msg: m.QuestionAsked) -> Awaitable[None]:
        return self._feed(msg, lambda pane: pane.question_asked(msg))

    @live
    def on_answered(self, msg: m.Answered) -> Awaitable[None]:
        return self._feed(msg, lambda pane: pane.answered(msg))

    @live
    def on_milestone_reached(self, msg: m.MilestoneReached) -> Awaitable[None]:
        return self._feed(msg, lambda pane: pane.milestone_reached(msg))

    @live
    async def on_state_changed(self, msg: m.StateChanged) -> None:
        def apply(pane: DevicePane) -> None:
            pane.runner_state = msg.state

        await self._feed(msg, apply)
        self._update_state()

    @live
    async def on_attempt_finished(self, msg: m.AttemptFinished) -> None:
        def apply(pane: DevicePane) -> None:
            where = pane.attempt_finished(msg)
            if where is not None:
                self.finished_dirs.append(where)

        await self._feed(msg, apply)
        self._update_state()

    @live
    def on_run_finished(self, msg: m.RunFinished) -> None:
        self._set_finished()
        if msg.episodes:
            several = len(self.panes) > 1
            outcomes = ", ".join(f"{e.task}#{e.attempt}" + (f" on {e.device}" if several else "") + f": {e.status}"
                                 for e in msg.episodes)
            self.notify(outcomes, title="Run finished", timeout=8)

    @live
    def on_runner_event(self, msg: m.RunnerEvent) -> None:
        pass  # runner callbacks the screen has no panel for

    @live
    def on_control_changed(self, msg: m.ControlChanged) -> None:
        self._update_state()

    @live
    def on_request_changed(self, msg: m.RequestChanged) -> None:
        req = msg.request
        if msg.event == "opened":
            self.pending[req.id] = req
            if req.kind == "question":
                self.open_question(req)
            elif req.kind == "start":
                self.open_next_task(req)
            else:
                self.human_request_opened(req)
        else:
            self.pending.pop(req.id, None)
            if req.kind == "question" and self._asking == req.id:
                self._close_question()
            elif req.kind == "start" and msg.event == "withdrawn":
                self.close_next_task(req)
        self._update_state()
