"""`guilens judge-eval PATH...`: score a judge configuration against people's labels.

People label attempts in the replay screen (`m`: `label.json` beside the
verdict); this command finds the labelled attempts under the paths, judges them
through the ordinary pipeline (`guilens.judge.pipeline.judge_path`: a current
verdict is reused and costs nothing, `--force` judges again) and prints how the
judge's decisions agree with the labels: the confusion matrix, accuracy,
precision, recall, F1 (success the positive class) and Cohen's κ, as
MemGUI-Eval and PSPA-Bench report them, broken down by the stage that decided.

`--all-stages` runs every stage even where the rules decided (explicit stages
never escalate), so each LLM stage's own decision can be scored against the
labels and against the rules. Undecided verdicts are counted apart, never as
failures. Everything a person can get wrong (a missing path, a bad stage name
or model, no labelled attempt, a bad `label.json`) is one line, exit status 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer


def judge_eval(
    paths: list[Path] = typer.Argument(..., help="Runs, tasks or attempts: every labelled attempt (label.json) under them."),
    stages: list[str] = typer.Option(
        None, "--stages", "-s",
        help="Stages to run, exactly (comma-separated or repeated), as for `guilens judge`. Default: all, "
             "escalating (the LLM stages only where the rules cannot decide)."),
    rules_only: bool = typer.Option(False, "--rules-only", help="Score the rules stage alone: no model calls."),
    all_stages: bool = typer.Option(
        False, "--all-stages",
        help="Run every stage, the LLM ones even where the rules decided, and score the rules against each LLM stage."),
    model: str = typer.Option(
        None, "--model", "--judge-model", "-m",
        help="Judge model: openai:MODEL, anthropic:MODEL or a Claude name (default: the judge_model setting)."),
    describe_model: str = typer.Option(None, "--describe-model", help="A cheaper model for the step descriptions."),
    base_url: str = typer.Option(None, "--base-url", help="Endpoint for the judge models' provider."),
    force: bool = typer.Option(False, "--force", help="Judge again even where the verdict on disk is current."),
    as_json: bool = typer.Option(False, "--json", help="Print the scores and every labelled episode as JSON."),
) -> None:
    """Score the judge against people's labels: accuracy, precision, recall, F1, Cohen's κ, by deciding stage."""
    from guilens.cli import UserError
    from guilens.commands.judge import _check_models, _check_verdicts_writable
    from guilens.episode import EpisodeError
    from guilens.judge.agreement import Case, evaluate
    from guilens.judge.labels import LabelError, find_labelled
    from guilens.judge.options import DEFAULT_STAGES, RULES_ONLY_STAGES, JudgeError, expand_stages
    from guilens.judge.pipeline import judge_path
    from guilens.storage import StorageError

    for p in paths:
        if not p.exists():
            raise UserError(f"{p}: no such file or directory")
    chosen = _stages(stages, rules_only, all_stages, list(DEFAULT_STAGES), list(RULES_ONLY_STAGES))
    try:
        if chosen is not None:
            expand_stages(chosen)
    except JudgeError as err:
        raise UserError(str(err)) from None
    try:
        labelled = find_labelled(paths)
    except LabelError as err:
        raise UserError(str(err)) from None
    if not labelled:
        where = " or ".join(str(p) for p in paths)
        raise UserError(f"{where}: no labelled attempts (no label.json under it; label episodes with m in "
                        "`guilens replay`)")
    unpriced = False if rules_only else _check_models(model, describe_model, base_url)
    for d, _ in labelled:
        _check_verdicts_writable(d, force=force)
    if not as_json:
        typer.echo(f"judging {len(labelled)} labelled attempts ({_config_text(chosen, all_stages)})", err=True)

    cases: list[Case] = []
    cost, recorded, reused = 0.0, 0.0, 0
    try:
        for d, lab in labelled:
            ((_, v),) = judge_path(d, chosen, model, force, describe_model=describe_model, base_url=base_url,
                                   llm=not rules_only)
            recorded += v.usage.cost_usd  # what the verdict cost when it was made (MemGUI-Eval's $ per trajectory)
            cost += 0.0 if v.reused else v.usage.cost_usd
            reused += int(v.reused)
            cases.append(Case.of(d, lab.label, v, label_reason=lab.reason))
    except (JudgeError, EpisodeError) as err:
        raise UserError(str(err)) from None
    except OSError as err:  # the disk failed part way: the verdicts written so far are kept
        raise StorageError.of(getattr(err, "filename", None) or d, err) from None

    result = evaluate(cases)
    meta = {"paths": [str(p) for p in paths], "stages": chosen or "default (escalating)", "all_stages": all_stages,
            "model": model, "judge_cost_usd": round(cost, 6), "reused": reused, "price_unknown": unpriced,
            "verdicts_cost_usd": round(recorded, 6), "cost_per_episode_usd": round(recorded / len(cases), 6)}
    if as_json:
        typer.echo(json.dumps({**meta, **result.to_json()}, indent=2, default=str))
        return
    print_agreement(result, paths, meta)


def _stages(stages: list[str] | None, rules_only: bool, all_stages: bool, default: list[str],
            rules: list[str]) -> list[str] | None:
    """The stages to ask `judge_path` for: None is the escalating default, a list runs exactly those. The
    same choice `guilens judge` makes for the same options, so each reuses the verdicts of the other."""
    from guilens.cli import UserError

    picked = [name for name, on in (("--stages", bool(stages)), ("--rules-only", rules_only),
                                    ("--all-stages", all_stages)) if on]
    if len(picked) > 1:
        raise UserError(f"{' and '.join(picked)} do not go together; pick one")
    if rules_only:
        return rules
    if all_stages:
        return default  # named stages never escalate: the LLM stages run where the rules decided too
    return list(stages) if stages else None


def _config_text(chosen: list[str] | None, all_stages: bool) -> str:
    if all_stages:
        return "every stage, the LLM ones where the rules decided too"
    return "the default stages, escalating" if chosen is None else "the stages " + ", ".join(chosen)


def register(app: typer.Typer) -> None:
    app.command("judge-eval")(judge_eval)


# --- the tables ----------------------------------------------------------------------------------


def _pct(x: float | None) -> str:
    return "undefined" if x is None else f"{100 * x:.1f}"


def _kappa(x: float | None) -> str:
    return "undefined" if x is None else f"{x:.2f}"


def _rel(path: Path, roots: list[Path]) -> str:
    for root in roots:
        if path != root and path.is_relative_to(root):
            return str(path.relative_to(root))
    return str(path)


def print_agreement(result: Any, roots: list[Path], meta: dict[str, Any], console: Any = None) -> None:
    """The scores as tables (Rich, as `guilens report` prints; a pipe gets whole lines, no colour)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from guilens.judge.agreement import Agreement, Confusion
    from guilens.judge.report_text import PIPED_WIDTH

    assert isinstance(result, Agreement)
    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=PIPED_WIDTH)
    notes: dict[tuple[str, str], list[str]] = {}
    """(score, why it is undefined) -> the rows it is undefined in."""

    def scores_row(name: str, c: Confusion) -> list[str]:
        s = c.scores()
        for key, why in c.undefined().items():
            rows = notes.setdefault((SCORE_NAMES.get(key, key), why), [])
            if name not in rows:
                rows.append(name)
        return [name, str(c.n), str(c.tp), str(c.fp), str(c.fn), str(c.tn), _pct(s["accuracy"]), _pct(s["precision"]),
                _pct(s["recall"]), _pct(s["f1"]), _kappa(s["kappa"])]

    def score_columns(t: Table, first: str) -> None:
        t.add_column(first)
        for col in ("n", "TP", "FP", "FN", "TN", "accuracy %", "precision %", "recall %", "F1 %", "κ"):
            t.add_column(col, justify="right")

    console.print(f"[bold]judge against people[/bold]  {len(result.cases)} labelled attempts, "
                  f"{result.overall.n} decided, {len(result.undecided)} undecided; "
                  f"judged with {escape(_config_text(meta['stages'] if isinstance(meta['stages'], list) else None, meta['all_stages']))}"
                  + (f"; model {escape(meta['model'])}" if meta.get("model") else ""))
    t = Table(title="Judge decisions against labels (positive class: success)")
    score_columns(t, "decided by")
    t.add_row(*scores_row("overall", result.overall), end_section=True)
    for stage, c in result.by_decider.items():
        t.add_row(*scores_row(stage, c))
    console.print(t)
    if result.undecided:
        console.print(f"[yellow]{len(result.undecided)} undecided[/yellow] (left out of the scores, not counted "
                      "as failures):")
        for case in result.undecided:
            console.print(f"  {escape(_rel(case.path, roots))}  labelled {case.label}: {escape(case.reason[:160])}")

    several = any(len(set(case.stages) - {"scrutiny"}) > 1 for case in result.cases)
    if several:
        s = Table(title="Each stage's own decisions against labels (where it decided)")
        score_columns(s, "stage")
        s.add_column("not decided", justify="right")
        for stage, score in result.by_stage.items():
            s.add_row(*scores_row(stage, score.confusion), str(score.undecided))
        console.print(s)
    if result.rules_vs_llm:
        r = Table(title="Rules against the LLM stages (episodes both decided; the rules as reference)")
        for col, just in (("stage", "left"), ("both decided", "right"), ("agree", "right"), ("agreement %", "right"),
                          ("κ", "right"), ("rules success, LLM failure", "right"),
                          ("rules failure, LLM success", "right")):
            r.add_column(col, justify=just)  # type: ignore[arg-type]
        for stage, c in result.rules_vs_llm.items():
            r.add_row(stage, str(c.n), str(c.tp + c.tn), _pct(_float(c.accuracy)), _kappa(_float(c.kappa)),
                      str(c.fn), str(c.fp))
            if "kappa" in c.undefined():
                notes.setdefault(("κ", c.undefined()["kappa"]), []).append(f"rules against {stage}")
        console.print(r)
    wrong = result.disagreements
    if wrong:
        console.print(f"[bold]{len(wrong)} disagreement{'s' if len(wrong) > 1 else ''} with people[/bold]")
        for case in wrong[:MAX_LISTED]:
            why = f" (they said: {case.label_reason})" if case.label_reason else ""
            console.print(f"  {escape(_rel(case.path, roots))}  labelled [b]{case.label}[/b]{escape(why)}, judged "
                          f"[b]{case.decision}[/b] by {case.decided_by}: {escape(case.reason[:160])}")
        if len(wrong) > MAX_LISTED:
            console.print(f"  ... and {len(wrong) - MAX_LISTED} more (--json lists every episode)")
    for (name, why), rows in notes.items():
        console.print(f"[dim]note: {name} undefined ({escape(why)}): {escape(', '.join(rows))}[/dim]")
    price = " (a model's price is unknown)" if meta.get("price_unknown") else ""
    console.print(f"judge cost now ${meta['judge_cost_usd']:.4f}{price}"
                  + (f" ({meta['reused']} verdicts unchanged, not re-judged)" if meta.get("reused") else "")
                  + f"; the verdicts scored cost ${meta['verdicts_cost_usd']:.4f} when made, "
                    f"${meta['cost_per_episode_usd']:.4f} per episode")


SCORE_NAMES = {"kappa": "κ", "f1": "F1"}

MAX_LISTED = 20
"""Disagreements listed in the table view; `--json` has them all."""


def _float(x: Any) -> float | None:
    return None if x is None else float(x)
