"""pass@k: reset between attempts, lessons and long-term memory carried, stop at the first success."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.runner_helpers import FlakyAgent, read_steps, run, write_scenarios

FLAKY = "tests.runner_helpers:FlakyAgent"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    FlakyAgent.seen_lessons = []
    return write_scenarios(tmp_path)


def test_failing_first_attempt_then_success_carries_lessons(files, tmp_path):
    result = run(f"{files[0]}:grocery", tmp_path / "runs", agent=FLAKY, attempts=3, level="L1")
    task = result.tasks["grocery"]
    assert [ep.status for ep in task.attempts] == ["failure", "success"]  # stopped at the first success
    assert task.status == "success" and task.first_success == 2
    rd = result.run_dir
    assert sorted(p.name for p in (rd / "grocery").iterdir()) == ["attempt-1", "attempt-2"]
    first, second = (json.loads((rd / "grocery" / f"attempt-{n}" / "episode.json").read_text()) for n in (1, 2))
    assert first["attempt"] == 1 and first["attempts"] == 3 and first["steps"] == 1
    lesson = "attempt 1 gave up after 1 step(s): do not give up"
    assert first["lessons_learned"] == [lesson]
    assert second["lessons"] == [lesson]  # what the second attempt was given
    assert FlakyAgent.seen_lessons == [[], [lesson]]
    # the device was reset: the second attempt starts from the launcher, not where the first stopped
    steps = read_steps(rd / "grocery" / "attempt-2")
    assert steps[0]["app"] == "com.guilens.launcher" and steps[-1]["memory"]["lessons"] == [lesson]
    saved = json.loads((rd / "grocery" / "attempt-2" / "final_state.json").read_text())
    assert [n["title"] for n in saved["apps"]["notes"]["notes"]] == ["Groceries", "Budget"]
    ltm = json.loads((rd / "ltm" / "grocery.json").read_text())
    assert ltm["lessons"] == [lesson] and ltm["after"] == {"task": "grocery", "attempt": 2}
    meta = json.loads((rd / "run.json").read_text())
    assert meta["results"]["grocery"] == {"status": "success", "attempts": 2, "first_success": 2,
                                          "statuses": ["failure", "success"]}


def test_all_attempts_runs_every_attempt(files, tmp_path):
    result = run(f"{files[0]}:budget", tmp_path / "runs", attempts=3, all_attempts=True)
    task = result.tasks["budget"]
    assert [ep.status for ep in task.attempts] == ["success"] * 3 and task.first_success == 1
    # LTM carried from attempt to attempt (the oracle starts from what it was given)
    assert [len(ep.lessons) for ep in task.attempts] == [0, 0, 0]
    steps = read_steps(result.run_dir / "budget" / "attempt-3")
    assert steps[0]["memory"]["ltm"][0]["content"].startswith("Lunch money")


def test_every_attempt_failing_ends_the_task_failed(files, tmp_path):
    result = run(f"{files[0]}:budget", tmp_path / "runs", attempts=2, max_steps=1)
    task = result.tasks["budget"]
    assert [ep.status for ep in task.attempts] == ["timeout", "timeout"] and task.status == "timeout"
    assert task.first_success is None
    assert task.attempts[0].lessons_learned == ["attempt 1: ran out of steps (1); stay on the reference path"]
