"""Exporting an episode as a task: a person's (or an agent's) path becomes a golden path.

A person runs a task with `--agent human` (or takes over part of an agent's
episode), marking milestones with `m` as they reach them; `guilens scenarios
from-episode` turns the episode into a scenario file whose task has the
episode's path as its reference, its golden steps counted on that path, and its
milestones (the task's own and the marks) at the steps the episode reached
them, so that `guilens scenarios verify` passes on what it wrote.

- `path`: recorded steps -> reference steps (with `targets`: which element a
  tap or swipe touched, and a selector that finds it again);
- `marks`: milestones' golden steps, and marks turned into milestones;
- `task`: the file: the task, and the tasks it needs (its mirror twin, the
  earlier tasks of its day).

`guilens export` (`formats`: the protocol and registry) writes an episode or a run
in other shapes, one module per format: `animation` (GIF, WebP, MP4),
`trajectory` (JSON Lines), `memgui` (MemGUI-Bench's leaderboard JSON) and
`golden` (the golden path above, under that command too).

The names below are imported on first use, so that `guilens --help` (which
reads `formats` for the format list) does not pay for the episode models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from guilens.export.task import (
        Baseline,
        BaselineError,
        task_from_episode,
        verify_baseline,
        write_baseline,
    )

__all__ = ["Baseline", "BaselineError", "task_from_episode", "verify_baseline", "write_baseline"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from guilens.export import task

        return getattr(task, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
