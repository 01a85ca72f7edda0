"""`guilens judge` and `guilens report`."""

from __future__ import annotations

import json
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def judge(
        path: Path = typer.Argument(..., help="An attempt directory, or a run (or task) directory: every episode under it."),
        stages: list[str] = typer.Option(
            None, "--stages", "-s",
            help="Stages to run, exactly (comma-separated or repeated): rules, milestones, scrutiny, irr, "
                 "or triage/describe/semantic/visual. Default: all, escalating (the LLM stages only when the rules "
                 "cannot decide).",
        ),
        rules_only: bool = typer.Option(False, "--rules-only", help="Only the rules stage: no model calls."),
        model: str = typer.Option(None, "--model", "-m", help="Judge model (default: the judge_model setting)."),
        force: bool = typer.Option(False, "--force", help="Judge again even if the verdict on disk is current."),
        as_json: bool = typer.Option(False, "--json", help="Print the verdicts as JSON."),
    ) -> None:
        """Judge recorded episodes and write verdict.json next to each."""
        from guilens.cli import UserError
        from guilens.episode import EpisodeError
        from guilens.judge.pipeline import JudgeError, judge_path

        if not path.exists():
            raise UserError(f"{path}: no such file or directory")
        chosen = ["rules"] if rules_only else (stages or None)
        if rules_only and stages:
            raise UserError("--rules-only and --stages do not go together; pick one")
        total = {"n": 0, "cost": 0.0, "reused": 0}

        def show(d: Path, v: object) -> None:
            from guilens.judge.verdict import Verdict

            assert isinstance(v, Verdict)
            total["n"] += 1
            total["cost"] += v.usage.cost_usd
            total["reused"] += int(v.reused)
            if as_json:
                return
            colour = {"success": "green", "failure": "red"}.get(v.decision, "yellow")
            rel = d.relative_to(path) if d != path and d.is_relative_to(path) else d
            by = f"by {v.decided_by}" if v.decided_by else ""
            cost = "cached" if v.reused else f"${v.usage.cost_usd:.4f}"
            progress = f" milestones {sum(1 for m in v.milestones if m.reached)}/{len(v.milestones)}" if v.milestones else ""
            typer.echo(f"{rel}  " + typer.style(f"{v.decision:9}", fg=colour) + f" {by:14} {cost}{progress}")
            for w in v.warnings:
                typer.secho(f"    warning: {w}", fg="yellow")
            if v.decision == "undecided" or any(s.status == "error" for s in v.stages):
                for s in v.stages:
                    if s.status in ("error", "undecided") or (s.status == "skipped" and v.decision == "undecided"
                                                             and s.stage != "visual"):
                        typer.echo(f"    {s.stage}: {s.status}: {s.reason}")

        try:
            results = judge_path(path, chosen, model, force, on_done=show)
        except (JudgeError, EpisodeError) as err:
            raise UserError(str(err)) from None
        if as_json:
            typer.echo(json.dumps([{"path": str(d), **v.model_dump(mode="json"), "reused": v.reused}
                                   for d, v in results], indent=2))
            return
        if total["n"] > 1:
            counts: dict[str, int] = {}
            for _, v in results:
                counts[v.decision] = counts.get(v.decision, 0) + 1
            summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
            typer.echo(f"{total['n']} episodes: {summary}; judge cost ${total['cost']:.4f}"
                       + (f" ({total['reused']} unchanged, not re-judged)" if total["reused"] else ""))

    @app.command()
    def report(
        run: Path = typer.Argument(..., help="A run directory (or a task or attempt directory)."),
        as_json: bool = typer.Option(False, "--json", help="Print every metric and episode as JSON."),
        html_file: Path = typer.Option(None, "--html", help="Also write a self-contained HTML report here."),
    ) -> None:
        """Metrics of a run: SR, pass@k, FRR, IRR, MTPR, ATP, MSR, step ratio, time and cost, CAS, APR/PPR."""
        from guilens.cli import UserError
        from guilens.judge.report import load_report, print_report

        if not run.exists():
            raise UserError(f"{run}: no such directory")
        rep = load_report(run)
        if not rep.rows:
            raise UserError(f"{run}: no episodes here (no episode.json under it)")
        if html_file is not None:
            from guilens.judge.html import write_html

            out = write_html(rep, html_file)
            if not as_json:
                typer.echo(f"wrote {out}")
        if as_json:
            typer.echo(json.dumps(rep.to_json(), indent=2, default=str))
        else:
            print_report(rep)
