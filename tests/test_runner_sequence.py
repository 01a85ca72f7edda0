"""A persistent day: no reset, the clock per task, values flowing, failed prerequisites blocking."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guilens.episode import EpisodeReader
from tests.runner_helpers import FlakyAgent, read_steps, run, write_scenarios


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    FlakyAgent.seen_lessons = []
    return write_scenarios(tmp_path)


def test_day_runs_in_order_with_values_and_clock(files, tmp_path):
    result = run(files[1], tmp_path / "runs")
    assert {t: r.status for t, r in result.tasks.items()} == {"read": "success", "write": "success", "check": "success"}
    rd = result.run_dir
    write = json.loads((rd / "write" / "attempt-1" / "episode.json").read_text())
    assert write["instruction"] == "Create a note titled Lunch whose text is 42."  # {money} from `read`'s answer
    assert write["sequence_index"] == 1
    # no reset: `write` starts where `read` left the phone (inside Notes), at its own clock time
    first = read_steps(rd / "write" / "attempt-1")[0]
    assert first["app"] == "com.guilens.notes" and first["clock"].startswith("2026-11-23T12:30")
    assert read_steps(rd / "check" / "attempt-1")[0]["clock"].startswith("2026-11-23T18:00")
    meta = json.loads((rd / "run.json").read_text())
    assert meta["sequence"] is True and meta["results"]["read"]["values"] == {"money": "42"}
    # LTM is one stream for the whole day
    assert (rd / "ltm" / "rtday.json").is_file() and not (rd / "ltm" / "read.json").exists()


def test_failed_prerequisite_blocks_its_dependents(files, tmp_path):
    result = run(files[1], tmp_path / "runs", agent="tests.runner_helpers:FlakyAgent")
    assert {t: r.status for t, r in result.tasks.items()} == {"read": "failure", "write": "blocked", "check": "blocked"}
    rd = result.run_dir
    for tid, why in (("write", "read (failure)"), ("check", "write (blocked)")):
        reader = EpisodeReader(rd / tid / "attempt-1")
        assert reader.episode.status == "blocked" and len(reader) == 0
        assert reader.episode.error == f"prerequisite failed: {why}"
    assert FlakyAgent.seen_lessons == [[]]  # recorded, not run
    meta = json.loads((rd / "run.json").read_text())
    assert meta["results"]["check"]["status"] == "blocked" and meta["status"] == "completed"


def test_retry_in_a_day_restores_the_phone_before_the_task(files, tmp_path):
    result = run(files[1], tmp_path / "runs", agent="tests.runner_helpers:FlakyAgent", attempts=2)
    assert {t: r.status for t, r in result.tasks.items()} == {"read": "success", "write": "success", "check": "success"}
    assert [len(r.attempts) for r in result.tasks.values()] == [2, 2, 2]
    rd = result.run_dir
    assert read_steps(rd / "write" / "attempt-2")[0]["app"] == "com.guilens.notes"


def test_one_task_of_a_day_replays_the_earlier_ones_first(files, tmp_path):
    result = run(f"{files[1]}:check", tmp_path / "runs")
    assert list(result.tasks) == ["check"] and result.tasks["check"].status == "success"
    meta = json.loads((result.run_dir / "run.json").read_text())
    assert meta["prefix"] == ["read", "write"] and meta["warnings"] == []
    ep = json.loads((result.run_dir / "check" / "attempt-1" / "episode.json").read_text())
    assert ep["sequence_index"] == 2 and ep["final_answer"] == "42"
