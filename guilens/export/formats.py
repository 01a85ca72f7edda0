"""`guilens export`'s formats: one protocol, a small registry, one module per format.

The command knows nothing about any format: it looks the name up here, checks
that what it was given is the kind of directory the format reads (an episode,
a run, or either) and that the file can be written, then hands both over. A new
format is a module with a class that meets `Exporter` and one line in
`FORMATS`; modules are imported only when their format is asked for, so
`guilens --help` never pays for Pillow or the metrics.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

Scope = Literal["episode", "run", "either"]


class ExportError(ValueError):
    """An export that cannot be made: the message is one line naming the file, option or value."""


@dataclass(frozen=True)
class ExportOptions:
    """What the command line says beyond the format and the paths; each format reads what it needs."""

    fps: float = 1.0
    """Animations: frames (steps) per second; the final screen is held three frames long."""
    width: int | None = None
    """Animations: frame width in pixels (height follows); None keeps the exporter's default."""


@dataclass
class ExportResult:
    """What was written, for the command to say in one line."""

    path: Path
    summary: str
    warnings: list[str] = field(default_factory=list)
    ok: bool = True
    """False: the file was written but is known to be wrong (a golden path that does not verify); exit 1."""


class Exporter(Protocol):
    """One export format: what it reads, the file name it suggests, and the writing itself."""

    name: str
    scope: Scope
    """`episode`: one attempt directory; `run`: a run (or task) directory; `either`."""
    suffix: str
    """The file name's ending, with its dot (`.gif`)."""
    description: str

    def check(self) -> None:
        """Raise `ExportError` when this format cannot be written here (a missing encoder library)."""
        ...

    def export(self, source: Path, out: Path, options: ExportOptions) -> ExportResult:
        """Write `source` (already checked to be of `scope`) to `out`; raise `ExportError` on bad input."""
        ...


FORMATS: dict[str, tuple[str, str]] = {
    "gif": ("guilens.export.animation", "GifExporter"),
    "webp": ("guilens.export.animation", "WebpExporter"),
    "mp4": ("guilens.export.animation", "Mp4Exporter"),
    "jsonl": ("guilens.export.trajectory", "JsonlExporter"),
    "memgui": ("guilens.export.memgui", "MemguiExporter"),
    "golden": ("guilens.export.golden", "GoldenExporter"),
}
"""Format name -> (module, class). Order is the order `--help` lists them in."""


def exporter(name: str) -> Exporter:
    """The exporter for `name`, or `ExportError` listing the formats there are."""
    try:
        module, cls = FORMATS[name.lower()]
    except KeyError:
        raise ExportError(f"--format {name!r}: not a format; choose one of {', '.join(FORMATS)}") from None
    made: Exporter = getattr(importlib.import_module(module), cls)()
    return made


def is_episode(path: Path) -> bool:
    return (path / "episode.json").is_file()


def check_source(path: Path, scope: Scope, fmt: str) -> None:
    """Refuse, in one line, a path that is not the kind of directory `fmt` reads."""
    if not path.exists():
        raise ExportError(f"{path}: no such file or directory")
    if not path.is_dir():
        raise ExportError(f"{path}: not a directory; give an episode (attempt) directory or a run directory")
    episode = is_episode(path)
    has_episodes = episode or any(path.rglob("episode.json"))
    if scope == "episode" and not episode:
        hint = " (it is a run: give one of its attempt directories, e.g. <run>/<task>/attempt-1)" if has_episodes else ""
        raise ExportError(f"{path}: not an episode directory: no episode.json here{hint}; --format {fmt} "
                          "exports one episode")
    if scope == "run" and not has_episodes:
        raise ExportError(f"{path}: not a run directory: no episode.json under it; --format {fmt} exports a run")
    if scope == "run" and episode:
        raise ExportError(f"{path}: an episode directory; --format {fmt} exports a run: give the run directory "
                          f"({path.parent.parent})")
    if scope == "either" and not has_episodes:
        raise ExportError(f"{path}: neither an episode nor a run directory: no episode.json in or under it")


def default_name(source: Path, suffix: str) -> str:
    """A file name for `source`: `<task>-attempt-<n><suffix>` for an episode, `<run-id><suffix>` for a run."""
    src = source.resolve()
    if is_episode(src):
        return f"{src.parent.name}-{src.name}{suffix}"
    return f"{src.name}{suffix}"
