"""Runs for the `guilens export` tests: real oracle runs of a few built-in memory tasks, judged by rules.

The tasks are chosen to cover what the leaderboard groups by: 1, 2, 3 and 4
apps, easy and medium, memory and standard tasks. They are copied out of the
built-in pack into a scenario file of their own (none is another's mirror
twin, so each stands alone), and run on the smaller simulated phone.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from runner_helpers import SMALL, run

from guilens.judge.pipeline import judge_path

TASKS = ("better-rated-shoe", "portfolio-value", "office-order-note", "eu-tech-import", "filter-running-shoes")
"""1 app easy memory; 2 apps easy; 3 apps medium; 4 apps medium; 1 app standard (no memory)."""


def subset_scenario(tmp: Path, tasks: tuple[str, ...] = TASKS) -> Path:
    pack = Path(__file__).resolve().parent.parent / "guilens" / "scenarios" / "builtin" / "memory.yaml"
    data = yaml.safe_load(pack.read_text(encoding="utf-8"))
    data["id"] = "memory-few"
    data["tasks"] = [t for t in data["tasks"] if t["id"] in tasks]
    assert len(data["tasks"]) == len(tasks)
    path = tmp / "memory-few.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def judged_run(tmp: Path, name: str, **kw: object) -> Path:
    """Run the subset with the oracle (or `kw`), judge it with rules; return the run directory."""
    out = tmp / name
    run(subset_scenario(tmp), out, screen=SMALL, **kw)
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    judge_path(run_dir, stages=["rules"])
    return run_dir
