"""The episode's data models: what `episode.json` and each line of `steps.jsonl` hold.

These are the contract scripts and other people's tools read (`guilens schema
episode|step` prints them, attribute docstrings included), kept apart from the
code that writes and reads the files (`guilens.episode`: Recorder,
EpisodeReader), which re-exports every name here.

Changing a field's meaning or removing one needs a `SCHEMA_VERSION` bump;
adding an optional field does not. History:
- 1: the first format.
- 2: time split by who spent it. Steps carry `timings` (agent, person, user,
  device); the episode's `Timings.person_s` is new, and `Timings.user_s` now
  holds only the user's answering (in schema 1 it also held a person's acting
  during a take-over, and `agent_s` held `--agent human`'s time).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 2

Status = Literal["running", "success", "failure", "timeout", "error", "aborted", "interrupted", "blocked"]
FINAL_STATUSES = ("success", "failure", "timeout", "error", "aborted", "interrupted", "blocked")


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)


class Usage(_Model):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            cost_usd=round(self.cost_usd + other.cost_usd, 8),
        )


class LTMEntry(_Model):
    app: str
    """The app the fact was read in; CoM replaces entries within an app and appends across apps."""
    content: str
    step: int


class Memory(_Model):
    stm: list[str] = Field(default_factory=list)
    """Short-term memory, oldest first: what the last actions did (CoM action results)."""
    ltm: list[LTMEntry] = Field(default_factory=list)
    """Long-term memory: app-tagged facts kept across the episode."""
    lessons: list[str] = Field(default_factory=list)
    """Lessons carried from earlier attempts (pass@k)."""


class Ask(_Model):
    question: str
    answer: str | None = None
    answered_by: Literal["oracle", "llm", "human", "none"] | str = "none"
    suggested: str | None = None
    """What the simulated user proposed when a person answered instead."""
    usage: Usage | None = None
    """What the simulated user's answer cost (an llm user); kept apart from the agent's usage."""


class StepTimings(_Model):
    """Where one step's time went, in seconds, by who spent it.

    Kept apart because they mean different things: the agent's time is what
    the agent costs per step, a person's is how long a human expert took to
    choose (a baseline), the user's is a simulated or real user thinking, and
    the device's is the phone. `ended_at - started_at` is their sum plus the
    runner's own work (checks, recording).
    """

    agent_s: float = 0.0
    """The agent deciding (its `step` call). Zero on a person's step."""
    person_s: float = 0.0
    """A person choosing the action: a take-over, or `--agent human`."""
    user_s: float = 0.0
    """The user answering this step's `ask_user` (oracle, llm, or a person as the user)."""
    device_s: float = 0.0
    """The phone: performing the action, the screen and UI tree after it, app state for the checks."""


class Step(_Model):
    """One step: what the agent saw, thought and did, and what came of it."""

    index: int
    started_at: datetime
    ended_at: datetime
    screen: str | None = None
    """Path of the screenshot the agent saw, relative to the attempt directory."""
    ui: str | None = None
    app: str = ""
    clock: datetime | None = None
    thought: str = ""
    action: dict[str, Any] | None = None
    """The action as performed (pixels), in the JSON form of `guilens.actions`."""
    action_raw: Any = None
    """What the agent emitted, before parsing and target resolution."""
    target: dict[str, Any] | None = None
    """The element an element-targeted action resolved to: number, selector, label, bounds."""
    action_description: str = ""
    action_result: str = ""
    """CoM: what the previous action did, as the agent put it."""
    memory: Memory = Field(default_factory=Memory)
    ask: Ask | None = None
    milestones: list[str] = Field(default_factory=list)
    """Ids of milestones first reached at this step."""
    usage: Usage = Field(default_factory=Usage)
    by: Literal["agent", "human"] = "agent"
    error: str | None = None
    annotations: list[str] = Field(default_factory=list)
    """Labels a person marked at this step (milestones for golden paths)."""
    device_result: str = ""
    """What the device reported doing."""
    state: str | None = None
    """Path of the app state the live checks read at this step (sim only); may repeat the previous
    step's path when the phone did not change."""
    timings: StepTimings | None = None
    """Where this step's time went. None in episodes recorded before schema 2, whose steps
    have only `started_at` and `ended_at`."""


class MilestoneHit(_Model):
    id: str
    step: int
    """The step whose action reached it (0-based)."""
    text: str = ""
    by: Literal["rules", "human"] = "rules"
    """`human` when a person marked it reached (`m` in the TUI) rather than a check deciding it."""


class Timings(_Model):
    """The attempt's time, by who spent it. The buckets cover the steps (the sums of the steps'
    `timings`) and also what ran outside them: the device's set-up before the first step and
    its re-reads after a pause."""

    started_at: datetime
    ended_at: datetime | None = None
    duration_s: float | None = None
    """Wall time from start to end, pauses included."""
    agent_s: float = 0.0
    """The agent deciding. Schema 1 counted `--agent human`'s time here."""
    device_s: float = 0.0
    """The phone: acting, observing, reading app state (waits for a disconnected phone included)."""
    user_s: float = 0.0
    """The user answering `ask_user`. Schema 1 also counted a person's take-over time here."""
    person_s: float = 0.0
    """A person choosing actions: a take-over, or every step of `--agent human` (schema 2)."""
    runner_s: float | None = None
    """The runner's own work (checks, observers, step records), for overhead measurements."""
    record_s: float | None = None
    """Time the step loop spent handing frames to the recorder."""
    drain_s: float | None = None
    """Time spent at the end waiting for the recorder to write what was still queued."""


class Episode(_Model):
    """What ran and how it ended. Field order matters for people reading the file; keep it."""

    schema_version: int = SCHEMA_VERSION
    run_id: str = ""
    task: str
    scenario: str = ""
    sequence_index: int | None = None
    instruction: str = ""
    level: Literal["L0", "L1", "L2"] = "L0"
    attempt: int = 1
    attempts: int = 1
    agent: str = ""
    model: str | None = None
    user: str = ""
    device: str = ""
    screen_size: tuple[int, int] | None = None
    budget: int | None = None
    status: Status = "running"
    finish_status: Literal["success", "failure"] | None = None
    """What the agent claimed when it finished; `status` is what guilens decided."""
    final_answer: str | None = None
    steps: int = 0
    tokens: Usage = Field(default_factory=Usage)
    cost_usd: float = 0.0
    milestones: list[MilestoneHit] = Field(default_factory=list)
    milestones_total: int = 0
    user_turns: int = 0
    human_steps: int = 0
    timings: Timings
    error: str | None = None
    error_detail: str | None = None
    """The traceback of an unexpected error, for bug reports (the end of it)."""
    state_error: str | None = None
    """Why the final app state could not be read, when it could not."""
    decided_by: Literal["rules", "agent"] | None = None
    """Whether `status` came from the task's rules or, where rules cannot decide, the agent's claim."""
    outcome_reason: str | None = None
    final_screen: str | None = None
    final_state: str | None = None
    """Path of the device's app state at the end (sim only), for the rules judge."""
    lessons: list[str] = Field(default_factory=list)
    """Lessons this attempt was given from earlier attempts (pass@k)."""
    lessons_learned: list[str] = Field(default_factory=list)
    """Lessons the agent drew from this attempt for the next one."""
    lessons_error: str | None = None
    values: dict[str, str] = Field(default_factory=dict)
    """Every value the task's templates were filled with: the user's slots and, in a sequence,
    values handed on by earlier tasks. The judge fills templates with exactly these."""
    pid: int | None = None
    host: str | None = None
