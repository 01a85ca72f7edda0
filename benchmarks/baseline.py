"""`--baseline DIR` for the benchmarks that run another guilens tree beside this one.

DIR holds another guilens package (`DIR/guilens`, e.g. the last commit's:
`git archive HEAD guilens | tar -x -C DIR`). A benchmark runs each measurement in a fresh
process; for the baseline's, that process (and any device process it forks) must import
DIR's guilens, not this tree's, and must be seen to have done so.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "GUILENS_BENCH_ROOT"
"""Set in a baseline process's environment to DIR: a benchmark that puts its own tree first on
`sys.path` puts this folder there instead."""


def check(root: Path | None) -> None:
    """Refuse, in one line, a `--baseline` folder that holds no guilens package."""
    if root is not None and not (root / "guilens" / "__init__.py").is_file():
        raise SystemExit(f"--baseline {root}: no guilens package in it (DIR/guilens/__init__.py)")


def environ(root: Path | None) -> dict[str, str]:
    """The environment of a measuring process: this one's, with `root`'s guilens first when given."""
    env = dict(os.environ)
    env.pop(ENV, None)
    if root is not None:
        env[ENV] = str(root)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH", "")) if p)
    return env


def cwd(root: Path | None) -> Path:
    """Where a measuring process starts: in `root` for a baseline's, else in this tree. Its fork server (device processes)
    runs `python -c`, which puts the working directory first on its path, and Python 3.11's ignores
    the path it is handed: started from this tree, a baseline run's devices imported this tree's
    guilens, not the baseline's."""
    return root if root is not None else Path(__file__).resolve().parent.parent


def check_imported(imported: str, root: Path | None) -> None:
    """Stop when a baseline process imported a guilens other than `root`'s (`imported`: its `__file__`)."""
    if root is not None and not Path(imported).resolve().is_relative_to(root.resolve()):
        raise SystemExit(f"the baseline run imported {imported}, not the guilens in {root}")


def turns(root: Path | None, round_index: int) -> list[Path | None]:
    """The trees to measure in round `round_index` (0-based), in order: None for this tree, `root` for the
    baseline (when given), which goes first in the 1st, 3rd, ... rounds and second in the others. Of two
    runs back to back the second was the slower in most pairs, whichever tree it was."""
    if root is None:
        return [None]
    return [root, None] if round_index % 2 == 0 else [None, root]
