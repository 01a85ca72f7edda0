"""`guilens` (no arguments: the home screen), `guilens replay EPISODE` and `guilens runs [DIR]`
(`guilens scenarios from-episode` lives in `guilens.commands.baseline`).

Textual is imported inside the commands only: `guilens --help` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import typer

from guilens.commands.core import NO_COLOR_OPTION, VERSION_OPTION

RENDERER_HELP = ("How to draw the phone: auto (Kitty graphics, Sixel or iTerm2 images where the terminal "
                 "draws them, else half cells beside the UI tree's text), halfcell, sixel, tgp (Kitty), iterm, "
                 "text. Default: the renderer setting.")


def _fail(message: str, code: int = 2) -> None:
    typer.secho(f"error: {message}", err=True, fg="red")
    raise typer.Exit(code)


def check_renderer_option(renderer: str | None) -> None:
    from guilens.screens.graphics.probe import RENDERERS

    if renderer is not None and renderer.strip().lower() not in RENDERERS:
        _fail(f"--renderer {renderer!r}: choose {', '.join(RENDERERS)}")


def register(app: typer.Typer) -> None:
    @app.callback(invoke_without_command=True)
    def home(
        ctx: typer.Context,
        renderer: str = typer.Option(None, "--renderer", help=RENDERER_HELP),
        version: bool = VERSION_OPTION,
        no_color: bool = NO_COLOR_OPTION,
    ) -> None:
        """With no command: the home screen (pick a scenario, task, level, agent, user and device)."""
        if ctx.invoked_subcommand is not None or ctx.resilient_parsing:
            if renderer is not None:
                _fail("--renderer goes after the command: guilens COMMAND --renderer NAME")
            return
        check_renderer_option(renderer)
        from guilens.config import load_settings
        from guilens.screens.launch import home_tui

        home_tui(load_settings(), renderer=renderer)

    @app.command()
    def replay(
        episode: Path = typer.Argument(..., help="An attempt directory (runs/RUN/TASK/attempt-N)."),
        renderer: str = typer.Option(None, "--renderer", help=RENDERER_HELP),
    ) -> None:
        """Step through a recorded episode: before/after screens, thought, memory, milestones, verdict."""
        from guilens.episode import EpisodeError, EpisodeReader, find_episodes

        check_renderer_option(renderer)
        target = episode
        if not (episode / "episode.json").is_file():
            found = find_episodes(episode) if episode.is_dir() else []
            if len(found) != 1:
                hint = (f"it holds {len(found)} episodes; open one, or browse them with guilens runs {episode}"
                        if found else "no episode.json here or below")
                _fail(f"{episode}: not an attempt directory ({hint})")
            target = found[0]
        try:
            reader = EpisodeReader(target)
            _ = reader.steps  # read now: a bad line is this one line, not an error inside the TUI
        except EpisodeError as err:
            _fail(str(err))
        from guilens.config import load_settings
        from guilens.screens.launch import replay_tui

        replay_tui(reader, renderer=renderer, settings=load_settings())

    @app.command()
    def runs(
        directory: Path = typer.Argument(None, help="A run directory or a folder of runs (default: the run_dir setting)."),
        renderer: str = typer.Option(None, "--renderer", help=RENDERER_HELP),
    ) -> None:
        """Browse every episode of a run (or of all runs): filter, and open any in the replay screen."""
        from guilens.config import load_settings
        from guilens.screens.launch import runs_tui

        check_renderer_option(renderer)
        settings = load_settings()
        where = directory if directory is not None else settings.run_dir
        if not where.is_dir():
            _fail(f"{where}: no such directory (runs are written to {settings.run_dir}; see guilens locate)")
        runs_tui(where, renderer=renderer, settings=settings)
