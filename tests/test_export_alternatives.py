"""Exporting an episode of a task with alternative paths (PSPA-Bench's "choose one path" nodes) as a
golden path: the path the episode took gets its golden steps, the written reference takes it, the
other paths keep a reference that takes them, and `scenarios verify` passes on the file."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from guilens.config import Settings
from guilens.export import write_baseline
from guilens.export.marks import _placements, each_milestone, rehome_references
from guilens.run.engine import Runner
from guilens.run.plan import plan_run

HARD = "hard:shoe-shortlist-share"


def _episode(tmp_path: Path, path: str | None = None) -> Path:
    """An oracle episode of the hard task; `path`: played by that path's own reference instead (the
    run's scenario copy still holds the task as the pack has it)."""
    settings = Settings(run_dir=tmp_path / "runs", cache_dir=tmp_path / "cache")
    plan = plan_run(HARD, agent="oracle", devices=["sim"], out=tmp_path / "runs", settings=settings)
    if path is not None:
        task = plan.tasks[0]
        ref = task.alternatives()[0].path(path).reference
        plan = dataclasses.replace(plan, tasks=[task.model_copy(update={"reference": list(ref)})])
    runner = Runner(plan)
    result = runner.run()
    assert result.episodes[0].status == "success"
    assert runner.run_dir is not None
    return runner.run_dir / "shoe-shortlist-share" / "attempt-1"


def _paths(b: Any) -> dict[str, dict[str, Any]]:
    item = next(it for it in b.task["milestones"] if "any_of" in it)
    return {p["id"]: p for p in item["any_of"]}


def test_the_path_taken_gets_the_episodes_golden_steps_and_the_other_none(tmp_path: Path) -> None:
    b = write_baseline(_episode(tmp_path), tmp_path / "out.yaml")
    assert b.verdicts is not None
    assert all(v.ok for v in b.verdicts), [f for v in b.verdicts for f in v.findings if not f.ok]
    paths = _paths(b)
    steps = {m["id"]: m.get("golden_step") for p in paths.values() for m in p["milestones"]}
    assert steps == {"chat-open": 36, "message-sent": 40, "note-titled": None, "note-saved": None}
    assert "reference" not in paths["by-message"] and paths["by-note"]["reference"]
    assert not [n for n in b.notes if "note-" in n], b.notes  # the path not taken is no warning
    assert b.milestone_count() == 8


def test_an_episode_by_the_other_path_hands_the_old_reference_to_the_path_it_took(tmp_path: Path) -> None:
    b = write_baseline(_episode(tmp_path, "by-note"), tmp_path / "out.yaml")
    assert b.verdicts is not None
    assert all(v.ok for v in b.verdicts), [f for v in b.verdicts for f in v.findings if not f.ok]
    paths = _paths(b)
    assert "reference" not in paths["by-note"]  # the task's reference (the episode's path) takes it
    assert paths["by-message"]["reference"][0] == {"ask": {"question": "Who should I share the shortlist with?",
                                                           "slot": "recipient"}}
    steps = {m["id"]: m.get("golden_step") for p in paths.values() for m in p["milestones"]}
    assert steps["chat-open"] is None and steps["message-sent"] is None
    assert steps["note-titled"] is not None and steps["note-saved"] == b.task["golden_steps"] - 1


def test_a_mark_goes_after_a_done_alternatives_item_and_never_inside_one() -> None:
    alt: dict[str, Any] = {"id": "shared", "text": "t", "any_of": [
        {"id": "a", "milestones": [{"id": "a1", "text": "x"}]},
        {"id": "b", "milestones": [{"id": "b1", "text": "y"}, {"id": "b2", "text": "z"}]}]}
    ms: list[dict[str, Any]] = [{"id": "first", "text": "f"}, alt]
    new = {"id": "mark", "text": "m"}
    after = _placements(ms, {"first": 1, "b1": 2, "b2": 3}, 4, new)
    assert [[it["id"] for it in p] for p in after] == [["first", "shared", "mark"]]
    before = _placements(ms, {"first": 1, "b1": 2}, 3, new)
    assert [[it.get("id", "group") for it in p] for p in before] == [["first", "mark", "shared"]]
    assert [m["id"] for m in each_milestone(ms)] == ["first", "a1", "b1", "b2"]
    moved = rehome_references([{**alt, "any_of": [{**alt["any_of"][0], "reference": ["back"]}, alt["any_of"][1]]}],
                               {"shared": "a"}, ["home"])
    assert "reference" not in moved[0]["any_of"][0] and moved[0]["any_of"][1]["reference"] == ["home"]
