"""A run's report: its episodes read into metric records, then tables, JSON or HTML.

An attempt's outcome is its verdict's decision when the judge decided it,
otherwise what the runner recorded (success; failure, timeout and blocked as
failures). Aborted, interrupted and errored attempts with no verdict are
undecided: left out of the rates and counted, never silently made failures.

Time is reported by who spent it: the agent per step it decided, a person per
step they decided (take-overs, `--agent human`), the user per answer, the
device per step, and the wall time per step (MemGUI-Bench's Time/Step) apart
from them all. The person and user figures appear only where a run has them.
Episodes recorded before the split (schema 1) have no person time, and their
user time is left out where a person acted (it held the acting time too).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guilens.episode import Episode, EpisodeError, EpisodeReader, Step, find_episodes
from guilens.judge.metrics import EpisodeRecord, MilestoneRecord, compute, difficulty_name, max_attempt
from guilens.judge.metrics_progress import attempt_progress
from guilens.judge.verdict import Verdict

STATUS_OUTCOME = {"success": True, "failure": False, "timeout": False, "blocked": False}


@dataclass
class EpisodeRow:
    """One attempt as the report shows it."""

    record: EpisodeRecord
    dir: Path
    outcome_source: str
    verdict: Verdict | None
    instruction: str = ""
    agent: str = ""
    screens: list[str] = field(default_factory=list)
    final_screen: str | None = None
    episode: Episode | None = None
    """The episode as recorded, and its steps below: what the HTML report's trajectory pages show."""
    steps: list[Step] = field(default_factory=list)


@dataclass
class RunReport:
    root: Path
    run: dict[str, Any]
    rows: list[EpisodeRow]
    problems: list[str]

    @property
    def records(self) -> list[EpisodeRecord]:
        return [r.record for r in self.rows]

    @property
    def k(self) -> int:
        """Attempts per task: what `run.json` says, else the most any task of the report was given."""
        k = self.run.get("k") or self.run.get("attempts")
        return int(k) if isinstance(k, int) and k > 0 else max(1, max_attempt(self.records))

    def metrics(self) -> dict[str, Any]:
        from guilens.judge.report_days import by_day

        m = compute(self.records, k=self.k)
        days = by_day(self.records)
        if days:  # a sequence: its days, as a week's user reads it
            m["by_day"] = days
        return m

    def failure_modes(self) -> dict[str, Any]:
        """Failed attempts by MemGUI-Bench failure mode, overall and by task property."""
        from guilens.judge.failure_summary import summarise

        return summarise(self.records)

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "root": str(self.root),
            "metrics": self.metrics(),
            "failure_modes": self.failure_modes(),
            "episodes": [row_json(r) for r in self.rows],
            "problems": self.problems,
        }


def _read_verdict(reader: EpisodeReader) -> Verdict | None:
    path = reader.dir / "verdict.json"
    if not path.is_file():
        return None
    try:
        return Verdict.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError:
        return None


def _steps_taken(step: int | None) -> int | None:
    """A milestone reached by step i's action took i + 1 agent steps."""
    return None if step is None else step + 1


def _milestone_records(task: Any, reader: EpisodeReader, verdict: Verdict | None) -> tuple[MilestoneRecord, ...]:
    if task is None:
        return ()
    spec = {m.id: m for m in task.all_milestones()}
    # a path's milestones carry their node and path, and wait for what the node waits for
    where = {m.id: (a, p.id) for a in task.alternatives() for p in a.any_of for m in p.milestones}

    def graph(mid: str) -> dict[str, Any]:
        a, path = where.get(mid, (None, None))
        deps = tuple(spec[mid].depends_on) + (tuple(a.depends_on) if a is not None else ())
        return {"depends_on": deps, "alternative": a.id if a is not None else None, "path": path}

    if verdict is not None and verdict.milestones:
        states = {s.id: s for s in verdict.milestones}
        return tuple(
            MilestoneRecord(id=m.id, reached=states[m.id].reached if m.id in states else None,
                            agent_steps=_steps_taken(states[m.id].step if m.id in states else None),
                            golden_step=m.golden_step,
                            flexible=m.kind == "flexible", **graph(m.id))
            for m in spec.values()
        )
    ep = reader.episode
    live = {h.id: h.step for h in ep.milestones}
    finished = ep.status in ("success", "failure", "timeout", "blocked")
    out = []
    for m in spec.values():
        if m.id in live:
            reached: bool | None = True
        elif finished and ep.device.startswith("sim") and m.check is not None:
            reached = False  # the runner's live rules watched it all along and never saw it
        else:
            reached = None
        out.append(MilestoneRecord(id=m.id, reached=reached, agent_steps=_steps_taken(live.get(m.id)),
                                   golden_step=m.golden_step,
                                   flexible=m.kind == "flexible", **graph(m.id)))
    return tuple(out)


def _irr_of(verdict: Verdict | None, status: str) -> tuple[float | None, str | None]:
    """The attempt's IRR and the method that gave it (the verdict's IRR stage); a blocked task never
    ran, so its IRR is 0 (an early failure) judged or not."""
    if verdict is not None and verdict.irr is not None:
        stage = next((s for s in verdict.stages if s.stage == "irr"), None)
        return verdict.irr, (stage.details.get("method") if stage is not None else None)
    if status == "blocked":
        return 0.0, "blocked"
    return None, None


def episode_row(directory: Path) -> EpisodeRow:
    from guilens.judge.inputs import resolve_task
    from guilens.judge.report_days import DAY_KEY, episode_day

    reader = EpisodeReader(directory)
    ep = reader.episode
    scenario, task, _, _ = resolve_task(reader)
    verdict = _read_verdict(reader)
    if verdict is not None and verdict.decision != "undecided":
        success: bool | None = verdict.decision == "success"
        source = f"judge:{verdict.decided_by}"
    else:
        success = STATUS_OUTCOME.get(ep.status)
        source = f"status:{ep.status}"
    split = ep.schema_version >= 2  # time booked by who spent it (person apart from user)
    irr, irr_method = _irr_of(verdict, ep.status)
    record = EpisodeRecord(
        task=ep.task,
        attempt=ep.attempt,
        success=success,
        scenario=ep.scenario,
        difficulty=task.difficulty if task is not None else None,
        apps=len(task.apps) if task is not None else 1,
        memory=task is not None and task.memory != "none",
        golden_steps=task.golden_steps if task is not None else None,
        steps=ep.steps,
        human_steps=ep.human_steps,
        duration_s=ep.timings.duration_s,
        agent_s=ep.timings.agent_s,
        person_s=ep.timings.person_s if split else None,
        user_s=ep.timings.user_s if split or not ep.human_steps else None,
        device_s=ep.timings.device_s,
        agent_cost_usd=ep.cost_usd,
        agent_tokens=ep.tokens.input_tokens + ep.tokens.output_tokens,
        judge_cost_usd=verdict.usage.cost_usd if verdict is not None else 0.0,
        judge_tokens=(verdict.usage.input_tokens + verdict.usage.output_tokens) if verdict is not None else 0,
        judge_duration_s=verdict.duration_s if verdict is not None else None,
        judged=verdict is not None,
        user_turns=ep.user_turns,
        milestones=_milestone_records(task, reader, verdict),
        irr=irr,
        irr_method=irr_method,
        path=str(directory),
        status=ep.status,
        decided_by=verdict.decided_by if verdict is not None else None,
        failure_mode=verdict.failure_mode if verdict is not None else None,
        memory_kind=task.memory if task is not None else "none",
    )
    day = episode_day(scenario, task, reader.steps[0].clock if reader.steps and ep.sequence_index is not None else None)
    if day is not None:
        record.extra[DAY_KEY] = day
    screens = [s.screen for s in reader.steps if s.screen]
    return EpisodeRow(record=record, dir=Path(directory), outcome_source=source, verdict=verdict,
                      instruction=ep.instruction, agent=ep.agent, screens=screens, final_screen=ep.final_screen,
                      episode=ep, steps=list(reader.steps))


def load_report(root: str | Path) -> RunReport:
    """Read every attempt under a run (or task) directory; unreadable ones become `problems`."""
    root = Path(root)
    run: dict[str, Any] = {}
    for cand in (root / "run.json", root.parent / "run.json"):
        if cand.is_file():
            try:
                run = json.loads(cand.read_text(encoding="utf-8"))
            except ValueError:
                run = {}
            break
    rows, problems = [], []
    for d in find_episodes(root):
        try:
            rows.append(episode_row(d))
        except EpisodeError as err:
            problems.append(str(err))
    rows.sort(key=lambda r: (r.record.scenario, r.record.task, r.record.attempt))
    return RunReport(root=root, run=run, rows=rows, problems=problems)


def row_json(row: EpisodeRow) -> dict[str, Any]:
    r = row.record
    return {
        "path": r.path,
        "scenario": r.scenario,
        "task": r.task,
        "attempt": r.attempt,
        "success": r.success,
        "outcome_source": row.outcome_source,
        "status": r.status,
        "decided_by": r.decided_by,
        "difficulty": difficulty_name(r.difficulty),
        "apps": r.apps,
        "memory": r.memory,
        "steps": r.steps,
        "human_steps": r.human_steps,
        "golden_steps": r.golden_steps,
        "duration_s": r.duration_s,
        "agent_s": r.agent_s,
        "person_s": r.person_s,
        "user_s": r.user_s,
        "device_s": r.device_s,
        "agent_cost_usd": r.agent_cost_usd,
        "judge_cost_usd": r.judge_cost_usd,
        "user_turns": r.user_turns,
        "milestones": [{"id": m.id, "reached": m.reached, "agent_steps": m.agent_steps} for m in r.milestones],
        "progress": (attempt_progress(r)  # ATP's term: an alternatives node counts once
                     if r.milestones and all(m.reached is not None for m in r.milestones) else None),
        "irr": r.irr,
        "irr_method": r.irr_method,
        "failure_mode": r.failure_mode,
        "failure_steps": row.verdict.failure_steps if row.verdict is not None else [],
        "reason": row.verdict.reason if row.verdict is not None else "",
        "warnings": row.verdict.warnings if row.verdict is not None else [],
    }
