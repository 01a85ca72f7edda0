"""The run screen's keys that act on the run as a whole or on what it recorded: pause, step,
cancel, an anomaly now, zoom, mark, judge, replay, the last step's model calls, and leaving (back
to home, or quit).

Mixed into `RunScreen`. Leaving never abandons a runner thread: a running
episode is cancelled and waited for, so it is recorded as aborted, before the
screen goes (`stop`). Back to home and quitting each ask once first while an
episode runs; quitting asks through the app, so a replay or help opened on
top asks the same single question.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.screen import Screen

from guilens.describe import step_number
from guilens.screens.widgets.render import Mark

if TYPE_CHECKING:
    from guilens.control import QuestionChannel, RunControl
    from guilens.screens.device_pane import DevicePane
    from guilens.screens.widgets.phone import Renderer


class RunKeys(Screen[None]):
    """A part of `RunScreen`, which sets up the state below."""

    control: RunControl
    channel: QuestionChannel
    runner: Any
    settings: Any
    renderer: Renderer
    finished: bool
    finished_dirs: list[Path]
    zoomed: bool

    if TYPE_CHECKING:
        @property
        def pane(self) -> DevicePane: ...

        @property
        def panes(self) -> list[DevicePane]: ...

        @property
        def running(self) -> bool: ...

    def action_pause(self) -> None:
        paused = self.control.toggle_pause()
        self.notify("Paused: space resumes, n runs one step" if paused else "Resumed", timeout=2)

    def action_step(self) -> None:
        self.control.step_once(self.pane.label)

    def action_cancel(self) -> None:
        if self.finished:
            return
        self.control.cancel()
        self.channel.withdraw_all()
        self.notify("Cancelling the episode…", timeout=3)

    def action_anomaly(self) -> None:
        """Show an anomaly on the phone in view now (AndroidLens's ad, permission dialog, low battery,
        crash): chosen here, asked of the run's control, shown by the step loop between steps."""
        pane = self.pane
        label = pane.label or ""
        if label.startswith("adb"):
            self.notify(f"{label} is a real phone: guilens cannot draw an anomaly over its apps (the sim only).",
                        severity="warning", timeout=4)
            return
        from guilens.screens.anomaly_chooser import AnomalyChooser

        where = f" on {label}" if len(self.panes) > 1 and label else ""

        def chosen(kind: str | None) -> None:
            if kind:
                self.control.inject(kind, pane.label)
                when = "at the next step" if self.control.paused else "before the next step"
                self.notify(f"{kind} asked for{where}: the phone shows it {when}", timeout=3)

        self.app.push_screen(AnomalyChooser(where), chosen)

    def action_zoom(self) -> None:
        self.zoomed = not self.zoomed

    def action_mark(self) -> None:
        from guilens.screens.modals import PromptScreen

        pane = self.pane
        n = pane.steps[-1].index if pane.steps else 0  # the last step recorded (before any: the first)
        where = f" on {pane.label}" if len(self.panes) > 1 and pane.label else ""

        def done(label: str | None) -> None:
            if label:
                self.mark(label, n, pane)

        self.app.push_screen(PromptScreen(f"Mark a milestone at step {step_number(n)}{where}",
                                          placeholder="what was reached, e.g. cart open"), done)

    def mark(self, label: str, step: int, pane: DevicePane | None = None) -> None:
        pane = pane or self.pane
        annotate = getattr(self.runner, "annotate", None)
        if annotate is None:
            self.notify("This runner cannot record marks.", severity="error")
            return
        try:
            annotate(label, device=pane.label)
        except Exception as err:
            self.notify(str(err), title="Mark not recorded", severity="error")
            return
        pane.trace.add(Mark(label, step))
        self.notify(f"Marked {label!r} at step {step_number(step)}", timeout=3)

    def _last_finished(self) -> Path | None:
        """The finished attempt of the device in view, else the last of any device."""
        mine = self.pane.finished_dirs
        return mine[-1] if mine else (self.finished_dirs[-1] if self.finished_dirs else None)

    def action_judge(self) -> None:
        where = self._last_finished()
        if where is None:
            return
        from guilens.screens.judge_screen import JudgeScreen

        self.app.push_screen(JudgeScreen(where, settings=self.settings))

    def action_replay(self) -> None:
        where = self._last_finished()
        if where is None:
            return
        from guilens.screens.replay_screen import ReplayScreen

        self.app.push_screen(ReplayScreen(where, renderer=self.renderer, settings=self.settings))

    def action_llm_calls(self) -> None:
        """What the model saw and said at the last step recorded on the device in view (live)."""
        pane = self.pane
        if not pane.steps:
            self.notify("No step recorded yet: the calls show once a step ends.", timeout=3)
            return
        from guilens.screens.llm_calls import LLMCallsScreen

        where = f" on {pane.label}" if len(self.panes) > 1 and pane.label else ""
        self.app.push_screen(LLMCallsScreen(pane.steps[-1], where=where))

    # -- leaving -----------------------------------------------------------------------------------
    def run_directory(self) -> Path | None:
        """The run's directory, once the runner made it (screenshots go beside it)."""
        found = getattr(self.runner, "run_dir", None)
        return Path(found) if found else None

    async def action_quit(self) -> None:
        """The first screen: quit the app (which asks once while an episode runs)."""
        await self.app.action_quit()

    def action_back(self) -> None:
        """Opened from home: go back to it; a running episode is cancelled (and recorded) first."""
        if not self.running:
            self.dismiss()
            return
        if any(w.group == "leave" for w in self.workers):
            return  # already cancelled and on the way out
        from guilens.screens.modals import ConfirmScreen

        def answer(yes: bool | None) -> None:
            if yes:
                self._leave()

        self.app.push_screen(
            ConfirmScreen("An episode is running. Cancel it and go back?", yes="Cancel and go back",
                          no="Keep running"),
            answer,
        )

    @work(exclusive=True, group="leave")
    async def _leave(self) -> None:
        await self.stop()
        while self.app.screen is not self and self in self.app.screen_stack:
            self.app.pop_screen()  # a help or palette opened meanwhile
        if self.app.screen is self:
            self.dismiss()

    async def stop(self) -> None:
        """Cancel the episode and wait until the runner has recorded it as aborted."""
        if not self.finished:
            self.action_cancel()
        for worker in [w for w in self.workers if w.group == "episode" and w.node is self]:
            with contextlib.suppress(Exception):  # its error was already shown; leaving anyway
                await worker.wait()
