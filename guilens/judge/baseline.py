"""A human baseline set against agent runs of the same tasks.

MemGUI-Bench takes human step counts as its golden reference and AndroidLens
builds its milestones from annotators' paths: a baseline session (`guilens
baseline`) records a person doing each task. This report puts, per task, the
person's attempt beside each agent run's first attempt: success, steps, the
person's steps as the golden reference (the agent's steps over the person's),
time per step (the person's acting time; the agent's deciding time) and
milestones reached. Runs are read with the report's own loader, so the
figures are the ones `guilens report` shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guilens.judge.records import EpisodeRecord
from guilens.judge.report import RunReport, load_report


@dataclass(frozen=True)
class Side:
    """One run's attempt at a task, as the baseline report shows it."""

    run: str
    agent: str
    record: EpisodeRecord | None
    """The attempt: the person's (their last), or an agent run's first (pass@1); None when that run
    does not have the task."""

    @property
    def success(self) -> bool | None:
        return self.record.success if self.record is not None else None

    @property
    def steps(self) -> int | None:
        return self.record.steps if self.record is not None else None

    @property
    def milestones(self) -> tuple[int, int]:
        """(reached, total) of the task's milestones in this attempt."""
        if self.record is None:
            return 0, 0
        ms = self.record.milestones
        return sum(1 for m in ms if m.reached), len(ms)

    def seconds_per_step(self, person: bool) -> float | None:
        """The person's acting time per step they took, or the agent's deciding time per agent step."""
        r = self.record
        if r is None:
            return None
        if person:
            return r.person_s / r.human_steps if r.person_s is not None and r.human_steps else None
        return r.agent_s / r.agent_steps if r.agent_s is not None and r.agent_steps else None


@dataclass(frozen=True)
class Row:
    scenario: str
    task: str
    golden_steps: int | None
    """The task's own golden steps (its reference), for comparison with the person's."""
    person: Side
    agents: list[Side] = field(default_factory=list)

    def ratio(self, side: Side) -> float | None:
        """The agent's steps over the person's, on tasks both completed (MemGUI's step ratio with the
        person's path as golden)."""
        p, a = self.person.steps, side.steps
        if not (self.person.success and side.success and p and a):
            return None
        return a / p


@dataclass
class BaselineReport:
    person_run: RunReport
    agent_runs: list[RunReport]
    rows: list[Row]

    def summary(self) -> dict[str, Any]:
        """Success rate, mean step ratio against the person, and time per step, per side."""
        def rate(sides: list[Side]) -> float | None:
            known = [s.success for s in sides if s.success is not None]
            return sum(known) / len(known) if known else None

        def mean(values: list[float | None]) -> float | None:
            vals = [v for v in values if v is not None]
            return round(sum(vals) / len(vals), 3) if vals else None

        person = [r.person for r in self.rows]
        out: dict[str, Any] = {"person": {
            "run": _run_id(self.person_run), "tasks": len(self.rows), "success_rate": rate(person),
            "steps": sum(s.steps or 0 for s in person),
            "golden_steps": sum(r.golden_steps or 0 for r in self.rows),
            "seconds_per_step": mean([s.seconds_per_step(True) for s in person]),
        }, "agents": []}
        for i, run in enumerate(self.agent_runs):
            sides = [r.agents[i] for r in self.rows]
            out["agents"].append({
                "run": _run_id(run), "agent": sides[0].agent if sides else "",
                "tasks": sum(1 for s in sides if s.record is not None), "success_rate": rate(sides),
                "step_ratio_vs_person": mean([r.ratio(r.agents[i]) for r in self.rows]),
                "seconds_per_step": mean([s.seconds_per_step(False) for s in sides]),
            })
        return out

    def to_json(self) -> dict[str, Any]:
        def side(s: Side, row: Row, person: bool) -> dict[str, Any]:
            reached, total = s.milestones
            return {"run": s.run, "agent": s.agent, "present": s.record is not None, "success": s.success,
                    "status": s.record.status if s.record is not None else None, "steps": s.steps,
                    "milestones_reached": reached, "milestones_total": total,
                    "seconds_per_step": s.seconds_per_step(person),
                    **({} if person else {"step_ratio_vs_person": row.ratio(s)})}

        return {"summary": self.summary(), "tasks": [
            {"scenario": r.scenario, "task": r.task, "golden_steps": r.golden_steps,
             "person": side(r.person, r, True), "agents": [side(a, r, False) for a in r.agents]}
            for r in self.rows]}


def _run_id(report: RunReport) -> str:
    return str(report.run.get("run_id") or report.root.name)


def _agent(report: RunReport) -> str:
    return str(report.run.get("agent") or (report.rows[0].agent if report.rows else "agent"))


def _pick(report: RunReport, person: bool) -> dict[tuple[str, str], EpisodeRecord]:
    """Per task: a person's last attempt (a baseline session runs one), an agent run's first."""
    out: dict[tuple[str, str], EpisodeRecord] = {}
    for row in report.rows:
        rec = row.record
        cur = out.get(rec.key)
        if cur is None or (rec.attempt > cur.attempt if person else rec.attempt < cur.attempt):
            out[rec.key] = rec
    return out


def compare(person_run: Path | str, agent_runs: list[Path | str]) -> BaselineReport:
    """The baseline in `person_run` against each of `agent_runs` (run directories)."""
    person = load_report(person_run)
    agents = [load_report(p) for p in agent_runs]
    theirs = [_pick(a, person=False) for a in agents]
    names = [_agent(a) for a in agents]
    rows = []
    for key, rec in sorted(_pick(person, person=True).items()):
        rows.append(Row(
            scenario=key[0], task=key[1], golden_steps=rec.golden_steps,
            person=Side(_run_id(person), _agent(person), rec),
            agents=[Side(_run_id(a), names[i], theirs[i].get(key)) for i, a in enumerate(agents)],
        ))
    return BaselineReport(person, agents, rows)


def print_baseline(report: BaselineReport, console: Any = None) -> None:
    """The table people read: one row per task, the person first, then each agent run."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()

    def outcome(s: Side) -> str:
        if s.record is None:
            return "[dim]not run[/]"
        if s.success is None:
            return f"[yellow]{s.record.status}[/]"
        return "[green]success[/]" if s.success else f"[red]{s.record.status or 'failure'}[/]"

    def secs(v: float | None) -> str:
        return f"{v:.1f}s" if v is not None else "–"

    table = Table(title=f"Baseline: {_run_id(report.person_run)} (a person) against "
                        f"{len(report.agent_runs)} agent run(s)", title_justify="left")
    table.add_column("task")
    table.add_column("golden", justify="right")
    table.add_column("person", justify="left")
    table.add_column("steps", justify="right")
    table.add_column("s/step", justify="right")
    table.add_column("milestones", justify="right")
    for i, run in enumerate(report.agent_runs):
        table.add_column(f"{_agent(run)} #{i + 1}", justify="left")
        table.add_column("steps ×person", justify="right")
        table.add_column("milestones", justify="right")
    for r in report.rows:
        p = r.person
        reached, total = p.milestones
        cells = [r.task, str(r.golden_steps or "–"), outcome(p), str(p.steps if p.steps is not None else "–"),
                 secs(p.seconds_per_step(True)), f"{reached}/{total}"]
        for a in r.agents:
            ar, at = a.milestones
            ratio = r.ratio(a)
            cells += [outcome(a), f"{a.steps} ({ratio:.2f}×)" if ratio is not None else str(a.steps or "–"),
                      f"{ar}/{at}" if a.record is not None else "–"]
        table.add_row(*cells)
    console.print(table)
    s = report.summary()
    p = s["person"]

    def pct(v: float | None) -> str:
        return f"{v:.0%}" if v is not None else "–"

    console.print(f"person: success {pct(p['success_rate'])} over {p['tasks']} task(s), {p['steps']} steps "
                  f"(golden {p['golden_steps']}), {secs(p['seconds_per_step'])} of acting per step")
    for a in s["agents"]:
        ratio = a["step_ratio_vs_person"]
        console.print(f"{a['agent']} ({a['run']}): success {pct(a['success_rate'])} over {a['tasks']} task(s), "
                      f"steps {f'{ratio:.2f}×' if ratio is not None else '–'} the person's on tasks both did, "
                      f"{secs(a['seconds_per_step'])} of deciding per step")
