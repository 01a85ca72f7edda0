"""Where scenario files are: the built-in packs' folder and the rule that finds files in a folder.

Apart from the loader because `scenarios list` reads the built-in packs' kept listings without
importing the loader (which imports the pydantic model); both must find the same files.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

BUILTIN_DIR = Path(__file__).parent / "builtin"
"""The packs shipped with guilens."""

SUFFIXES = (".yaml", ".yml", ".json")


def scenario_files(paths: Iterable[str | Path]) -> list[Path]:
    """The scenario files named: files as given, directories searched for *.yaml, *.yml, *.json."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            out += sorted(q for q in p.rglob("*") if q.suffix in SUFFIXES and q.is_file())
        else:
            out.append(p)
    return out


def builtin_files() -> list[Path]:
    return scenario_files([BUILTIN_DIR])
