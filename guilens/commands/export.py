"""`guilens export PATH --format F`: an episode or a run, written in a shape other tools read.

The command is a dispatcher: the formats live in `guilens/export/` behind one
protocol (`guilens.export.formats`), each in its own module, imported only
when asked for. Everything a person can get wrong (a path that is not an
episode or a run, a format that does not exist, an `--out` that cannot be
written, a missing encoder library) is refused in one line before any work
starts, exit status 2; a disk that fails while writing is one line too, exit 1.
"""

from __future__ import annotations

from pathlib import Path

import typer

from guilens.export.formats import FORMATS


def export(
    path: Path = typer.Argument(..., help="An episode (attempt) directory, or a run directory for memgui/jsonl."),
    fmt: str = typer.Option(..., "--format", "-f", help=f"One of: {', '.join(FORMATS)}. gif/webp/mp4/golden take an "
                                                         "episode, memgui a run, jsonl either."),
    out: Path = typer.Option(None, "--out", "-o", help="The file to write (a folder: a file named after the "
                                                       "episode or run in it). Default: that name, here."),
    fps: float = typer.Option(1.0, "--fps", help="Animations: steps per second."),
    width: int = typer.Option(None, "--width", help="Animations: frame width in pixels (default 360)."),
) -> None:
    """Export an episode as an animation (gif, webp, mp4), trajectory lines (jsonl) or a golden path (golden),
    or a run as a MemGUI-Bench leaderboard entry (memgui) or trajectory lines (jsonl)."""
    from guilens.cli import UserError
    from guilens.export.formats import ExportError, ExportOptions, check_source, default_name, exporter
    from guilens.storage import StorageError, check_file_target

    try:
        ex = exporter(fmt)
        check_source(path, ex.scope, ex.name)
        ex.check()
    except ExportError as err:
        raise UserError(str(err)) from None
    target = out if out is not None else Path(default_name(path, ex.suffix))
    if target.is_dir():
        target = target / default_name(path, ex.suffix)
    try:
        check_file_target(target)
    except StorageError as err:
        where = "" if err.path == target else f"{err.path}: "
        raise UserError(f"--out {target}: cannot write: {where}{err.why}") from None
    try:
        result = ex.export(path, target, ExportOptions(fps=fps, width=width))
    except ExportError as err:
        raise UserError(str(err)) from None
    typer.echo(f"wrote {result.path}: {result.summary}")
    for w in result.warnings:
        typer.secho(f"warning: {w}", err=True, fg="yellow")
    if not result.ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("export")(export)
