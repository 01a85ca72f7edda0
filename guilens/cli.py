"""The `guilens` command. Thin: each area registers its commands from `guilens/commands/`,
and heavy imports (pydantic, the LLM SDKs, Textual, Pillow) happen inside the command that needs them.

`guilens --help` imports Typer and Rich only; `tests/test_startup.py` holds it to that, and
`benchmarks/bench_startup.py` measures it. The error types `main` turns into one line are looked up
among the modules already imported, so catching them costs no import (see `_exit_code`).
"""

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


_USER_ERRORS = (("guilens.settings_file", "ConfigError"), ("guilens.actions.model", "ActionError"))
"""Mistakes on the command line or in the config (exit 2), besides `UserError`, by module and name."""
_STORAGE_ERRORS = (("guilens.storage", "StorageError"),)
"""A file that could not be written (exit 1), said as the storage layer words it."""


def _loaded(names: tuple[tuple[str, str], ...]) -> tuple[type[BaseException], ...]:
    """The exception classes named, from the modules imported so far.

    An error of a module that was never imported cannot have been raised, so nothing need be
    imported to catch it: importing `guilens.config` or `guilens.actions` up front would load
    pydantic (about 60 ms) before `--help` could print a line.
    """
    found: list[type[BaseException]] = []
    for module, name in names:
        cls = getattr(sys.modules.get(module), name, None)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            found.append(cls)
    return tuple(found)


def _exit_code(err: Exception) -> int | None:
    """2 for a mistake on the command line, 1 for the environment, None for a bug (left to raise)."""
    if isinstance(err, (UserError, *_loaded(_USER_ERRORS))):
        return 2
    if isinstance(err, (OSError, *_loaded(_STORAGE_ERRORS))):
        return 1
    return None


def main() -> None:
    """Run the command; what a person or the machine can cause is one `error:` line, never a traceback.

    Exit status 2 for a mistake on the command line, 1 for the environment (a disk that is full or
    read-only, a file that cannot be read): an `OSError` no command caught is said with its path.
    """
    try:
        # The program's name whichever way it started (`python -m guilens` too): usage lines, and the
        # shell completion, which installs for a name and reads `_GUILENS_COMPLETE`, say `guilens`.
        app(prog_name="guilens")
    except Exception as err:
        code = _exit_code(err)
        if code is None:
            raise
        _error(_message(err))
        sys.exit(code)


def _message(err: Exception) -> str:
    storage = _loaded(_STORAGE_ERRORS)
    if not isinstance(err, OSError) or (storage and isinstance(err, storage)):
        return str(err)  # the storage layer's own words name the file already
    from guilens.storage import reason

    where = f"{err.filename}: " if err.filename else ""
    return f"{where}{reason(err)}"


def _error(message: str) -> None:
    from guilens.config import color_wanted

    # Said after the command's context is gone, so its `--no-color` no longer reaches `secho` by itself:
    # `color=None` lets click decide by the terminal, False strips the colour.
    typer.secho(f"error: {message}", err=True, fg="red", color=None if color_wanted() else False)
