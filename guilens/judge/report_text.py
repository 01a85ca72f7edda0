"""A run's report in the terminal (`guilens report`): the headline metrics, the breakdowns and the
episodes as tables; and the formatting the HTML report and `guilens compare` share with them.

Apart from `guilens.judge.report`, which reads a run into records and rows: those are read by the
exports, the comparison and the baseline report, which print nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from guilens.judge.metrics import EpisodeRecord
from guilens.judge.report import RunReport

# --- formatting ------------------------------------------------------------------------------------


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
    ("as", "AS (steps / task)", "ratio"),
    ("apr", "APR", "pct"),
    ("ppr", "PPR", "pct"),
    ("user_turns", "User turns / task", "ratio"),
]


WHERE_PRESENT = {"person_time_per_step_s", "user_time_per_answer_s"}
"""Headline rows shown only when the run has them: most runs have no person and no user turns."""


def headline(m: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The headline rows for these metrics: `HEADLINE` less the person and user rows a run has no value for."""
    return [row for row in HEADLINE if row[0] not in WHERE_PRESENT or m[row[0]].get("value")]


def run_modes(run: dict[str, Any]) -> list[str]:
    """ScenDroid's modes the run was made with, from run.json (`ask: off`, `max_questions: 1`,
    `context: augmented`); none for a run recorded before guilens had them."""
    return [f"{k}: {run[k]}" for k in ("ask", "max_questions", "context") if run.get(k) is not None]


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
    console.print(f"[bold]{title}[/bold]  " + "  ".join(bits + run_modes(run)))
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

    from guilens.judge.report_days import print_days

    print_days(m.get("by_day", {}), console)

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
        if r.status == "blocked" and r.success is False:  # counted failed (ScenDroid), shown for what it was
            outcome = "[red]blocked[/red]"
        ms = f"{sum(1 for x in r.milestones if x.reached)}/{len(r.milestones)}" if r.milestones else "-"
        by = row.outcome_source.split(":", 1)[1] if row.outcome_source.startswith("judge:") else row.outcome_source
        e.add_row(r.task if one_scenario or not r.scenario else f"{r.scenario}:{r.task}", str(r.attempt), outcome,
                  by, f"{r.steps}" + (f"/{r.golden_steps}" if r.golden_steps else ""), ms,
                  str(r.user_turns), f"{r.duration_s:.0f}s" if r.duration_s is not None else "-",
                  *(_secs(fn(r)) for _, fn in times),
                  f"{r.agent_cost_usd:.3f}", f"{r.judge_cost_usd:.3f}" if r.judged else "-")
    console.print(e)
    from guilens.judge.failure_summary import print_failure_modes

    print_failure_modes(report.failure_modes(), console)
    for p in report.problems:
        console.print(f"[yellow]skipped: {p}[/yellow]")
    warned = [row for row in report.rows if row.verdict is not None and row.verdict.warnings]
    if warned:
        console.print(f"[yellow]{len(warned)} verdicts carry warnings, e.g. {warned[0].record.task} attempt "
                      f"{warned[0].record.attempt}: {warned[0].verdict.warnings[0]}[/yellow]")  # type: ignore[union-attr]
