"""The rules stage on hand-recorded episodes: what it decides, and what it refuses to guess."""

from __future__ import annotations

import json
from pathlib import Path

from guilens.judge.pipeline import judge_episode
from tests.judge_helpers import NOTE_STATE_OK, make_run, note_failure, note_success, record


def test_success_and_failure_with_milestone_steps(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    ok = judge_episode(note_success(run), ["rules"])
    assert (ok.decision, ok.decided_by, ok.progress) == ("success", "rules", 1.0)
    assert [(m.id, m.step, m.screen) for m in ok.milestones] == [("editor", 0, 1), ("saved", 2, 3)]
    bad = judge_episode(note_failure(run, attempt=2), ["rules"])
    assert bad.decision == "failure" and "saved" in bad.reason and bad.progress == 0.5
    assert "79.99" in bad.stage("rules").details["milestones"][1]["check"]


def test_a_timeout_is_a_failure_whatever_the_last_screen_shows(tmp_path: Path) -> None:
    ep = record(make_run(tmp_path), "note",
                [["Notes"], ["New note"], ["Shoes", "ASICS 89.99"]],
                [{"type": "tap", "x": 1, "y": 1}, {"type": "type", "text": "ASICS 89.99"}],
                final_state=NOTE_STATE_OK, status="timeout")
    v = judge_episode(ep, ["rules"])
    assert v.decision == "failure" and "step budget" in v.reason and "timeout is a failure" in v.reason
    assert v.progress == 1.0 and v.stage("rules").details["rules_ok"] is True  # progress still counts


def test_without_device_state_the_rules_do_not_guess(tmp_path: Path) -> None:
    ep = record(make_run(tmp_path), "note", [["Notes"], ["New note"], ["Shoes", "ASICS 89.99"]],
                [{"type": "tap", "x": 1, "y": 1}, {"type": "type", "text": "ASICS 89.99"}], final_state=None)
    v = judge_episode(ep, ["rules"])
    r = v.stage("rules")
    assert r.status == "undecided" and "no device state was recorded" in r.reason and v.decision == "undecided"
    assert [(m.id, m.reached) for m in v.milestones] == [("editor", True), ("saved", None)] and v.progress is None


def test_answers_are_checked_against_the_expectation(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    screens = [["Calculator"], ["ASICS Gel", "89.99"], ["ASICS Gel"]]
    good = record(run, "price", screens, [{"type": "tap", "x": 1, "y": 2}, {"type": "answer", "text": "$89.99"}],
                  final_answer="$89.99", final_state={})
    assert judge_episode(good, ["rules"]).decision == "success"
    wrong = record(run, "price", screens, [{"type": "tap", "x": 1, "y": 2}, {"type": "answer", "text": "$98.99"}],
                   attempt=2, final_answer="$98.99", final_state={}, status="failure")
    v = judge_episode(wrong, ["rules"])
    assert v.decision == "failure" and "98.99" in v.reason


def test_a_changed_task_definition_is_flagged(tmp_path: Path) -> None:
    ep = note_success(make_run(tmp_path))
    data = json.loads((ep / "episode.json").read_text())
    data["milestones_total"] = 3
    data["milestones"] = [{"id": "old-one", "step": 1}]
    (ep / "episode.json").write_text(json.dumps(data))
    v = judge_episode(ep, ["rules"])
    (w,) = v.warnings
    assert "has changed since the run" in w and "3 milestones" in w and "old-one" in w
    assert v.task_source.endswith("scenario.yaml")


def test_the_runs_task_copy_wins_and_carries_values(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    ep = note_success(run)
    # A task copy beside the attempt, with a template the copy's values fill.
    (ep / "task.json").write_text(json.dumps({"values": {"price": "89.99"}, "task": {
        "id": "note", "apps": ["notes"], "instruction": {"L0": "Note {price}"}, "difficulty": 1, "golden_steps": 3,
        "milestones": [{"id": "saved", "text": "saved {price}", "check": {
            "state": "notes.notes", "where": {"title": "Shoes"}, "field": "body", "op": "contains",
            "value": "{price}"}}]}}))
    v = judge_episode(ep, ["rules"])
    assert v.decision == "success" and [m.id for m in v.milestones] == ["saved"]
    assert v.task_source.endswith("task.json") and "'89.99'" in v.stage("rules").details["milestones"][0]["check"]


def test_a_timeout_fails_even_without_the_task_definition(tmp_path: Path) -> None:
    run = make_run(tmp_path, scenario="id: other\ntasks:\n  - id: x\n    apps: [notes]\n"
                                     "    instruction: {L0: do it}\n    difficulty: 1\n    golden_steps: 1\n")
    ep = record(run, "note", [["a"], ["b"]], [{"type": "tap", "x": 1, "y": 2}], status="timeout")
    v = judge_episode(ep, ["rules"])
    assert (v.decision, v.decided_by) == ("failure", "rules") and "step budget" in v.reason
    assert "task definition was not found" in v.warnings[0]
