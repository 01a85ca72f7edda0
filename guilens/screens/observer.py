"""`TextualObserver`: the runner's observer protocol, delivered to the TUI as messages.

Every callback runs on the runner's thread (one per device in a batch) and
only posts a message, so the run never waits for the screen. The one piece of
real work done here is shrinking each screenshot to its device's phone view
(`prepare`), because that must happen off the event loop and the runner's
thread is the one that has the frame first.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guilens.screens import messages as m

if TYPE_CHECKING:
    from PIL import Image
    from textual.message_pump import MessagePump

    from guilens.control import QuestionChannel, Request, RunControl
    from guilens.episode import Episode, Step
    from guilens.screens.widgets.halfcell import HalfcellFrame


def _copy(episode: Episode) -> Episode:
    # The runner keeps mutating its episode; the screen gets a snapshot.
    return episode.model_copy(deep=False)


class TextualObserver:
    """Implements `guilens.control.RunObserver` by posting to `target` (the run screen)."""

    def __init__(
        self,
        target: MessagePump,
        *,
        prepare: Callable[[str, Image.Image, dict[str, Any] | None], HalfcellFrame | None] | None = None,
    ) -> None:
        self.target = target
        self.prepare = prepare
        """`prepare(device, screenshot, action)`: the frame for that device's phone view, or None."""
        self.errors: list[BaseException] = []
        self.last_action: dict[str, dict[str, Any] | None] = {}
        """Per device, the last recorded action: the phone view draws it on the next screen too."""

    def attach(self, control: RunControl | None, channel: QuestionChannel | None) -> None:
        """Forward control and question-channel changes too; both may fire on any thread."""
        if control is not None:

            def changed() -> None:
                self.target.post_message(m.ControlChanged())

            control.on_change(changed)
        if channel is not None:
            channel.on_change(self._request_changed)

    def _request_changed(self, request: Request, event: str) -> None:
        self.target.post_message(m.RequestChanged(request, event))

    # -- RunObserver ----------------------------------------------------------------------
    def on_devices(self, devices: list[str]) -> None:
        self.target.post_message(m.DevicesKnown(list(devices)))

    def on_attempt_started(self, episode: Episode, directory: Path | str | None = None) -> None:
        self.last_action[episode.device] = None
        self.target.post_message(m.AttemptStarted(_copy(episode), str(directory) if directory else None))

    def on_step_started(self, episode: Episode, index: int) -> None:
        self.target.post_message(m.StepStarted(_copy(episode), index))

    def on_screen(self, episode: Episode, index: int, screenshot: Image.Image, ui_xml: str | None) -> None:
        frame = None
        action = self.last_action.get(episode.device)
        if self.prepare is not None:
            try:
                frame = self.prepare(episode.device, screenshot, action)
            except Exception as err:  # the view prepares it itself then; never fail the run over a preview
                self.errors.append(err)
        self.target.post_message(m.ScreenCaptured(_copy(episode), index, screenshot, ui_xml, frame, action))

    def on_step(self, episode: Episode, step: Step) -> None:
        self.last_action[episode.device] = step.action
        self.target.post_message(m.StepRecorded(_copy(episode), step.model_copy(deep=True)))

    def on_question(self, episode: Episode, question: str, suggestion: str | None) -> None:
        self.target.post_message(m.QuestionAsked(_copy(episode), question, suggestion))

    def on_answer(self, episode: Episode, question: str, answer: str, answered_by: str) -> None:
        self.target.post_message(m.Answered(_copy(episode), question, answer, answered_by))

    def on_milestone(self, episode: Episode, milestone_id: str, step: int) -> None:
        self.target.post_message(m.MilestoneReached(_copy(episode), milestone_id, step))

    def on_state(self, episode: Episode, state: str) -> None:
        self.target.post_message(m.StateChanged(_copy(episode), state))

    def on_attempt_finished(self, episode: Episode) -> None:
        self.target.post_message(m.AttemptFinished(_copy(episode)))

    def on_run_finished(self, episodes: list[Episode]) -> None:
        self.target.post_message(m.RunFinished([_copy(e) for e in episodes]))

    def __getattr__(self, name: str) -> Callable[..., None]:
        # Newer runner callbacks (on_run_started, on_task_finished, ...) become trace notes
        # rather than errors, so the TUI keeps working when the runner grows.
        if not name.startswith("on_"):
            raise AttributeError(name)

        def forward(*args: Any, **kwargs: Any) -> None:
            data = {f"arg{i}": a for i, a in enumerate(args)} | kwargs
            self.target.post_message(m.RunnerEvent(name, data))

        return forward
