"""What one attempt is given and what it gives back (`AttemptSpec`, `AttemptOutcome`), and the
one place a task's `{templates}` get their values for a run (`template_values`, `instruction_for`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guilens.agents.base import EarlierTask
from guilens.episode import LTMEntry, Memory
from guilens.run.modes import RunModes

if TYPE_CHECKING:
    from guilens.episode import Episode, Step
    from guilens.scenarios.checks import MilestoneTracker
    from guilens.scenarios.model import Scenario, Task


def template_values(task: Task, flows: dict[str, str] | None = None) -> dict[str, str]:
    """Every value the run fills a task's `{name}` templates with: the user's slots (the L0 intent
    states them; at L1/L2 the user gives them when asked) under the values flowing from earlier
    tasks of a sequence. The live checks, the recorded instruction and the judge all use this,
    and `episode.json` records it (`values`) so a later edit to the pack cannot change it."""
    return {**task.user.values, **(flows or {})}


def instruction_for(task: Task, level: str, flows: dict[str, str] | None = None) -> str:
    """The instruction the agent is given (and the episode records) at `level`.

    Filled at every level, as `guilens scenarios verify` reads it: a template in
    the text stands for something the user says (an L1/L2 text leaves out what the
    user is to be asked rather than templating it), so no `{name}` reaches the agent.
    """
    return task.instruction_at(level, template_values(task, flows))


def jsonable(raw: Any) -> Any:
    """What an agent emitted, as JSON the step line can hold (`action_raw`), whatever it was."""
    if raw is None or isinstance(raw, str | int | float | bool | list | dict):
        return raw
    dump = getattr(raw, "model_dump", None)
    if callable(dump):
        return dump(exclude_none=True)
    return repr(raw)


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
    modes: RunModes = field(default_factory=RunModes)
    """ScenDroid's modes of the run (`--ask`, `--max-questions`, `--context`)."""
    earlier: list[EarlierTask] = field(default_factory=list)
    """The context pack, in `--context augmented`: the day's earlier tasks as this run recorded them."""


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


@dataclass
class TaskResult:
    task: str
    status: str
    """`success` if any attempt succeeded, else the last attempt's status (or `blocked`)."""
    attempts: list[Episode] = field(default_factory=list)
    first_success: int | None = None
    values: dict[str, str] = field(default_factory=dict)
    """Values this task handed on (sequences)."""
    last: AttemptOutcome | None = field(default=None, repr=False)
    """The last attempt's outcome (final state and answer: where a sequence's values come from)."""


@dataclass
class RunResult:
    run_dir: Path
    tasks: dict[str, TaskResult]
    cancelled: bool = False
    interrupted: bool = False
    """Stopped by Ctrl-C (the CLI exits 130)."""

    @property
    def episodes(self) -> list[Episode]:
        return [ep for r in self.tasks.values() for ep in r.attempts]

    @property
    def succeeded(self) -> int:
        return sum(1 for r in self.tasks.values() if r.status == "success")
