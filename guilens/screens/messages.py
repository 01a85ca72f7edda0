"""What the runner's thread tells the TUI, as typed messages.

`TextualObserver` turns each `RunObserver` callback into one of these and posts
it to the run screen (`post_message` is thread-safe). Screens arrive far more
often than anything else and only the newest matters, so `ScreenCaptured`
replaces an older one of the same device still waiting in the queue. Every
message about an attempt carries its episode, whose `device` says which of
the run's devices it concerns. Episodes are copied when posted: the runner
keeps mutating its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from PIL import Image

    from guilens.control import Request
    from guilens.episode import Episode, Step
    from guilens.screens.widgets.halfcell import HalfcellFrame


@dataclass
class DevicesKnown(Message):
    """The run's devices by label (`RunObserver.on_devices`): one pane each."""

    devices: list[str]


@dataclass
class AttemptStarted(Message):
    episode: Episode
    directory: str | None = None
    """The attempt directory, when the runner says where it writes."""


@dataclass
class StepStarted(Message):
    episode: Episode
    index: int


@dataclass
class ScreenCaptured(Message):
    episode: Episode
    index: int
    image: Image.Image
    ui_xml: str | None
    frame: HalfcellFrame | None = None
    """The screen already shrunk for the phone view, on the runner's thread."""
    action: dict[str, Any] | None = None
    """The last action, drawn on this screen (the frame has it drawn already)."""

    def can_replace(self, message: Message) -> bool:
        # Only the same device's older screen: another phone's is news in its own pane.
        return isinstance(message, ScreenCaptured) and message.episode.device == self.episode.device


@dataclass
class StepRecorded(Message):
    episode: Episode
    step: Step


@dataclass
class QuestionAsked(Message):
    episode: Episode
    question: str
    suggestion: str | None


@dataclass
class Answered(Message):
    episode: Episode
    question: str
    answer: str
    answered_by: str


@dataclass
class MilestoneReached(Message):
    episode: Episode
    milestone_id: str
    step: int


@dataclass
class StateChanged(Message):
    episode: Episode | None
    state: str


@dataclass
class AttemptFinished(Message):
    episode: Episode


@dataclass
class RunFinished(Message):
    episodes: list[Episode]


@dataclass
class RequestChanged(Message):
    """A question or action request opened, was answered or was withdrawn (`QuestionChannel.on_change`)."""

    request: Request
    event: str


@dataclass
class ControlChanged(Message):
    """Pause, step, cancel or take-over changed (`RunControl.on_change`); the screen re-reads the flags."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ControlChanged)


@dataclass
class RunnerEvent(Message):
    """Anything else an observer method reports that the screen may show (a note in the trace)."""

    name: str
    data: dict[str, Any]
