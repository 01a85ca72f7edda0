"""What the judge reads besides the episode: its task, and the hash that keys a verdict.

The task comes from the run directory's own copy when the runner left one
(`task.json` beside the attempt, or `scenario.json`/`scenario.yaml` at the run
root), because the built-in or on-disk scenario may have changed since the run;
otherwise from the scenario the episode names. Template values (slots, values
flowing from earlier tasks of a sequence) come from `episode.json`'s `values`.

The verdict key hashes every file the judge reads, the task definition, the
values, the stage configuration and the prompt files: any change to any of
them makes a new judgement, and nothing else does.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guilens.episode import EpisodeReader

if TYPE_CHECKING:
    from guilens.judge.pipeline import JudgeConfig

log = logging.getLogger(__name__)


# --- finding the task of an episode -----------------------------------------------------------------


def _scenario_copies(attempt_dir: Path) -> Iterable[Path]:
    """Scenario or task copies a runner may have left in the run directory, nearest first."""
    for d in (attempt_dir, attempt_dir.parent, attempt_dir.parent.parent):
        for name in ("task.json", "task.yaml", "scenario.json", "scenario.yaml", "scenario.yml"):
            p = d / name
            if p.is_file():
                yield p


@functools.lru_cache(maxsize=64)
def _read_copy(path: str, mtime_ns: int) -> tuple[Any, Any, dict[str, str]]:
    """A run's copy, parsed once per version of the file: (scenario or None, task or None, values).

    Schema validation only: a run's copy must stay readable when the sim's apps
    or the loader's cross-checks change later.
    """
    import yaml

    from guilens.scenarios.model import Scenario, Task

    p = Path(path)
    text = p.read_text(encoding="utf-8")
    data = json.loads(text) if p.suffix == ".json" else yaml.safe_load(text)
    if p.name.startswith("task."):
        values: dict[str, str] = {}
        if isinstance(data, dict) and isinstance(data.get("task"), dict):
            values = {str(k): str(v) for k, v in (data.get("values") or {}).items()}
            data = data["task"]
        return None, Task.model_validate(data), values
    return Scenario.model_validate(data), None, {}


def resolve_task(reader: EpisodeReader) -> tuple[Any, Any, dict[str, str], str]:
    """The episode's (scenario, task, template values, where it came from); task None when not found.

    The run directory's own copy wins over the built-in or on-disk scenario,
    which may have been edited since the run.
    """
    ep = reader.episode
    extra = ep.model_extra or {}
    values = {str(k): str(v) for k, v in (extra.get("values") or {}).items()}
    for path in _scenario_copies(reader.dir):
        try:
            scenario, task, copy_values = _read_copy(str(path), path.stat().st_mtime_ns)
            if task is not None:
                if task.id == ep.task:
                    return None, task, {**copy_values, **values}, str(path)
            elif scenario.id == ep.scenario or not ep.scenario:
                return scenario, scenario.task(ep.task), values, str(path)
        except Exception as err:  # a damaged copy: fall back to the scenario itself
            log.warning("ignoring %s: %s", path, err)
    if ep.scenario:
        try:
            from guilens.scenarios.loader import find_task

            scenario, task = find_task(f"{ep.scenario}:{ep.task}")
            return scenario, task, values, ep.scenario
        except Exception as err:
            return None, None, values, f"not found ({err})"
    return None, None, values, "the episode names no scenario"


# --- the content hash ------------------------------------------------------------------------------


def episode_hash(attempt_dir: Path) -> str:
    """A hash of every file the judge reads; `verdict.json` and temp files excluded."""
    h = hashlib.sha256()
    root = Path(attempt_dir)
    files = [p for p in root.rglob("*") if p.is_file() and not p.name.startswith(".")
             and p.name != "verdict.json" and p.relative_to(root).parts[0] in ("screens", "ui", "episode.json",
                                                                               "steps.jsonl", "final_state.json")]
    for p in sorted(files):
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        h.update(b"\0")
    return h.hexdigest()


def verdict_key(attempt_dir: Path, task: Any, values: dict[str, str], config: JudgeConfig, llm: bool) -> str:
    h = hashlib.sha256(episode_hash(attempt_dir).encode())
    task_blob = task.model_dump_json() if task is not None else "null"
    h.update(task_blob.encode())
    h.update(json.dumps(values, sort_keys=True).encode())
    h.update(json.dumps(config.identity(llm), sort_keys=True).encode())
    return h.hexdigest()
