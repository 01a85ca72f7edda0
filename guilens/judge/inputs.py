"""What the judge reads besides the episode: its task, and the hash that keys a verdict.

The task comes from the run directory's own copy when there is one (the runner
writes `scenario.json` at the run root, `guilens.run.store.save_scenario`; a
`task.json` beside the attempt, or a `scenario.yaml`, are read too), because the
built-in or on-disk scenario may have changed since the run; otherwise from what
the run was given (`run.json`'s target: a scenario file, or a built-in), else the
built-in scenario the episode names. Template values come from `episode.json`'s `values`:
the runner records every value it filled the task's templates with (the user's
slots and the values flowing from earlier tasks of a sequence). An episode from
before that field, in a sequence, gets the values the earlier tasks of its run
handed on (`run.json`), else what they hand on when done right.

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
    recorded = ep.values if "values" in ep.model_fields_set else None  # older episodes have none
    values = {str(k): str(v) for k, v in (recorded or {}).items()}
    for path in _scenario_copies(reader.dir):
        try:
            scenario, task, copy_values = _read_copy(str(path), path.stat().st_mtime_ns)
            if task is not None:
                if task.id == ep.task:
                    return None, task, {**copy_values, **values}, str(path)
            elif scenario.id == ep.scenario or not ep.scenario:
                task = scenario.task(ep.task)
                if recorded is None:
                    values = {**_sequence_values(reader, scenario, task), **values}
                return scenario, task, values, str(path)
        except Exception as err:  # a damaged copy: fall back to the scenario itself
            log.warning("ignoring %s: %s", path, err)
    if ep.scenario:
        found = _run_target(reader)
        if found is None:
            try:
                from guilens.scenarios.loader import find_task

                scenario, task = find_task(f"{ep.scenario}:{ep.task}")
            except Exception as err:
                return None, None, values, f"not found ({err})"
            found = scenario, task, ep.scenario
        scenario, task, origin = found
        if recorded is None:
            values = {**_sequence_values(reader, scenario, task), **values}
        return scenario, task, values, origin
    return None, None, values, "the episode names no scenario"


def _run_target(reader: EpisodeReader) -> tuple[Any, Any, str] | None:
    """The scenario as the run was asked for it (`run.json`'s `target`: a file, or a built-in id),
    when it holds the episode's task: a run from before `scenario.json` of a scenario file."""
    ep = reader.episode
    try:
        target = json.loads((reader.dir.parent.parent / "run.json").read_text(encoding="utf-8")).get("target")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(target, str) or not target:
        return None
    try:
        from guilens.scenarios.loader import find_task

        scenario, _ = find_task(target)
        if scenario.id != ep.scenario:
            return None
        return scenario, scenario.task(ep.task), target
    except Exception:  # moved, deleted or broken since the run: the episode's scenario id is next
        return None


def _sequence_values(reader: EpisodeReader, scenario: Any, task: Any) -> dict[str, str]:
    """For an episode that predates `values`: what the earlier tasks of its day handed on.

    `run.json` records the values each task of a sequence run handed on; tasks it
    does not cover (replayed before the first selected one) count as done right.
    """
    if scenario.kind != "sequence":
        return {}
    out = scenario.expected_values(task)
    run_json = reader.dir.parent.parent / "run.json"
    try:
        results = json.loads(run_json.read_text(encoding="utf-8")).get("results", {})
    except (OSError, ValueError, AttributeError):
        return out
    for t in scenario.tasks:
        if t.id == task.id:
            break
        got = results.get(t.id, {}).get("values") if isinstance(results.get(t.id), dict) else None
        out.update({str(k): str(v) for k, v in (got or {}).items()})
    return out


# --- the content hash ------------------------------------------------------------------------------


def episode_hash(attempt_dir: Path) -> str:
    """A hash of every file the judge reads; `verdict.json` and temp files excluded."""
    h = hashlib.sha256()
    root = Path(attempt_dir)
    files = [p for p in root.rglob("*") if p.is_file() and not p.name.startswith(".")
             and p.name != "verdict.json" and p.relative_to(root).parts[0] in ("screens", "ui", "state", "episode.json",
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
