"""Human baselines: `guilens baseline PACK` (a person does the tasks, each exported as a golden path),
`guilens baseline-report` (the person against agent runs), and `guilens scenarios from-episode EPISODE
--out FILE` (any episode's path as a task: a golden path).

The command says what the file holds, counted from the file, and, for a
simulated-phone scenario, verifies it as `guilens scenarios verify` would:
an export that does not verify is written (to look at) but exits 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer


def _fail(message: str, code: int = 2) -> None:
    typer.secho(f"error: {message}", err=True, fg="red")
    raise typer.Exit(code)


def from_episode(
    episode: Path = typer.Argument(..., help="An attempt directory: a person's (--agent human, a take-over) or an agent's."),
    out: Path = typer.Option(..., "--out", "-o", help="The scenario file to write (YAML)."),
    task_id: str = typer.Option(None, "--id", help="Id of the new task (default: the episode's task id + -human, "
                                                   "or + -AGENT when no person acted)."),
    verify: bool = typer.Option(True, "--verify/--no-verify", help="Verify the file on the simulated phone."),
) -> None:
    """Write a task whose reference, golden steps and milestones come from what was done (and marked)."""
    from guilens.episode import EpisodeError
    from guilens.export import BaselineError, write_baseline

    try:
        b = write_baseline(episode, out, task_id=task_id, verify=verify)
    except (BaselineError, EpisodeError) as err:
        _fail(str(err))
        return
    typer.echo(f"wrote {out}: {b.summary()}")
    for problem in b.skipped:
        typer.secho(f"warning: left out of the reference: {problem}", err=True, fg="yellow")
    for note in b.notes:
        typer.secho(f"warning: {note}", err=True, fg="yellow")
    if b.verdicts is None:
        if verify:
            typer.echo("not verified: a scenario for real devices is judged by the LLM, not by rules")
        return
    bad = [v for v in b.verdicts if not v.ok]
    for v in bad:
        typer.secho(f"FAIL {v.task}", err=True, fg="red")
        for f in v.findings:
            if not f.ok:
                typer.secho(f"     no  {f.name}: {f.detail}", err=True)
    typer.echo(f"verified: {len(b.verdicts) - len(bad)}/{len(b.verdicts)} task(s) of the file")
    if bad:
        raise typer.Exit(1)


def export_golden(run_dir: Path, episodes: list[Any]) -> list[tuple[str, Path | None, str]]:
    """Every successful episode of a baseline session as a golden path: `<run>/golden/<task>.yaml`,
    verified on the simulated phone. Returns (task, file or None, what happened) per episode."""
    from guilens.episode import EpisodeError
    from guilens.export import BaselineError, write_baseline

    done: list[tuple[str, Path | None, str]] = []
    for ep in episodes:
        attempt = run_dir / ep.task / f"attempt-{ep.attempt}"
        if ep.status != "success":
            done.append((ep.task, None, f"not exported: it ended {ep.status}"))
            continue
        out = run_dir / "golden" / f"{ep.task}.yaml"
        try:
            b = write_baseline(attempt, out, verify=True)
        except (BaselineError, EpisodeError, OSError) as err:
            done.append((ep.task, None, f"not exported: {err}"))
            continue
        bad = [v.task for v in (b.verdicts or []) if not v.ok]
        what = b.summary() + (f"; verify FAILED for {', '.join(bad)}" if bad else
                              "; verified" if b.verdicts is not None else "")
        done.append((ep.task, out, what))
    return done


def baseline(
    pack: str = typer.Argument(..., help="A built-in scenario id, or a scenario file."),
    tasks: str = typer.Option(None, "--tasks", "-t", help="Comma-separated task ids, in the order to do them "
                                                          "(default: every task of the pack)."),
    level: str = typer.Option("L0", "--level", "-l", help="Instruction level: L0 precise, L1, L2 ambiguous."),
    out: Path = typer.Option(None, "--out", "-o", help="Where the session's run goes (default: the run_dir setting)."),
    device: str = typer.Option("sim", "--device", "-d", help="sim, adb or adb:SERIAL."),
    against: list[Path] = typer.Option(None, "--against", help="An agent run of the same tasks to set the baseline "
                                                               "against (repeat for several)."),
    headless: bool = typer.Option(False, "--headless", help="No TUI: type each action (tap, type TEXT, back, "
                                                            "finish ...) at the prompt."),
    renderer: str = typer.Option(None, "--renderer", help="How to draw the phone (see guilens run --help)."),
) -> None:
    """A human baseline session: you do the tasks one after another, each recorded and exported as a golden path.

    Before each task a pause screen shows it; your time on a task starts when you start it. Mark milestones with m as you reach them.

    At the end each successful task is written to <run>/golden/<task>.yaml and verified, and a baseline report sets you against the agent runs given with --against.
    """
    from guilens.commands.run import _command, _plan, run_plan
    from guilens.commands.tui import check_renderer_option

    check_renderer_option(renderer)
    for run in against or []:
        if not run.is_dir():
            _fail(f"--against {run}: no such run directory")
    plan = _plan(pack, command=_command("baseline", pack, {"tasks": tasks, "level": level, "out": out,
                                                           "device": device, "headless": headless}),
                 agent="human", devices=[device], user="oracle", level=level, out=out)
    if tasks:
        wanted = [t.strip() for t in tasks.split(",") if t.strip()]
        if plan.sequence:
            _fail(f"{plan.scenario.id!r} is a persistent day: do it whole (leave out --tasks)")
        have = {t.id: t for t in plan.tasks}
        unknown = [t for t in wanted if t not in have]
        if unknown:
            _fail(f"--tasks: no task {unknown[0]!r} in {plan.scenario.id!r} (it has {', '.join(have)})")
        plan.tasks = [have[t] for t in wanted]
    plan.intermission = True
    code, result = run_plan(plan, headless=headless, renderer=renderer)
    if result is None:
        raise typer.Exit(code)
    typer.echo(f"baseline session in {result.run_dir}")
    for task, path, what in export_golden(result.run_dir, result.episodes):
        typer.echo(f"  {task}: {path}: {what}" if path else f"  {task}: {what}")
    if against:
        from guilens.judge.baseline import compare, print_baseline

        print_baseline(compare(result.run_dir, list(against)))
    raise typer.Exit(code)


def baseline_report(
    person_run: Path = typer.Argument(..., help="The baseline session's run directory."),
    agent_runs: list[Path] = typer.Argument(None, help="Agent runs of the same tasks."),
    as_json: bool = typer.Option(False, "--json", help="The report as JSON."),
) -> None:
    """Set a human baseline against agent runs: success, steps against the person's, time per step, milestones."""
    import json

    from guilens.judge.baseline import compare, print_baseline

    for run in [person_run, *(agent_runs or [])]:
        if not run.is_dir():
            _fail(f"{run}: no such run directory")
    report = compare(person_run, list(agent_runs or []))
    if not report.rows:
        _fail(f"{person_run}: no episodes here")
    if as_json:
        typer.echo(json.dumps(report.to_json(), indent=2))
    else:
        print_baseline(report)


def register(app: typer.Typer) -> None:
    app.command("baseline")(baseline)
    app.command("baseline-report")(baseline_report)
    try:
        from guilens.commands.scenarios import scenarios_app
    except ImportError:  # the scenarios commands are not installed: offer it at the top level instead
        app.command("from-episode")(from_episode)
    else:
        scenarios_app.command("from-episode")(from_episode)
