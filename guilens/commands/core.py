"""`guilens version`, `guilens schema`, `guilens locate`, and the global options every command honours
(`--version`/`-V`, `--no-color`), which the app's callback (in `guilens.commands.tui`) takes."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import typer

SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {}


def schema_kind(name: str) -> Callable[[Callable[[], dict[str, Any]]], Callable[[], dict[str, Any]]]:
    """Register a JSON Schema for `guilens schema NAME`; areas add their models here."""

    def deco(fn: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
        SCHEMAS[name] = fn
        return fn

    return deco


@schema_kind("episode")
def _episode() -> dict[str, Any]:
    from guilens.episode import Episode

    return Episode.model_json_schema()


@schema_kind("step")
def _step() -> dict[str, Any]:
    from guilens.episode import Step

    return Step.model_json_schema()


@schema_kind("action")
def _action() -> dict[str, Any]:
    from guilens.actions import ACTION_ADAPTER

    return ACTION_ADAPTER.json_schema()


def show_version(value: bool) -> None:
    """`guilens --version` / `-V`: print the version and stop before any command runs (an eager option)."""
    if value:
        from guilens import __version__

        typer.echo(f"guilens {__version__}")
        raise typer.Exit()


def apply_no_color(ctx: typer.Context, value: bool) -> None:
    """`--no-color`, or `NO_COLOR` with any non-empty value: no colour from any command.

    The flag is turned into `NO_COLOR=1` so every writer honours one switch: Rich consoles, the TUI
    (Textual reads it) and child processes; and the context's `color` is set, which `typer.secho`
    and `typer.style` output in every subcommand inherits.
    """
    import os

    if value:
        os.environ["NO_COLOR"] = "1"
    elif os.environ.get("NO_COLOR") == "":
        del os.environ["NO_COLOR"]  # no switch (no-color.org), though Textual would take it as one
    if os.environ.get("NO_COLOR"):
        ctx.color = False


VERSION_OPTION: bool = typer.Option(False, "--version", "-V", is_eager=True, callback=show_version,
                                    help="Print the guilens version and exit.")
NO_COLOR_OPTION: bool = typer.Option(False, "--no-color", is_eager=True, callback=apply_no_color,
                                     help="No colour in any output (as does NO_COLOR=1).")


def _load_area_schemas() -> None:
    # Areas whose models are heavier register lazily, on first use of `guilens schema`.
    import importlib

    for mod in ("guilens.scenarios.model", "guilens.judge.verdict", "guilens.judge.labels"):
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError:
            continue
        hook = getattr(m, "register_schemas", None)
        if hook is not None:
            hook(schema_kind)


def register(app: typer.Typer) -> None:
    @app.command()
    def version() -> None:
        """Print the guilens version."""
        from guilens import __version__

        typer.echo(f"guilens {__version__}")

    @app.command()
    def schema(kind: str = typer.Argument(..., help="episode, step, action, scenario, verdict, label")) -> None:
        """Print the JSON Schema of a file guilens writes or reads."""
        _load_area_schemas()
        if kind not in SCHEMAS:
            typer.secho(f"error: no schema {kind!r}; choose from {', '.join(sorted(SCHEMAS))}", err=True, fg="red")
            raise typer.Exit(2)
        typer.echo(json.dumps(SCHEMAS[kind](), indent=2))

    @app.command()
    def locate(as_json: bool = typer.Option(False, "--json", help="Print the paths as a JSON object.")) -> None:
        """Print where guilens keeps its config file, cache and runs."""
        from guilens.config import config_file, load_settings

        s = load_settings()
        if as_json:
            typer.echo(json.dumps({"config_file": str(config_file()), "cache": str(s.cache_dir),
                                   "runs": str(s.run_dir.resolve())}, indent=2))
            return
        typer.echo(f"config file: {config_file()}")
        typer.echo(f"cache:       {s.cache_dir}")
        typer.echo(f"runs:        {s.run_dir.resolve()}")
