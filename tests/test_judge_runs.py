"""The rules stage on real runs: the run's own scenario copy and values, and state milestones at their real step."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from guilens.judge.pipeline import judge_episode
from tests.runner_helpers import SMALL, run, write_scenarios


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_scenarios(tmp_path)


def _edit(path: Path, **fields: object) -> None:
    data = json.loads(path.read_text())
    for k, v in fields.items():
        if v is None:
            data.pop(k, None)
        else:
            data[k] = v
    path.write_text(json.dumps(data))


def _steps_of(v) -> list[tuple[str, int | None]]:
    return [(m.id, m.step) for m in v.milestones]


def test_an_edit_to_the_scenario_after_the_run_does_not_change_the_verdict(files, tmp_path):
    result = run(f"{files[0]}:grocery", tmp_path / "runs", screen=SMALL)
    attempt = result.run_dir / "grocery" / "attempt-1"
    before = judge_episode(attempt, ["rules"])
    assert before.decision == "success" and before.task_source.endswith("scenario.json")
    # The pack is edited: the note must now say eggs, and the user's slot follows.
    files[0].write_text(files[0].read_text().replace("value: milk", "value: eggs")
                        .replace("item: {value: milk", "item: {value: eggs"))
    after = judge_episode(attempt, ["rules"], force=True)
    assert (after.decision, after.reason, after.key) == (before.decision, before.reason, before.key)
    assert _steps_of(after) == _steps_of(before)
    # Without the run's copy the judge would read the edited file and disagree.
    (result.run_dir / "scenario.json").unlink()
    edited = judge_episode(attempt, ["rules"], force=True)  # the file the run was given (run.json)
    assert edited.task_source == f"{files[0]}:grocery" and edited.decision == "failure"
    assert "eggs" in json.dumps(edited.stage("rules").details)


def test_the_judge_fills_templates_with_the_values_the_run_used(files, tmp_path):
    day = run(files[1], tmp_path / "runs", screen=SMALL)
    attempt = day.run_dir / "write" / "attempt-1"
    assert judge_episode(attempt, ["rules"]).decision == "success"  # {money} is 42, from `read`'s answer
    _edit(attempt / "episode.json", values={"money": "41"})
    wrong = judge_episode(attempt, ["rules"])  # a new key: the values are part of it
    assert wrong.decision == "failure" and "41" in json.dumps(wrong.stage("rules").details)
    # An episode from before `values`: what the earlier tasks of its run handed on (run.json)
    _edit(attempt / "episode.json", values=None)
    assert judge_episode(attempt, ["rules"]).decision == "success"


def test_state_milestones_are_credited_at_the_step_that_reached_them(files, tmp_path):
    result = run(f"{files[0]}:grocery", tmp_path / "runs", level="L1", screen=SMALL)
    attempt = result.run_dir / "grocery" / "attempt-1"
    live = [(h.id, h.step) for h in result.tasks["grocery"].attempts[0].milestones]
    assert live == [("editor", 1), ("saved", 6)]
    v = judge_episode(attempt, ["rules"])
    assert v.decision == "success" and _steps_of(v) == live
    assert v.stage("rules").details["screens_with_state"] == 9  # 8 steps and the final screen
    # The replay alone says so: not the live record, which a changed task could no longer vouch for.
    _edit(attempt / "episode.json", milestones=[])
    v = judge_episode(attempt, ["rules"])
    assert v.decision == "success" and _steps_of(v) == live


SAVED_ONLY = """\
id: late
tasks:
  - id: grocery
    apps: [notes]
    instruction: {L0: "In Notes, create a note titled Groceries whose text is milk."}
    difficulty: 1
    golden_steps: 8
    milestones:
      - id: listed
        text: "The note list is open"
        check: {screen_text: "New note"}
      - id: saved
        text: "A note titled Groceries says milk"
        check: {state: apps.notes.notes, where: {title: Groceries}, field: body, op: contains, value: milk}
    reference:
      - open: notes
      - tap: New note
      - type: Groceries
      - tap: {id: body}
      - type: milk
      - tap: Save
      - back
      - finish
"""


def _as_before(attempt: Path) -> None:
    """What an older runner left: no `state` on the step lines, no state files, the final state only."""
    lines = [json.loads(line) for line in (attempt / "steps.jsonl").read_text().splitlines()]
    (attempt / "steps.jsonl").write_text("".join(json.dumps({k: v for k, v in s.items() if k != "state"}) + "\n"
                                                 for s in lines))
    shutil.rmtree(attempt / "state")


def test_an_episode_without_per_step_state_is_judged_as_before(tmp_path):
    path = tmp_path / "late.yaml"
    path.write_text(SAVED_ONLY)
    result = run(f"{path}:grocery", tmp_path / "runs", screen=SMALL)
    attempt = result.run_dir / "grocery" / "attempt-1"
    now = judge_episode(attempt, ["rules"])
    assert now.decision == "success" and _steps_of(now) == [("listed", 0), ("saved", 5)]
    _as_before(attempt)
    # the state only at the end: `saved` shows on the final screen, and the live record says when it was reached
    old = judge_episode(attempt, ["rules"])
    assert old.decision == "success" and _steps_of(old) == [("listed", 0), ("saved", 5)]
    assert old.stage("rules").details["screens_with_state"] == 1
    _edit(attempt / "episode.json", milestones=[])
    assert _steps_of(judge_episode(attempt, ["rules"])) == [("listed", 0), ("saved", 7)]  # the final screen
