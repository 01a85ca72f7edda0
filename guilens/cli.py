"""The `guilens` command. Thin: each area registers its commands from `guilens/commands/`,
and heavy imports (the LLM SDK, Textual) happen inside the command that needs them."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import typer

from guilens import commands

app = typer.Typer(
    name="guilens",
    help="A terminal lab for mobile GUI agents: watch, pause, answer, take over, replay and judge.",
    no_args_is_help=False,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)

for _info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
    importlib.import_module(f"{commands.__name__}.{_info.name}").register(app)


class UserError(Exception):
    """A mistake of the person at the keyboard: printed as one clear line, exit status 2."""


def main() -> None:
    """Run the command; what a person or the machine can cause is one `error:` line, never a traceback.

    Exit status 2 for a mistake on the command line, 1 for the environment (a disk that is full or
    read-only, a file that cannot be read): an `OSError` no command caught is said with its path.
    """
    from guilens.actions import ActionError
    from guilens.config import ConfigError, color_wanted
    from guilens.storage import StorageError, reason

    try:
        # The program's name whichever way it started (`python -m guilens` too): usage lines, and the
        # shell completion, which installs for a name and reads `_GUILENS_COMPLETE`, say `guilens`.
        app(prog_name="guilens")
    except (UserError, ConfigError, ActionError) as err:
        _error(str(err), color_wanted())
        sys.exit(2)
    except StorageError as err:
        _error(str(err), color_wanted())
        sys.exit(1)
    except OSError as err:
        where = f"{err.filename}: " if err.filename else ""
        _error(f"{where}{reason(err)}", color_wanted())
        sys.exit(1)


def _error(message: str, color: bool) -> None:
    # Said after the command's context is gone, so its `--no-color` no longer reaches `secho` by itself:
    # `color=None` lets click decide by the terminal, False strips the colour.
    typer.secho(f"error: {message}", err=True, fg="red", color=None if color else False)
