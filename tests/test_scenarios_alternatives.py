"""Alternative paths in milestones (PSPA-Bench's "choose one path"): what a file may say, how the live
tracker and the success rule decide them, and what `scenarios verify` proves of each path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from guilens.scenarios.checks import CheckContext
from guilens.scenarios.errors import ScenarioError
from guilens.scenarios.loader import load_scenario
from guilens.scenarios.milestones import MilestoneTracker, checklist, run_checks, sub_task_reached, success
from guilens.scenarios.verify import verify_scenario
from tests.alternatives_helpers import SCENARIO, write


def _state(*, result: float | None = None, sent: str | None = None, note: str | None = None) -> dict[str, Any]:
    return {
        "calculator": {"history": [{"result": result}] if result is not None else []},
        "messages": {"threads": [{"number": "+1 415 555 0199", "messages": [{"text": sent}]}] if sent else []},
        "notes": {"notes": [{"title": "Answer", "body": note}] if note else []},
    }


def _ui(app: str, **texts: str) -> Any:
    """A UI tree of `app` holding elements by resource id (`recipient="Mom"`)."""
    from guilens.device.uitree import parse_ui_xml

    nodes = "".join(f'<node index="{i}" text="{t}" resource-id="com.guilens.{app}:id/{rid}" class="android.widget.TextView" '
                    f'package="com.guilens.{app}" content-desc="" bounds="[0,{i * 10}][100,{i * 10 + 9}]" />'
                    for i, (rid, t) in enumerate(texts.items()))
    return parse_ui_xml(f'<?xml version="1.0"?><hierarchy rotation="0">{nodes}</hierarchy>')


def _task(tmp_path: Path, tid: str = "text-or-note-a") -> Any:
    return load_scenario(write(tmp_path)).task(tid)


def test_a_node_is_one_checklist_entry_and_its_paths_milestones_are_all_listed(tmp_path: Path) -> None:
    t = _task(tmp_path)
    assert [m.id for m in t.all_milestones()] == ["computed", "chat-open", "message-sent", "note-titled", "note-saved",
                                                  "done"]
    subs = checklist(t)
    assert [s.id for s in subs] == ["computed", "told", "done"]
    assert subs[1].paths == {"by-message": ("chat-open", "message-sent"), "by-note": ("note-titled", "note-saved")}
    known = {"chat-open": True, "message-sent": False, "note-titled": None, "note-saved": None}
    assert sub_task_reached(subs[1], known.get) is None  # the note path is still open
    assert sub_task_reached(subs[1], {**known, "note-titled": False}.get) is False
    assert sub_task_reached(subs[1], {**known, "note-titled": True, "note-saved": True}.get) is True
    # left out, the node's kind and its paths' are PSPA's flexible (several valid approaches)
    assert t.alternatives()[0].kind == "flexible"
    assert {m.id: m.kind for m in t.all_milestones()} == {
        "computed": "fixed", "chat-open": "flexible", "message-sent": "flexible", "note-titled": "flexible",
        "note-saved": "flexible", "done": "fixed"}


@pytest.mark.parametrize(("path", "states", "chosen"), [
    ("by-message", [_state(result=42), _state(result=42, sent="it is 42")], "by-message"),
    ("by-note", [_state(result=42), _state(result=42, note="42")], "by-note"),
])
def test_the_tracker_completes_the_node_by_either_path(tmp_path: Path, path: str, states: list[dict[str, Any]],
                                                       chosen: str) -> None:
    t = _task(tmp_path)
    app = "messages" if path == "by-message" else "notes"
    tracker = MilestoneTracker(t)
    tracker.update(CheckContext(state=states[0], app="calculator"), 1)
    assert tracker.reached == {"computed": 1} and not tracker.chosen
    # the path's milestones come one by one; `done` (after the node) waits for the node
    ui = _ui("messages", recipient="Mom", message="Text message") if app == "messages" else _ui("notes", title="Answer")
    tracker.update(CheckContext(ui=ui, state=states[0], app=app), 2)
    assert not tracker.chosen and len(tracker.reached) == 2  # the path's first milestone only
    tracker.update(CheckContext(state=states[1], app=app), 2)
    assert tracker.chosen == {"told": chosen} and tracker.completed_at == {"told": 2}
    assert "done" not in tracker.reached and tracker.sub_tasks_done == 2 and tracker.sub_tasks_total == 3
    tracker.update(CheckContext(state=states[1], app="calculator"), 3)
    assert tracker.reached["done"] == 3 and tracker.all_reached and tracker.fraction == 1.0
    res = success(t, tracker, CheckContext(state=states[1], app="calculator"))
    assert res.ok is True and "all 3 milestones" in res.reason
    other = {"by-message": ["note-titled", "note-saved"], "by-note": ["chat-open", "message-sent"]}[path]
    assert not set(other) & set(tracker.reached)  # the untaken path is no milestone the task needed


def test_an_unfinished_node_fails_the_task_and_blocks_what_follows(tmp_path: Path) -> None:
    t = _task(tmp_path)
    # the Messages editor for Mom is open (chat-open by its UI check would need a tree: mark it as a person would)
    tracker, res = run_checks(t, [CheckContext(state=_state(result=42), app="calculator"),
                                  CheckContext(state=_state(result=42), app="calculator")])
    tracker.mark("chat-open", 1)
    assert tracker.chosen == {} and "done" not in tracker.reached
    res = success(t, tracker, CheckContext(state=_state(result=42), app="calculator"))
    assert res.ok is False and "told" in res.reason
    status = {s.milestone.id: s for s in tracker.status()}
    assert (status["chat-open"].alternative, status["chat-open"].path) == ("told", "by-message")
    assert status["note-titled"].available and not status["done"].available
    # marking the rest of a path completes the node, as the rules would have
    tracker.mark("message-sent", 2)
    assert tracker.chosen == {"told": "by-message"}


def test_verify_plays_each_path_and_names_the_one_a_reference_misses(tmp_path: Path) -> None:
    s = load_scenario(write(tmp_path))
    found = {(v.task, f.name): f for v in verify_scenario(s) for f in v.findings}
    for tid in ("text-or-note-a", "text-or-note-b"):
        for path in ("by-message", "by-note"):
            assert found[(tid, f"path told/{path}")].ok, found[(tid, f"path told/{path}")].detail
    # a path reference that takes the other path is caught, by name
    broken = SCENARIO.replace(
        '[{open: notes}, {tap: New note}, {type: Answer}, enter, {type: "42"}, {tap: {id: save}}, {open: calculator},',
        '[{open: messages}, {tap: Start chat}, {type: Mom}, {tap: {id: suggestion}}, {tap: {id: message}}, '
        '{type: "42"}, {tap: {id: send}}, {open: calculator},')
    assert broken != SCENARIO
    s = load_scenario(write(tmp_path, broken))
    v = next(v for v in verify_scenario(s, "text-or-note-a"))
    f = next(f for f in v.findings if f.name == "path told/by-note")
    assert not f.ok and "completes 'told' by 'by-message', not by 'by-note'" in f.detail


def test_verify_asks_for_a_reference_when_two_paths_have_none(tmp_path: Path) -> None:
    own = ('            reference:\n              - &compute [{open: calculator}, {type: "6*7"}, {tap: "="}]\n'
           '              - [{open: notes}, {tap: New note}, {type: Answer}, enter, {type: "42"}, {tap: {id: save}}, '
           '{open: calculator},\n                 finish]\n')
    assert own in SCENARIO
    text = SCENARIO.replace(own, "").replace("      - *compute\n", '      - [{open: calculator}, {type: "6*7"}, {tap: "="}]\n')
    s = load_scenario(write(tmp_path, text))
    v = next(v for v in verify_scenario(s, "text-or-note-a"))
    f = next(f for f in v.findings if f.name == "paths of told")
    assert not f.ok and "by-message, by-note have no reference of their own" in f.detail


@pytest.mark.parametrize(("old", "new", "says"), [
    ("          - id: by-note\n            milestones:\n              - {id: note-titled",
     "          - id: by-message\n            milestones:\n              - {id: note-titled",
     "path ids must be unique; repeated: by-message"),
    ("              - {id: note-titled, text: A note titled Answer is being written,\n                 check: {all: [{app: notes}, {element: \"id:title\", text: Answer}]}}\n              - {id: note-saved, text: A note titled Answer holds 42,\n                 check: {state: notes.notes, where: {title: Answer}, field: body, op: contains, value: \"42\"}}\n            reference:",
     "              - {id: note-titled, text: A note titled Answer is being written, depends_on: [chat-open],\n                 check: {all: [{app: notes}, {element: \"id:title\", text: Answer}]}}\n              - {id: note-saved, text: A note titled Answer holds 42,\n                 check: {state: notes.notes, where: {title: Answer}, field: body, op: contains, value: \"42\"}}\n            reference:",
     "depends on 'chat-open' of another path"),
    ("        depends_on: [computed]\n        any_of:", "        depends_on: [nowhere]\n        any_of:",
     "'nowhere' is no milestone before 'told'"),
    ("              - {id: note-titled, text: A note titled Answer is being written,\n                 check: {all: [{app: notes}, {element: \"id:title\", text: Answer}]}}\n              - {id: note-saved, text: A note titled Answer holds 42,\n                 check: {state: notes.notes, where: {title: Answer}, field: body, op: contains, value: \"42\"}}\n            reference:",
     "              - {id: computed, text: A note titled Answer is being written,\n                 check: {all: [{app: notes}, {element: \"id:title\", text: Answer}]}}\n              - {id: note-saved, text: A note titled Answer holds 42,\n                 check: {state: notes.notes, where: {title: Answer}, field: body, op: contains, value: \"42\"}}\n            reference:",
     "duplicate milestone id 'computed'"),
])
def test_bad_alternatives_get_one_line_naming_file_task_and_field(tmp_path: Path, old: str, new: str, says: str) -> None:
    assert SCENARIO.count(old) >= 1, old
    with pytest.raises(ScenarioError) as err:
        load_scenario(write(tmp_path, SCENARIO.replace(old, new, 1)))
    lines = [p for p in err.value.problems if says in p]
    assert lines, err.value.problems
    assert all("\n" not in p and "altpack.yaml" in p and "text-or-note-a" in p for p in lines)


def test_a_node_with_one_path_is_refused(tmp_path: Path) -> None:
    text = """\
id: onepath
title: One path
tasks:
  - id: lonely
    apps: [notes]
    instruction: {L0: "Write a note"}
    difficulty: 1
    golden_steps: 1
    milestones:
      - id: told
        text: Told
        any_of:
          - id: only
            milestones: [{id: saved, text: Saved, check: {app: notes}}]
"""
    with pytest.raises(ScenarioError) as err:
        load_scenario(write(tmp_path, text))
    lines = [p for p in err.value.problems if "any_of" in p and "at least 2" in p]
    assert len(lines) == 1 and "lonely" in lines[0] and "milestones[0]" in lines[0], err.value.problems
