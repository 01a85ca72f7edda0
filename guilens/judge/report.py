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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guilens.episode import Episode, EpisodeError, EpisodeReader, Step, find_episodes
from guilens.judge.metrics import EpisodeRecord, MilestoneRecord, compute, difficulty_name, max_attempt
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
        return compute(self.records, k=self.k)

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "root": str(self.root),
            "metrics": self.metrics(),
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
    if verdict is not None and verdict.milestones:
        states = {s.id: s for s in verdict.milestones}
        return tuple(
            MilestoneRecord(id=m.id, reached=states[m.id].reached if m.id in states else None,
                            agent_steps=_steps_taken(states[m.id].step if m.id in states else None),
                            golden_step=m.golden_step,
                            flexible=m.kind == "flexible", depends_on=tuple(m.depends_on))
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
                                   flexible=m.kind == "flexible", depends_on=tuple(m.depends_on)))
    return tuple(out)


def episode_row(directory: Path) -> EpisodeRow:
    from guilens.judge.inputs import resolve_task

    reader = EpisodeReader(directory)
    ep = reader.episode
    _, task, _, _ = resolve_task(reader)
    verdict = _read_verdict(reader)
    if verdict is not None and verdict.decision != "undecided":
        success: bool | None = verdict.decision == "success"
        source = f"judge:{verdict.decided_by}"
    else:
        success = STATUS_OUTCOME.get(ep.status)
        source = f"status:{ep.status}"
    split = ep.schema_version >= 2  # time booked by who spent it (person apart from user)
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
        irr=verdict.irr if verdict is not None else None,
        path=str(directory),
        status=ep.status,
        decided_by=verdict.decided_by if verdict is not None else None,
    )
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
        "progress": (sum(1 for m in r.milestones if m.reached) / len(r.milestones)
                     if r.milestones and all(m.reached is not None for m in r.milestones) else None),
        "irr": r.irr,
        "reason": row.verdict.reason if row.verdict is not None else "",
        "warnings": row.verdict.warnings if row.verdict is not None else [],
    }


# --- terminal ------------------------------------------------------------------------------------


def _pct(m: dict[str, Any]) -> str:
    return "n/a" if m.get("value") is None else f"{100 * m['value']:.1f}%"


def _secs(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}s"


def _num(m: dict[str, Any], fmt: str = "{:.2f}") -> str:
    return "n/a" if m.get("value") is None else fmt.format(m["value"])


HEADLINE: list[tuple[str, str, str]] = [
    ("sr", "SR (pass@1)", "pct"),
    ("sr_memory", "SR, memory tasks", "pct"),
    ("sr_standard", "SR, standard tasks", "pct"),
    ("frr", "FRR", "pct"),
    ("irr", "IRR (memory tasks)", "pct"),
    ("mtpr", "MTPR", "ratio"),
    ("atp", "ATP", "pct"),
    ("msr", "MSR", "ratio"),
    ("step_ratio", "Step ratio (successes)", "ratio"),
    ("agent_time_per_step_s", "Agent s/step", "sec"),
    ("person_time_per_step_s", "Person s/step", "sec"),
    ("user_time_per_answer_s", "User s/answer", "sec"),
    ("device_time_per_step_s", "Device s/step", "sec"),
    ("time_per_step_s", "Wall s/step", "sec"),
    ("cost_per_step_usd", "Agent $/step", "usd"),
    ("judge_time_per_step_s", "Judge s/step", "sec"),
    ("judge_cost_per_step_usd", "Judge $/step", "usd"),
    ("cas", "CAS (eta 0.5)", "pct"),
    ("apr", "APR", "pct"),
    ("ppr", "PPR", "pct"),
    ("user_turns", "User turns / task", "ratio"),
]


WHERE_PRESENT = {"person_time_per_step_s", "user_time_per_answer_s"}
"""Headline rows shown only when the run has them: most runs have no person and no user turns."""


def headline(m: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The headline rows for these metrics: `HEADLINE` less the person and user rows a run has no value for."""
    return [row for row in HEADLINE if row[0] not in WHERE_PRESENT or m[row[0]].get("value")]


def share(amount: float | None, n: int) -> float | None:
    """`amount / n`, or None when either is missing: an episode's seconds per step (or per answer)."""
    return None if amount is None or n <= 0 else amount / n


TimeColumn = tuple[str, Callable[[EpisodeRecord], float | None]]


def time_columns(records: list[EpisodeRecord]) -> list[TimeColumn]:
    """The per-episode time columns, each a header and its seconds (None: not applicable): the agent's
    per step always, a person's per step and the user's per answer where some episode has them."""
    cols: list[TimeColumn] = [("agent s/step", lambda r: share(r.agent_s, r.agent_steps))]
    if any(r.human_steps and r.person_s for r in records):
        cols.append(("person s/step", lambda r: share(r.person_s, r.human_steps)))
    if any(r.user_turns and r.user_s for r in records):
        cols.append(("user s/answer", lambda r: share(r.user_s, r.user_turns)))
    return cols


def fmt_metric(m: dict[str, Any], kind: str) -> str:
    if kind == "pct":
        return _pct(m)
    if kind == "usd":
        return _num(m, "${:.4f}")
    if kind == "sec":
        return _num(m, "{:.2f} s")
    return _num(m)


PIPED_WIDTH = 1_000
"""Columns the report is laid out in when standard output is not a terminal: wider than any row."""


def print_report(report: RunReport, console: Any = None) -> None:
    from rich.console import Console
    from rich.table import Table

    if console is None:
        console = Console()
        if not console.is_terminal:
            # Piped or redirected, Rich would cut the tables at 80 columns and fold task names into
            # 4-character pieces; a file or a pager has no width, so each row stays one whole line.
            console = Console(width=PIPED_WIDTH)
    m = report.metrics()
    run = report.run
    title = f"run {run.get('run_id') or run.get('id') or report.root.name}"
    bits = [f"{k}: {run[k]}" for k in ("agent", "model", "device", "level", "user") if run.get(k)]
    console.print(f"[bold]{title}[/bold]  " + "  ".join(bits))
    console.print(f"{m['episodes']} episodes, {m['tasks']} tasks ({m['memory_tasks']} memory, "
                  f"{m['standard_tasks']} standard), up to {m['attempts']} attempts; {m['undecided']} undecided")

    t = Table(title="Metrics", show_lines=False)
    t.add_column("metric")
    t.add_column("value", justify="right")
    t.add_column("over", justify="right")
    t.add_column("note")
    for key, label, kind in headline(m):
        v = m[key]
        t.add_row(label, fmt_metric(v, kind), str(v.get("n", "")), v.get("note", ""))
    console.print(t)

    pk = Table(title="pass@k")
    for k in m["pass_at_k"]:
        pk.add_column(f"pass@{k}", justify="right")
    pk.add_row(*[_pct(v) for v in m["pass_at_k"].values()])
    console.print(pk)

    k = m["attempts"]
    for key, label in (("by_difficulty", "difficulty"), ("by_apps", "apps"), ("by_memory", "memory")):
        g = Table(title=f"SR by {label}")
        g.add_column(label)
        g.add_column("tasks", justify="right")
        g.add_column("SR", justify="right")
        g.add_column(f"pass@{k}", justify="right")
        for name, row in m[key].items():
            g.add_row(name, str(row["tasks"]), _pct(row["sr"]), _pct(row[f"pass@{k}"]))
        console.print(g)

    e = Table(title="Episodes")
    one_scenario = len({r.record.scenario for r in report.rows}) <= 1
    times = time_columns(report.records)
    for col, just in (("task", "left"), ("att", "right"), ("outcome", "left"), ("by", "left"), ("steps", "right"),
                      ("ms", "right"), ("asks", "right"), ("time", "right"), *((c, "right") for c, _ in times),
                      ("agent $", "right"), ("judge $", "right")):
        e.add_column(col, justify=just, no_wrap=col != "task", overflow="fold")  # type: ignore[arg-type]
    for row in report.rows:
        r = row.record
        outcome = {True: "[green]success[/green]", False: "[red]failure[/red]", None: "[yellow]undecided[/yellow]"}[
            r.success]
        ms = f"{sum(1 for x in r.milestones if x.reached)}/{len(r.milestones)}" if r.milestones else "-"
        by = row.outcome_source.split(":", 1)[1] if row.outcome_source.startswith("judge:") else row.outcome_source
        e.add_row(r.task if one_scenario or not r.scenario else f"{r.scenario}:{r.task}", str(r.attempt), outcome,
                  by, f"{r.steps}" + (f"/{r.golden_steps}" if r.golden_steps else ""), ms,
                  str(r.user_turns), f"{r.duration_s:.0f}s" if r.duration_s is not None else "-",
                  *(_secs(fn(r)) for _, fn in times),
                  f"{r.agent_cost_usd:.3f}", f"{r.judge_cost_usd:.3f}" if r.judged else "-")
    console.print(e)
    for p in report.problems:
        console.print(f"[yellow]skipped: {p}[/yellow]")
    warned = [row for row in report.rows if row.verdict is not None and row.verdict.warnings]
    if warned:
        console.print(f"[yellow]{len(warned)} verdicts carry warnings, e.g. {warned[0].record.task} attempt "
                      f"{warned[0].record.attempt}: {warned[0].verdict.warnings[0]}[/yellow]")  # type: ignore[union-attr]
