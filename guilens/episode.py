"""The episode record: what the runner writes and the TUI, judge and report read.

An attempt directory holds `episode.json` (rewritten atomically at start and at
end), `steps.jsonl` (one line per step, appended in order) and the screens and
UI trees the steps point at. The writing side is `guilens.recorder.Recorder`
(re-exported here); this module reads. A step line is written only after its
screenshot is on disk, so a reader never meets a step whose screen is missing,
however the writer died.

The models themselves (Episode, Step, Timings, ...) live in
`guilens.episode_model` and are re-exported here, so `from guilens.episode
import Step` keeps working; changing a field's meaning needs a `SCHEMA_VERSION`
bump there.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from PIL import Image
from pydantic import ValidationError

from guilens.episode_model import (
    FINAL_STATUSES,
    SCHEMA_VERSION,
    Ask,
    DeviceGap,
    Episode,
    LTMEntry,
    Memory,
    MilestoneHit,
    Status,
    Step,
    StepTimings,
    Timings,
    Usage,
)
from guilens.recorder import Recorder, encode_png

__all__ = [
    "FINAL_STATUSES", "SCHEMA_VERSION", "Ask", "DeviceGap", "Episode", "EpisodeError", "EpisodeReader", "LTMEntry", "Memory",
    "MilestoneHit", "Recorder", "Status", "Step", "StepTimings", "Timings", "Usage", "encode_png", "find_episodes",
    "monotonic", "now",
]


class EpisodeError(ValueError):
    """An episode directory that cannot be read; the message names the file."""


def _pid_alive(pid: int | None, host: str | None) -> bool:
    if not pid or (host and host != socket.gethostname()):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class EpisodeReader:
    """Opens an attempt directory lazily: the step index first, images on demand.

    A writer that died leaves a consistent prefix: a truncated last line is
    dropped, every complete step is kept, and the status reads `interrupted`.
    An episode that has not ended (interrupted, or still running) has no step
    count or milestones in `episode.json` yet: both are read from `steps.jsonl`
    at once, so `episode.steps` and `episode.milestones` are true for whoever
    reads them (the report, the judge, the replay).
    """

    def __init__(self, directory: Path | str) -> None:
        self.dir = Path(directory)
        ep_path = self.dir / "episode.json"
        if not ep_path.is_file():
            raise EpisodeError(f"{ep_path}: no episode.json here; is this an attempt directory?")
        try:
            self.episode = Episode.model_validate_json(ep_path.read_text(encoding="utf-8"))
        except ValidationError as err:
            raise EpisodeError(f"{ep_path}: not a guilens episode: {err.errors()[0]['msg']}") from None
        except ValueError as err:
            raise EpisodeError(f"{ep_path}: {err}") from None
        if self.episode.schema_version > SCHEMA_VERSION:
            raise EpisodeError(
                f"{ep_path}: schema_version {self.episode.schema_version} is newer than this guilens reads "
                f"({SCHEMA_VERSION}); upgrade guilens"
            )
        self.dropped_lines = 0
        self._steps: list[Step] | None = None
        self.interrupted = self.episode.status == "running" and not _pid_alive(self.episode.pid, self.episode.host)
        if self.interrupted:
            self.episode.status = "interrupted"
        if self.episode.status in ("running", "interrupted"):
            self.episode.steps = len(self.steps)
            if not self.episode.milestones:
                self.episode.milestones = [
                    MilestoneHit(id=m, step=s.index, by="human" if m in s.annotations else "rules")
                    for s in self.steps for m in s.milestones
                ]

    @property
    def steps(self) -> list[Step]:
        if self._steps is None:
            self._steps = self._load_steps()
        return self._steps

    def _load_steps(self) -> list[Step]:
        path = self.dir / "steps.jsonl"
        if not path.exists():
            return []
        by_index: dict[int, Step] = {}
        raw = path.read_bytes()
        lines = raw.split(b"\n")
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                step = Step.model_validate_json(line)
            except (ValidationError, ValueError):
                last = n == len(lines) or (n == len(lines) - 1 and not lines[-1])
                if last and not raw.endswith(b"\n"):
                    self.dropped_lines += 1  # a line cut short by a crash
                    continue
                raise EpisodeError(f"{path}:{n}: not a valid step line") from None
            by_index[step.index] = step
        return [by_index[i] for i in sorted(by_index)]

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def screen(self, index: int) -> Image.Image | None:
        """The screen the agent saw at step `index`; `index == len(steps)` is the final screen."""
        rel = self.steps[index].screen if index < len(self.steps) else self.episode.final_screen
        if rel is None:
            return None
        path = self.dir / rel
        if not path.exists():
            return None
        with Image.open(path) as img:
            return img.convert("RGB")

    def ui_xml(self, index: int) -> str | None:
        rel = self.steps[index].ui if index < len(self.steps) else f"ui/{index:04d}.xml"
        if rel is None or not (self.dir / rel).exists():
            return None
        return (self.dir / rel).read_text(encoding="utf-8")

    def final_state(self) -> dict[str, Any] | None:
        if not self.episode.final_state:
            return None
        path = self.dir / self.episode.final_state
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None

    def verdict(self) -> dict[str, Any] | None:
        path = self.dir / "verdict.json"
        if not path.exists():
            return None
        with contextlib.suppress(ValueError):
            return json.loads(path.read_text(encoding="utf-8"))
        return None


def find_episodes(root: Path | str) -> list[Path]:
    """Every attempt directory under `root` (a run, a task or an attempt directory), sorted."""
    root = Path(root)
    if (root / "episode.json").is_file():
        return [root]
    return sorted(p.parent for p in root.rglob("episode.json"))


def now() -> datetime:
    return datetime.now().astimezone()


def monotonic() -> float:
    return time.perf_counter()
