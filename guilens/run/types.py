"""What one attempt is given and what it gives back (`AttemptSpec`, `AttemptOutcome`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guilens.episode import LTMEntry, Memory

if TYPE_CHECKING:
    from guilens.episode import Episode, Step
    from guilens.scenarios.checks import MilestoneTracker
    from guilens.scenarios.model import Scenario, Task


@dataclass
class AttemptSpec:
    """Everything one attempt needs to know that is not a live object."""

    scenario: Scenario
    task: Task
    level: str
    attempt: int
    attempts: int
    budget: int
    directory: Path
    run_id: str = ""
    values: dict[str, str] = field(default_factory=dict)
    """Values flowing from earlier tasks of a sequence."""
    lessons: list[str] = field(default_factory=list)
    ltm: list[LTMEntry] = field(default_factory=list)
    sequence_index: int | None = None
    seed: int | None = None
    want_lessons: bool = False
    """Ask the agent for lessons if this attempt fails (another attempt follows)."""


@dataclass
class AttemptOutcome:
    episode: Episode
    steps: list[Step]
    tracker: MilestoneTracker
    final_state: dict[str, Any] | None
    answer: str | None
    memory: Memory
    lessons: list[str] = field(default_factory=list)
    """New lessons the agent drew from this attempt."""

    @property
    def status(self) -> str:
        return self.episode.status


@dataclass
class Feedback:
    """What the agent is told at its next step about its last one."""

    result: str = ""
    error: str | None = None
    user_answer: str | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
