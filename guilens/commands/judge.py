"""`guilens judge` and `guilens report`.

Both write into places a person names: `judge` a `verdict.json` beside every
episode, `report --html` a file. A place that cannot be written is refused as
one line naming it, before any model is called (exit status 2); a disk that
fails part way is one line too (exit status 1), with the verdicts already
written kept.
"""

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
                 "failure_mode, or triage/describe/semantic/visual. Default: all, escalating (the LLM stages only when the rules "
                 "cannot decide).",
        ),
        rules_only: bool = typer.Option(
            False, "--rules-only",
            help="No model calls: the rules, and what rules can tell of IRR and of the failure modes "
                 "(an execution timeout, a partial IRR)."),
        all_stages: bool = typer.Option(
            False, "--all-stages",
            help="Run every stage, the LLM judges too, even where the rules decided, to compare them; the "
                 "decision still follows authority (rules first), and disagreements are shown."),
        model: str = typer.Option(
            None, "--model", "--judge-model", "-m",
            help="Judge model: openai:MODEL, anthropic:MODEL or a Claude name (default: the judge_model setting)."),
        describe_model: str = typer.Option(
            None, "--describe-model",
            help="A cheaper model for the step descriptions, as MemGUI-Eval does (default: the describe_model "
                 "setting, else the judge model)."),
        base_url: str = typer.Option(
            None, "--base-url",
            help="Endpoint for the judge models' provider, e.g. http://localhost:8000/v1 for a vLLM server "
                 "(default: the openai_base_url / api_base_url setting)."),
        force: bool = typer.Option(False, "--force", help="Judge again even if the verdict on disk is current."),
        as_json: bool = typer.Option(False, "--json", help="Print the verdicts as JSON."),
    ) -> None:
        """Judge recorded episodes and write verdict.json next to each."""
        from guilens.cli import UserError
        from guilens.episode import EpisodeError
        from guilens.judge.pipeline import JudgeError, judge_path
        from guilens.storage import StorageError

        if not path.exists():
            raise UserError(f"{path}: no such file or directory")
        from guilens.judge.options import DEFAULT_STAGES, RULES_ONLY_STAGES

        picked = [name for name, on in (("--rules-only", rules_only), ("--all-stages", all_stages),
                                        ("--stages", bool(stages))) if on]
        if len(picked) > 1:
            raise UserError(f"{' and '.join(picked)} do not go together; pick one")
        chosen = list(RULES_ONLY_STAGES) if rules_only else list(DEFAULT_STAGES) if all_stages else (stages or None)
        unpriced = _check_models(model, describe_model, base_url)
        _check_verdicts_writable(path, force=force)
        total = {"n": 0, "cost": 0.0, "reused": 0, "disagree": 0}

        def show(d: Path, v: object) -> None:
            from guilens.judge.verdict import Verdict

            assert isinstance(v, Verdict)
            total["n"] += 1
            total["cost"] += v.usage.cost_usd
            total["reused"] += int(v.reused)
            total["disagree"] += int(bool(v.disagreements()))
            if as_json:
                return
            colour = {"success": "green", "failure": "red"}.get(v.decision, "yellow")
            rel = d.relative_to(path) if d != path and d.is_relative_to(path) else d
            by = f"by {v.decided_by}" if v.decided_by else ""
            cost = "cached" if v.reused else (
                "price unknown" if unpriced and not v.usage.cost_usd and (v.usage.input_tokens or v.usage.output_tokens)
                else f"${v.usage.cost_usd:.4f}")
            progress = f" {_milestones_text(d, v)}" if v.milestones else ""
            mode = _mode_text(v.failure_mode, v.failure_steps)
            typer.echo(f"{rel}  " + typer.style(f"{v.decision:9}", fg=colour) + f" {by:14} {cost}{progress}{mode}")
            for s in v.disagreements():
                typer.secho(f"    disagree: {s.stage} says {s.decision} ({s.reason})", fg="magenta")
            for w in v.warnings:
                typer.secho(f"    warning: {w}", fg="yellow")
            if v.decision == "undecided" or any(s.status == "error" for s in v.stages):
                for s in v.stages:
                    if s.status in ("error", "undecided") or (s.status == "skipped" and v.decision == "undecided"
                                                             and s.stage != "visual"):
                        typer.echo(f"    {s.stage}: {s.status}: {s.reason}")
            fm = v.stage("failure_mode")
            if v.decision == "failure" and fm is not None and fm.status in ("undecided", "error"):
                typer.echo(f"    failure_mode: {fm.status}: {fm.reason}")

        try:
            results = judge_path(path, chosen, model, force, on_done=show, describe_model=describe_model,
                                 base_url=base_url, llm=not rules_only)
        except (JudgeError, EpisodeError) as err:
            raise UserError(str(err)) from None
        except OSError as err:  # the disk failed part way: the verdicts written so far are kept
            raise StorageError.of(getattr(err, "filename", None) or path, err) from None
        if as_json:
            typer.echo(json.dumps([{"path": str(d), **v.model_dump(mode="json"), "reused": v.reused,
                                    "disagreements": [s.stage for s in v.disagreements()]}
                                   for d, v in results], indent=2))
            return
        if total["n"] > 1:
            counts: dict[str, int] = {}
            for _, v in results:
                counts[v.decision] = counts.get(v.decision, 0) + 1
            summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
            spent = f"${total['cost']:.4f}" + (" (a model's price is unknown)" if unpriced else "")
            typer.echo(f"{total['n']} episodes: {summary}; judge cost {spent}"
                       + (f" ({total['reused']} unchanged, not re-judged)" if total["reused"] else ""))
        if all_stages or (total["disagree"] and total["n"] > 1):
            typer.echo(f"stages disagree with the decision on {total['disagree']} of {total['n']} episodes")

    @app.command()
    def report(
        run: Path = typer.Argument(..., help="A run directory (or a task or attempt directory)."),
        as_json: bool = typer.Option(False, "--json", help="Print every metric and episode as JSON."),
        html_file: Path = typer.Option(None, "--html", help="Also write a self-contained HTML report here."),
    ) -> None:
        """Metrics of a run: SR, pass@k, FRR, IRR, MTPR, ATP, MSR, step ratio, time and cost, CAS, APR/PPR."""
        from guilens.cli import UserError
        from guilens.judge.report import load_report
        from guilens.judge.report_text import print_report

        if not run.exists():
            raise UserError(f"{run}: no such directory")
        if html_file is not None:
            _check_html_target(html_file)
        rep = load_report(run)
        if not rep.rows:
            raise UserError(f"{run}: no episodes here (no episode.json under it)")
        if html_file is not None:
            from guilens.judge.html import write_html

            out = write_html(rep, html_file)  # a disk that fails now: StorageError, exit status 1
            if not as_json:
                typer.echo(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB; open #ep-<task>-<attempt> for an episode)")
        if as_json:
            typer.echo(json.dumps(rep.to_json(), indent=2, default=str))
        else:
            print_report(rep)


def _milestones_text(attempt_dir: Path, verdict: object) -> str:
    """`milestones 3/4` as AndroidLens' ATP counts them: an alternatives item once, reached when one
    of its paths is (`checklist_progress`), the milestones of the paths not taken left out. Without
    the task definition (it was not found), every milestone the verdict holds counts."""
    from guilens.episode import EpisodeError, EpisodeReader
    from guilens.judge.inputs import resolve_task
    from guilens.judge.verdict import Verdict
    from guilens.scenarios.milestones import checklist_progress

    assert isinstance(verdict, Verdict)
    got = {m.id: m.reached for m in verdict.milestones}
    try:
        task = resolve_task(EpisodeReader(attempt_dir))[1]
    except EpisodeError:
        task = None
    if task is not None and {m.id for m in task.all_milestones()} == set(got):
        done, total = checklist_progress(task, lambda m: got.get(m))
    else:
        done, total = sum(1 for r in got.values() if r), len(got)
    return f"milestones {done}/{total}"


def _mode_text(mode: str | None, steps: list[int]) -> str:
    """`  output_memory_hallucination (steps 3, 5)`: a failure's mode and the steps it blames."""
    if not mode:
        return ""
    blamed = f" (step{'s' if len(steps) > 1 else ''} {', '.join(map(str, steps))})" if steps else ""
    return f"  {mode}{blamed}"


def _check_models(model: str | None, describe_model: str | None, base_url: str | None) -> bool:
    """Refuse a bad model spec or base URL as one line before any episode is read; return whether a
    model the judge will use has no known price (its cost is then shown as unknown, not as $0)."""
    from guilens.cli import UserError
    from guilens.config import ConfigError, load_settings
    from guilens.episode_model import Usage
    from guilens.llm.prices import priced
    from guilens.llm.spec import check_base_url, parse_model

    try:
        settings = load_settings()
        if base_url is not None:
            check_base_url(base_url, option="--base-url")
        specs = [parse_model(model or settings.judge_model,
                             option="--judge-model" if model else "the judge_model setting")]
        chosen = describe_model or settings.describe_model
        if chosen:
            specs.append(parse_model(chosen, option="--describe-model" if describe_model else
                                     "the describe_model setting"))
    except ConfigError as err:
        raise UserError(str(err)) from None
    return any(not priced(s.provider, s.model, Usage(), settings.prices)[1] for s in specs)


def _check_verdicts_writable(path: Path, *, force: bool) -> None:
    """Refuse a run (or episode) the judge could not write its verdicts into, before it calls a model:
    a read-only copy, an immutable folder or verdict. Each episode folder is asked once, by making (and
    removing) a file in it; a verdict already there, by opening it for writing without changing it.

    An episode with a verdict is not asked unless `force`: the judge reuses a current verdict without
    writing, so a read-only copy of a judged run can still be read back through `judge`. Should the
    verdict be stale after all, its rewrite fails as one line naming the file (exit status 1)."""
    from guilens.cli import UserError
    from guilens.episode import find_episodes
    from guilens.storage import StorageError, check_file_target

    for episode in find_episodes(path):
        if not force and (episode / "verdict.json").is_file():
            continue
        try:
            check_file_target(episode / "verdict.json")
        except StorageError as err:
            what = "cannot replace it" if err.path.name == "verdict.json" else "cannot write verdict.json here"
            raise UserError(f"{err.path}: {what}: {err.why} (judge a writable copy of the run)") from None


def _check_html_target(html_file: Path) -> None:
    from guilens.cli import UserError
    from guilens.storage import StorageError, check_file_target

    if html_file.is_dir():
        raise UserError(f"--html {html_file}: it is a folder; name the file to write")
    try:
        check_file_target(html_file)
    except StorageError as err:
        where = "" if err.path == html_file else f"{err.path}: "
        raise UserError(f"--html {html_file}: cannot write: {where}{err.why}") from None
