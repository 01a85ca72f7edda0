"""What the judge writes next to an episode: `verdict.json`.

One `StageResult` per stage that was asked for, in pipeline order, whether it
ran, was skipped (no API key, nothing to judge, already decided) or failed;
then the final decision and the stage that made it. Step numbers everywhere are
the episode's own 0-based step indexes (`screens/NNNN.png`); the final screen,
taken after the last action, is number `steps`.

Changing a field's meaning or removing one needs a `VERDICT_SCHEMA_VERSION` bump:
the report, the TUI's replay screen and people's scripts read these files.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from guilens.episode import Usage
from guilens.storage import write_atomic

VERDICT_SCHEMA_VERSION = 1

StageName = Literal["rules", "milestones", "triage", "describe", "semantic", "visual", "irr", "failure_mode"]
StageStatus = Literal["decided", "undecided", "skipped", "error", "done"]
"""`decided`: the stage reached a certain success/failure. `undecided`: it ran and could not
(triage's Uncertain, a semantic -1, malformed output after retries). `done`: an analysis stage
(descriptions, IRR, the failure mode) that ran to completion without deciding anything. `skipped`: it did not run,
and `reason` says why. `error`: it broke, and `reason` says how."""
Decision = Literal["success", "failure"]
FinalDecision = Literal["success", "failure", "undecided"]

STAGE_ORDER: tuple[str, ...] = ("rules", "milestones", "triage", "describe", "semantic", "visual", "irr",
                                 "failure_mode")
GROUPS: dict[str, tuple[str, ...]] = {
    "rules": ("rules",),
    "milestones": ("milestones",),
    "scrutiny": ("triage", "describe", "semantic", "visual"),
    "irr": ("irr",),
    "failure_mode": ("failure_mode",),
}
"""What `--stages` names: progressive scrutiny is one group of four stages."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow")


class StageRun(_Model):
    """An earlier run of a stage in the same judgement. A stage runs again when a later one needs it
    (IRR asks for step descriptions that progressive scrutiny could not make); the stage's own fields
    hold its last run, and the runs before it stay here, so a failure is not overwritten by a success."""

    status: StageStatus
    reason: str = ""
    purpose: str = ""
    """What asked for this run: `scrutiny` (its own place in the pipeline) or a later stage (`irr`)."""
    calls: int = 0
    usage: Usage = Field(default_factory=Usage)
    duration_s: float = 0.0


class StageResult(_Model):
    stage: StageName
    status: StageStatus
    decision: Decision | None = None
    """Set only when `status` is `decided`."""
    raw: Any = None
    """What the stage itself said, before mapping: `Success`/`Uncertain`, 1/0/-1, a milestone list."""
    reason: str = ""
    steps: list[int] = Field(default_factory=list)
    """The steps whose screens or records this stage looked at."""
    usage: Usage = Field(default_factory=Usage)
    """Tokens and dollars this stage spent (cached calls cost nothing)."""
    calls: int = 0
    """Model calls made, cached ones included."""
    cached_calls: int = 0
    model: str | None = None
    prompt: str | None = None
    """Prompt file and version, e.g. `triage@1`."""
    duration_s: float = 0.0
    details: dict[str, Any] = Field(default_factory=dict)
    """Stage-specific evidence: milestone states, step descriptions, required steps, IRR units, repairs."""
    errors: list[str] = Field(default_factory=list)
    """Every error the stage met in this judgement, in any of its runs, one line each: the stage
    breaking (`status` error) or part of it (one step's description). A verdict with errors is
    never reused: judging again retries what failed."""
    runs: list[StageRun] = Field(default_factory=list)
    """The stage's earlier runs in this judgement, oldest first (empty when it ran once). `usage`,
    `calls` and `errors` above count every run."""

    def rerun(self, earlier: StageResult) -> StageResult:
        """This run of the stage, keeping `earlier` (and the runs before it) on the record."""
        purpose = str(earlier.details.get("for") or "")
        if not purpose:
            purpose = "irr" if earlier.stage == "irr" else "scrutiny"
        before = StageRun(status=earlier.status, reason=earlier.reason, purpose=purpose, calls=earlier.calls,
                          usage=earlier.usage, duration_s=earlier.duration_s)
        return self.model_copy(update={
            "runs": [*earlier.runs, before, *self.runs],
            "errors": [*earlier.errors, *self.errors],
            "usage": earlier.usage + self.usage,
            "calls": earlier.calls + self.calls,
            "cached_calls": earlier.cached_calls + self.cached_calls,
        })


class MilestoneState(_Model):
    id: str
    text: str = ""
    reached: bool | None = None
    """None: no stage could tell."""
    step: int | None = None
    """The step whose action completed it, as the runner records live hits (0-based; a milestone
    already met before any action counts at step 0). Agent steps to reach it: `step + 1`."""
    screen: int | None = None
    """The screen it is first seen complete on (`screen = step + 1`, or 0 if met from the start)."""
    flexible: bool = False
    by: Literal["rules", "milestones", "live"] | None = None


class Verdict(_Model):
    """The judgement of one attempt directory. Field order is for people reading the file; keep it."""

    schema_version: int = VERDICT_SCHEMA_VERSION
    task: str = ""
    scenario: str = ""
    attempt: int = 1
    run_id: str = ""
    decision: FinalDecision = "undecided"
    decided_by: StageName | None = None
    reason: str = ""
    milestones: list[MilestoneState] = Field(default_factory=list)
    progress: float | None = None
    """Fraction of the task's milestones reached (this episode's contribution to ATP)."""
    irr: float | None = None
    """Information retention rate, 0..1, for memory tasks (1.0 on success)."""
    failure_mode: str | None = None
    """MemGUI-Bench's failure mode of a failed attempt (`guilens.judge.failure_mode.MODES`), None when
    it succeeded, is undecided, or could not be classified (the `failure_mode` stage says why)."""
    failure_steps: list[int] = Field(default_factory=list)
    """The steps the failure mode blames: the key failure point first, then the steps of its evidence."""
    stages: list[StageResult] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    """Things a reader should know: the task definition changed since the run, a damaged file."""
    task_source: str = ""
    """Where the task definition came from: the run's own copy, or the scenario it names."""
    usage: Usage = Field(default_factory=Usage)
    """The judge's total spend on this episode."""
    duration_s: float = 0.0
    model: str | None = None
    stages_requested: list[str] = Field(default_factory=list)
    key: str = ""
    """Content hash of the episode files, the task, the stage configuration and the prompt versions.
    A verdict whose key matches is reused as is: re-judging an unchanged episode costs nothing."""
    judged_at: datetime | None = None
    guilens_version: str = ""
    _reused: bool = PrivateAttr(default=False)

    @property
    def reused(self) -> bool:
        """This verdict was read back from disk, its key matching: judging it cost nothing."""
        return self._reused

    def disagreements(self) -> list[StageResult]:
        """Stages that decided otherwise than the final decision (`--all-stages` runs the LLM judges
        even where the rules decided, to show exactly this)."""
        if self.decision == "undecided":
            return []
        return [s for s in self.stages if s.status == "decided" and s.decision != self.decision]

    def stage(self, name: str) -> StageResult | None:
        for s in self.stages:
            if s.stage == name:
                return s
        return None


def save_verdict(directory: Path, verdict: Verdict) -> Path:
    """Write `verdict.json` into an attempt directory, atomically (several judges may write at once:
    the temporary file is this process's own). Raises `StorageError` naming the file; a failed write
    leaves neither a temporary file nor a torn verdict."""
    path = Path(directory) / "verdict.json"
    write_atomic(path, verdict.model_dump_json(indent=2), unique=True)
    return path


def register_schemas(schema_kind: Any) -> None:
    """Hook for `guilens schema verdict` (looked up by `guilens.commands.core`)."""

    @schema_kind("verdict")
    def _verdict() -> dict[str, Any]:
        return Verdict.model_json_schema()
