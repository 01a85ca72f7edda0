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
- 3: new actions. A step's `action` may be a `scroll` (`direction`, and a point
  or element), a `type` with `clear` (and then possibly empty `text`), or a
  `key` `delete`. Schema 2 actions are all still valid as written.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 3

Status = Literal["running", "success", "failure", "timeout", "error", "aborted", "interrupted", "blocked"]
FINAL_STATUSES = ("success", "failure", "timeout", "error", "aborted", "interrupted", "blocked")


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)


class Retry(_Model):
    """One model call that had to be made again, and why: kept so faults are visible, not just survived."""

    kind: Literal["api", "repair"]
    """`api`: the API failed the request (rate limit, overload, server error, no answer in time, a reply
    cut short or unreadable) and it was sent again as it was, or, the last time, given up on. `repair`:
    the model's reply had no valid tool call or JSON, and it was told what was wrong and asked again. Every
    such reply is one entry; the last, when no tries are left, is not sent back, and the step's `error`
    (or the judge stage's `undecided`) says so."""
    cause: str
    """What went wrong, in one line: `HTTP 529 overloaded_error: Overloaded`, `no answer within 30 s`,
    `HTTP 200 but the body was cut short (...)`, `no act tool call in the reply`."""
    role: str = ""
    """Whose call it was: `agent`, `user` or `judge`."""
    wait_s: float | None = None
    """How long guilens waited before sending an `api` retry."""


class Usage(_Model):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    retries: list[Retry] = Field(default_factory=list)
    """Every retry and repair the calls behind this usage needed, in order; empty when all went well.
    A sum (the episode's `tokens`, a judge stage's `usage`) holds the retries of its parts."""

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            cost_usd=round(self.cost_usd + other.cost_usd, 8),
            retries=[*self.retries, *other.retries],
        )


class LLMCall(_Model):
    """One model call as it went over the wire: what the server was sent and what it answered, so an
    agent can be debugged by reading its prompt and its raw reply.

    `request` is the body as sent (the provider's own shape: Messages API or chat completions), with
    each image's base64 replaced by a reference (`{"ref": "screens/0003.png", "width", "height",
    "bytes", "media_type", "sha256"}`) rather than copied; every text in it is the text the server
    received. `reply` is the body of the answering HTTP 200 exactly as received. No API key or auth
    header is ever part of either."""

    role: str = ""
    """Whose call: `agent`, `user`, `judge`."""
    provider: str = ""
    """`anthropic` or `openai` (any OpenAI-compatible server)."""
    model: str = ""
    base_url: str | None = None
    """Where it went (without any user:password or query); None: the provider's default."""
    started_at: datetime | None = None
    duration_s: float = 0.0
    """From the first try to the reply, retries and their waits included."""
    request: dict[str, Any] = Field(default_factory=dict)
    reply: str | None = None
    """The raw reply body; for a cache hit, the stored reply as JSON (`cached` is then true)."""
    status: int | None = None
    request_id: str | None = None
    cached: bool = False
    repair: bool = False
    """The call tells the model what was wrong with its previous reply and asks again."""
    retries: list[Retry] = Field(default_factory=list)
    """The tries that failed before this one answered, each with its cause."""
    usage: Usage = Field(default_factory=Usage)
    """Tokens (always) and dollars (see `cost_known`)."""
    cost_known: bool = True
    """False when no price is known for the model: `usage.cost_usd` is then 0, not a figure."""


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
    strategy: str = ""
    """The memory design that kept this (`com`, `actions`, `action-thought`, `multiturn`, `none`);
    empty for agents that do not say (the oracle, plug-ins)."""
    history: list[str] = Field(default_factory=list)
    """The history lines the model was given this step, oldest first (`actions`, `action-thought`)."""
    images: list[int] = Field(default_factory=list)
    """The steps (0-based indices) whose screenshots the request carried, current one last (`multiturn`)."""
    screen_info: str = ""
    """Chain-of-Memory's ScreenInfo for this step: the task-relevant information read off the screen."""


class Ask(_Model):
    question: str
    answer: str | None = None
    answered_by: Literal["oracle", "llm", "human", "none"] | str = "none"
    suggested: str | None = None
    """What the simulated user proposed when a person answered instead."""
    usage: Usage | None = None
    """What the simulated user's answer cost (an llm user); kept apart from the agent's usage."""
    llm_calls: list[LLMCall] = Field(default_factory=list)
    """The llm user's model calls for this answer, as sent and received (see `LLMCall`)."""


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


class DeviceGap(_Model):
    """A time the phone was gone during a step (a cable pulled, an emulator or bridge restarted),
    and how it ended. Kept on the step so the record shows where the run stood still and why,
    rather than a gap in the timestamps nobody can explain."""

    started_at: datetime
    ended_at: datetime
    seconds: float
    message: str
    """What the device said went wrong: `adb:SERIAL disconnected while tapping (now offline)`."""
    during: str = ""
    """The device call it cut short: `act`, `observe`, `state`, ..."""
    outcome: Literal["back", "lost"] = "back"
    """`back`: the phone answered again and the step went on; `lost`: it did not come back within
    the run's `disconnect_wait_s`, and the attempt ended `error`."""
    on_key: bool = False
    """A person pressed the resume key (rather than the run noticing by itself that the phone answers)."""
    retried: bool | None = None
    """Whether the interrupted request was sent again: True for reads, and for an action that surely
    never reached the phone; False for an action that may have been performed (it is not repeated)."""

    def describe(self) -> str:
        """One line for people: the trace, the replay, the headless printer."""
        how = {"back": "back on a key" if self.on_key else "back", "lost": "did not come back"}[self.outcome]
        again = ""
        if self.outcome == "back" and self.retried is not None:
            again = ", the request was sent again" if self.retried else ", the action was not sent again"
        return f"phone gone {self.seconds:.1f} s ({self.message}); {how}{again}"


class StepAnomaly(_Model):
    """An anomaly (AndroidLens: an ad, a permission dialog, low battery, an app crash) on the step
    whose screen first showed it (`appeared`), or on the step whose action resolved it (`resolved`)."""

    kind: str
    """`ad`, `permission`, `battery` or `crash`."""
    event: Literal["appeared", "resolved"]
    app: str = ""
    """The app it showed over (`launcher` for a battery warning on the home screen)."""
    source: str = ""
    """Where it came from: `setup` (the task's), `rate` (the run's `--anomalies`), `injected` (a key in the TUI)."""
    how: str | None = None
    """On `resolved`: how (`closed`, `deny`, `allow`, `dismissed`, `battery_saver`, `closed_app`, `app_info`)."""

    def describe(self) -> str:
        """One line for people: the replay's step detail, the HTML report."""
        where = f" over {self.app}" if self.app else ""
        if self.event == "appeared":
            return f"{self.kind} anomaly appeared{where}" + (f" ({self.source})" if self.source else "")
        return f"{self.kind} anomaly resolved: {self.how or 'gone'}"


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
    gaps: list[DeviceGap] = Field(default_factory=list)
    """Times the phone was gone during this step, in order (see `DeviceGap`); its time is in the
    step's `timings.device_s`. Empty when the phone stayed."""
    llm_calls: list[LLMCall] = Field(default_factory=list)
    """Every model call the agent made for this step, repairs included, as sent and received (see
    `LLMCall`); the user's are on `ask`. Empty for agents without a model, and in older episodes."""
    anomalies: list[StepAnomaly] = Field(default_factory=list)
    """Anomalies that appeared on this step's screen or that this step's action resolved (see
    `StepAnomaly`). Empty on most steps, and in episodes recorded before anomalies were recorded."""


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
