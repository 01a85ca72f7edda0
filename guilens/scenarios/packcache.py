"""The built-in packs' parsed YAML, kept across processes in the cache dir (`<cache_dir>/scenarios/`).

Why: `guilens scenarios list` (and `show`, and the home screen) read the seven built-in packs on every
start. Parsing them takes about 90 ms (`benchmarks/bench_startup.py`), and checking them against the simulated phone (its apps, their
state models) imports the whole sim, Pillow included: about 50 ms more, of a command that should take
under 300. Once a pack has passed every check, its parsed data is kept here; the next process rebuilds
the `Scenario` from it with the pydantic model alone (3 ms), and never imports the sim to list it.

An entry is used only while everything it was checked with is unchanged: it is keyed by a hash of the
pack's text and path, of every guilens module's mtime and size (a checkout being edited), and of the
Python, pydantic and PyYAML versions. A pack with problems is never kept, so its problems are always
found again, with their lines; `guilens scenarios validate` never reads the cache.

An entry has a part: `parse` (the parsed YAML) or `listing` (what `scenarios list` prints of the pack,
`guilens/scenarios/listing.py`), each one file per pack overwritten in place: the cache holds two small
files per built-in pack whatever happens. A cache
that cannot be read, parsed or written is a miss, never an error. The entries are pickles of the
parsed YAML (dicts, lists, strings, numbers, dates: a YAML safe load's types, dates included, which
JSON would turn into strings), read back by an unpickler that refuses every class but those, so an
entry is data, never code. Written by hand because no library keeps a validated parse this way:
the key needs guilens's own notion of what the checks depend on.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import os
import pickle
import sys
from pathlib import Path
from typing import Any

FORMAT = 1
"""Bumped when what an entry holds changes."""

_PLAIN = {("datetime", name) for name in ("date", "datetime", "time", "timedelta", "timezone")}
"""The only classes an entry may name: what a YAML safe load builds besides the builtin types."""


class _PlainData(pickle.Unpickler):
    """Unpickles what a YAML safe load can hold, and refuses every other class."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _PLAIN:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not plain data")


@functools.lru_cache(maxsize=1)
def code_stamp() -> str:
    """A hash of what a pack's checks depend on: guilens's modules (mtime and size), the Python version,
    and pydantic's and PyYAML's installed files (`__init__.py`, `version.py`: a new release rewrites them).

    Stat-ing the package's ~250 modules takes about 2 ms; an installed wheel never changes, and a
    checkout being edited gets its packs checked again after every edit.
    """
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{FORMAT} {sys.version}\n".encode())
    for name in ("pydantic", "yaml"):  # their versions, by their files: importing PyYAML to read
        spec = importlib.util.find_spec(name)  # `__version__` would cost `scenarios list` 15 ms
        origin = spec.origin if spec is not None else None
        for f in ([origin, os.path.join(os.path.dirname(origin), "version.py")] if origin else []):
            with contextlib.suppress(OSError):
                st = os.stat(f)
                h.update(f"{name} {f} {st.st_mtime_ns} {st.st_size}\n".encode())
    package = Path(__file__).resolve().parent.parent
    for folder, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(folder, name))
                h.update(f"{folder}/{name} {st.st_mtime_ns} {st.st_size}\n".encode())
    return h.hexdigest()


def _key(pack: Path, text: str, part: str = "parse") -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{code_stamp()}\n{part}\n{pack.resolve()}\n".encode())
    h.update(text.encode("utf-8", errors="surrogatepass"))
    return h.hexdigest()


def _folder() -> Path | None:
    """`<cache_dir>/scenarios`, or None when the setting cannot be read (the command will say why
    when it needs the settings; listing the packs does not). Read by `settings_file.cache_dir`, the
    one setting alone, so listing the packs never builds the settings' pydantic model."""
    from guilens.settings_file import cache_dir

    try:
        return cache_dir() / "scenarios"
    except (OSError, ValueError):  # ConfigError is a ValueError
        return None


def _entry(pack: Path, part: str) -> Path | None:
    folder = _folder()
    return None if folder is None else folder / (f"{pack.stem}.pickle" if part == "parse" else
                                                 f"{pack.stem}.{part}.pickle")


def recall(pack: Path, text: str, part: str = "parse") -> Any | None:
    """The data kept for this part of this pack's text, or None (no entry, a stale one, or an unreadable one)."""
    entry = _entry(pack, part)
    if entry is None:
        return None
    try:
        with entry.open("rb") as f:
            kept = _PlainData(f).load()
    except FileNotFoundError:
        return None
    except Exception:  # a truncated, foreign or corrupt entry, in any of the ways pickle can say so: a miss
        return None
    if not (isinstance(kept, tuple) and len(kept) == 2 and kept[0] == _key(pack, text, part)):
        return None
    return kept[1]


def store(pack: Path, text: str, data: Any, part: str = "parse") -> None:
    """Keep a part of a pack that passed every check; a cache that cannot be written is skipped."""
    entry = _entry(pack, part)
    if entry is None:
        return
    from guilens.storage import write_atomic

    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(entry, pickle.dumps((_key(pack, text, part), data), protocol=pickle.HIGHEST_PROTOCOL), unique=True)
    except (OSError, pickle.PicklingError):  # StorageError is an OSError
        return
