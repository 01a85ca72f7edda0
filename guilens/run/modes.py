"""ScenDroid's run modes as an attempt applies them (`RunModes`), and the context pack of a day.

(`RunModes` also carries AndroidLens's `--anomalies RATE`, which the attempt only hands to the
device: `guilens.run.anomaly_log`.)

Three run settings (`guilens.config.Settings`, `--ask`, `--max-questions`, `--context`):
- Active or Passive (ScenDroid 4.3, Table 7): with `ask` off, `ask_user` is not offered to the
  agent and one it emits anyway is refused as an invalid action, recorded on the step, never
  reaching the user;
- the per-task clarification budget (3.3): after `max_questions` questions in an attempt a
  further `ask_user` is refused the same way, and the agent is told what is left at every step;
- Episodic or Context-Augmented (4.5): with `context` augmented, each task of a day starts with
  the context pack of the day's earlier tasks (`earlier_tasks`): ScenDroid's "(i) completed task
  history and (ii) summarized prior trajectories".

The runner hands each attempt the modes (`AttemptSpec.modes`) and, in augmented mode, the pack
(`AttemptSpec.earlier`), made from the run's record: the earlier tasks' `episode.json` and
`steps.jsonl` are what the agent did that day, and run.json's results hold the values each task
handed on. run.json states the modes too (`RunModes.record`), so a report says how a run was made.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guilens.agents.base import AgentContext, EarlierTask

if TYPE_CHECKING:
    from guilens.config import Settings
    from guilens.episode import Step
    from guilens.run.attempt import AttemptRunner
    from guilens.scenarios.model import Scenario

MAX_ACTION_LINES = 24
"""Trajectory lines kept per earlier task: its first quarter and last three quarters past this."""


@dataclass(frozen=True)
class RunModes:
    """The modes of one run (defaults: Active, no budget, Episodic)."""

    ask: bool = True
    max_questions: int | None = None
    context: str = "episodic"
    anomalies: float = 0.0
    """AndroidLens's anomalies on demand (`--anomalies RATE`): armed on the device as each attempt
    starts (`guilens.run.anomaly_log.arm_anomalies`), never looked at by the step loop."""

    @classmethod
    def of_settings(cls, settings: Settings) -> RunModes:
        return cls(ask=settings.ask == "on", max_questions=settings.max_questions, context=settings.context,
                   anomalies=settings.anomalies)

    @classmethod
    def of_record(cls, data: dict[str, Any]) -> RunModes:
        """The modes a run.json records; a run recorded before they existed ran with the defaults."""
        budget = data.get("max_questions")
        return cls(ask=data.get("ask", "on") != "off",
                   max_questions=budget if isinstance(budget, int) and budget >= 0 else None,
                   context=str(data.get("context") or "episodic"),
                   anomalies=rate if isinstance(rate := data.get("anomalies"), int | float) else 0.0)

    def record(self) -> dict[str, Any]:
        """How run.json states the modes (`ask`, `max_questions`, `context`)."""
        return {"ask": "on" if self.ask else "off", "max_questions": self.max_questions, "context": self.context,
                "anomalies": self.anomalies}

    def questions_left(self, asked: int) -> int | None:
        """Questions still allowed after `asked` (None: no budget; 0 when asking is off)."""
        if not self.ask:
            return 0
        return None if self.max_questions is None else max(0, self.max_questions - asked)

    def refusal(self, asked: int) -> str | None:
        """Why a question after `asked` earlier ones is refused, or None when it may go to the user."""
        if not self.ask:
            return "ask_user is off in this run (--ask off)"
        if self.max_questions is not None and asked >= self.max_questions:
            return f"the question budget of {self.max_questions} is spent"
        return None

    def describe(self) -> str:
        """The modes for a start line: empty for the defaults, else `ask off · max-questions 2 · context augmented`."""
        parts = ([] if self.ask else ["ask off"]) + (
            [] if self.max_questions is None else [f"max-questions {self.max_questions}"]) + (
            [] if self.context == "episodic" else [f"context {self.context}"]) + (
            [f"anomalies {self.anomalies:g}"] if self.anomalies else [])
        return " · ".join(parts)


def agent_context(run: AttemptRunner, apps: list[str]) -> AgentContext:
    """What the agent is told as `run`'s attempt starts: the task at its level, the budget, lessons and
    memory carried over, and the run's modes (in augmented mode, the day's earlier tasks)."""
    spec, modes = run.spec, run.spec.modes
    return AgentContext(
        task=spec.task, instruction=run.instruction, level=spec.level,
        screen_size=tuple(run.device.size),  # type: ignore[arg-type]
        attempt=spec.attempt, attempts=spec.attempts, budget=spec.budget, lessons=list(spec.lessons),
        ltm=[e.model_copy() for e in spec.ltm], apps=apps, seed=spec.seed, values=dict(spec.values),
        ask=modes.ask, max_questions=modes.max_questions, earlier_tasks=list(spec.earlier),
    )


def earlier_tasks(run_dir: Path, scenario: Scenario, before: int | None,
                  record: dict[str, Any]) -> list[EarlierTask]:
    """The context pack: the tasks of the day before position `before`, as this run recorded them
    (a task of the day the run did not record, such as one replayed to reach a selected task, is
    left out: the agent never did it)."""
    from guilens.episode import EpisodeError, EpisodeReader

    if before is None:
        return []
    results = record.get("results") or {}
    out: list[EarlierTask] = []
    for task in scenario.tasks[:before]:
        attempts = sorted((run_dir / task.id).glob("attempt-*"), key=_attempt_number)
        if not attempts:
            continue
        try:
            reader = EpisodeReader(attempts[-1])
        except EpisodeError:
            continue
        ep, steps = reader.episode, reader.steps
        result = results.get(task.id) or {}
        values = result.get("values") if isinstance(result.get("values"), dict) else {}
        out.append(EarlierTask(
            task=task.id, instruction=ep.instruction, outcome=str(result.get("status") or ep.status),
            answer=ep.final_answer, values={str(k): str(v) for k, v in (values or {}).items()},
            actions=_summary(steps) if steps else ([f"not run: {ep.error}"] if ep.error else []),
            clock=f"{steps[0].clock:%H:%M}" if steps and steps[0].clock is not None else None,
        ))
    return out


def _attempt_number(path: Path) -> int:
    tail = path.name.rpartition("-")[2]
    return int(tail) if tail.isdigit() else 0


def _summary(steps: list[Step]) -> list[str]:
    """One line per step, as the agent's trajectory reads: the action's description, the question
    and its answer, a rejection. A long trajectory keeps its start and its end."""
    lines = []
    for st in steps:
        what = st.action_description or (str(st.action.get("type")) if st.action else "no action")
        if st.ask is not None:
            what = f"asked {st.ask.question!r}; the user answered {st.ask.answer!r}"
        if st.error:
            what += f" (rejected: {st.error})"
        lines.append(what)
    if len(lines) <= MAX_ACTION_LINES:
        return lines
    head = MAX_ACTION_LINES // 4
    tail = MAX_ACTION_LINES - head
    return [*lines[:head], f"... {len(lines) - MAX_ACTION_LINES} steps left out ...", *lines[-tail:]]
