"""`guilens compare RUN_A RUN_B ...`: runs side by side, the first as the baseline.

Everything a person can get wrong (a path that does not exist, a folder with no run, one run where
two are needed, a damaged run.json, a bad `--k` or `--html`) is refused in one line naming it,
exit status 2, before anything is written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from guilens.judge.compare import Comparison


def register(app: typer.Typer) -> None:
    @app.command()
    def compare(
        runs: list[Path] = typer.Argument(
            ..., help="Run directories, or folders holding runs (each child with a run.json); the first is the baseline."),
        as_json: bool = typer.Option(False, "--json", help="Print the comparison as JSON."),
        html_file: Path = typer.Option(None, "--html", help="Also write a self-contained HTML page here."),
        k: int = typer.Option(None, "--k", help="The pass@k to compare (default: the most attempts any run gave)."),
    ) -> None:
        """Compare runs: per-task outcomes side by side, deltas in SR, pass@k, IRR, step ratio and cost,
        and McNemar's test on first-attempt success over the shared tasks."""
        from guilens.cli import UserError
        from guilens.commands.judge import _check_html_target
        from guilens.judge.compare import CompareError, compare_paths

        if k is not None and k < 1:
            raise UserError(f"--k {k}: must be 1 or more")
        if html_file is not None:
            _check_html_target(html_file)
        try:
            comp = compare_paths(runs, k)
        except CompareError as err:
            raise UserError(str(err)) from None
        if html_file is not None:
            from guilens.judge.compare_html import write_compare_html

            out = write_compare_html(comp, html_file)  # a disk that fails now: StorageError, exit status 1
            if not as_json:
                typer.echo(f"wrote {out}")
        if as_json:
            typer.echo(json.dumps(comp.to_json(), indent=2, default=str))
        else:
            print_comparison(comp)


def print_comparison(comp: Comparison, console: Any = None) -> None:
    """The comparison as Rich tables; plain text with whole rows when standard output is not a terminal."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from guilens.judge.compare import cell_text, change, fmt_delta, fmt_p, verdict_of
    from guilens.judge.report_text import PIPED_WIDTH, fmt_metric

    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=PIPED_WIDTH)  # as `guilens report`: a pipe has no width to fold rows to
    letters = [chr(ord("A") + i) if i < 26 else str(i + 1) for i in range(len(comp.sides))]
    for letter, side in zip(letters, comp.sides, strict=True):
        m = side.metrics
        role = "  [dim](baseline)[/dim]" if side is comp.sides[0] else ""
        console.print(f"[bold]{letter}[/bold] {escape(side.name)}{role}: {m['episodes']} episodes, {m['tasks']} tasks, "
                      f"k={side.report.k}, {m['undecided']} undecided  [dim]{escape(str(side.report.root))}[/dim]")

    t = Table(title="Tasks")
    t.add_column("task", overflow="fold")
    for letter in letters:
        t.add_column(letter, no_wrap=True)
    colour = {True: "green", False: "red", None: "yellow"}
    for row in comp.tasks:
        cells = []
        for i, cell in enumerate(row.cells):
            text = cell_text(cell)
            moved = change(row.cells[0], cell) if i else ""
            text += f"  ({moved})" if moved else ""
            cells.append(f"[dim]{text}[/dim]" if cell is None else f"[{colour[cell.first]}]{text}[/]")
        t.add_row(escape(comp.task_name(row)), *cells)
    console.print(t)
    console.print("[dim]✓ success, ✗ failure, ? undecided (one per attempt); successes/decided attempts; "
                  "the first attempt's steps/golden steps[/dim]")

    mt = Table(title=f"Metrics (Δ against {letters[0]}, the baseline)")
    mt.add_column("metric")
    for i, letter in enumerate(letters):
        mt.add_column(letter, justify="right")
        if i:
            mt.add_column(f"Δ {letter}", justify="right")
    shade = {"better": "green", "worse": "red", "same": "dim"}
    for mr in comp.metrics:
        cols = []
        for i, (v, d) in enumerate(zip(mr.values, mr.deltas, strict=True)):
            cols.append(fmt_metric(v, mr.kind))
            if i:
                cols.append(f"[{shade[verdict_of(d, mr.better)]}]{fmt_delta(d, mr.kind)}[/]")
        mt.add_row(mr.label, *cols)
    console.print(mt)

    for o, test in zip(letters[1:], comp.tests, strict=True):  # one test per run after the baseline
        extra = f"; {test.left_out} shared task(s) undecided, left out" if test.left_out else ""
        console.print(f"McNemar (first attempt), {o} against {letters[0]}: n={test.n} shared tasks, "
                      f"b={test.b} ({letters[0]} ✓ {o} ✗), c={test.c} ({letters[0]} ✗ {o} ✓), "
                      f"exact two-sided p={fmt_p(test.p_value)}{extra}")
    for p in comp.problems:
        console.print(f"[yellow]skipped: {escape(p)}[/yellow]")
