"""AndroidLens' segment-wise milestone judge against the loopback Messages API."""

from __future__ import annotations

import json
import re
from pathlib import Path

from guilens.judge.pipeline import judge_episode
from tests import fakeapi
from tests.fakeapi import text
from tests.judge_helpers import by_role, make_run, record, role_of

fake_api = fakeapi.fake_api

SUBTARGETS = {"Red shoes are listed": "found", "The cheapest red shoes' page is open": "picked",
              "The cart holds the red shoes": "carted", "A note titled Shoes holds 89.99": "saved",
              "The note editor is open": "editor"}


def segment_of(req) -> tuple[list[str], int, int]:
    body = req.last_user_text() if len(req["messages"]) == 1 else req["messages"][0]["content"][0]["text"]
    listing = json.loads(body.split("Milestone list:\n", 1)[1].split("\n\nTrajectory segment", 1)[0])
    first, last = map(int, re.search(r"steps (\d+) to (\d+)", body).groups())
    assert [m["idx"] for m in listing] == list(range(len(listing)))
    return [SUBTARGETS[m["sub-target"]] for m in listing], first, last


def shop_episode(run: Path) -> Path:
    screens = [[f"Shop screen {i}"] for i in range(13)]
    actions = [{"type": "tap", "x": 50, "y": 60 + i} for i in range(12)]
    return record(run, "judgeonly", screens, actions, status="success")


def milestone_handler(plan, log):
    """`plan(ids, first, last)` -> {id: last_idx or None}; every call is logged."""

    def handle(req):
        role = role_of(req)
        if role == "triage":
            return text(json.dumps({"decision": "Success", "reason": "cart visible"}))
        assert role == "milestone", role
        ids, first, last = segment_of(req)
        log.append((ids, first, last, len(req.images())))
        done = plan(ids, first, last)
        return text(json.dumps([{"idx": j, "state": int(done.get(m) is not None),
                                 "last_idx": done.get(m) if done.get(m) is not None else -1}
                                for j, m in enumerate(ids)]))

    return handle


def test_ordered_alone_then_the_unordered_group_together(fake_api, tmp_path: Path) -> None:
    ep = shop_episode(make_run(tmp_path))
    log: list = []

    def plan(ids, first, last):
        if ids == ["found"]:
            return {"found": 3}
        if ids == ["picked", "carted"]:
            return {"picked": 8}
        if ids == ["carted"]:
            return {"carted": 12}
        raise AssertionError(ids)

    fake_api.handler = milestone_handler(plan, log)
    v = judge_episode(ep)  # default stages: the rules cannot decide milestones without checks
    assert v.stage("rules").status == "undecided"
    assert log == [(["found"], 0, 10, 11), (["picked", "carted"], 3, 12, 10), (["carted"], 8, 12, 5)]
    m = v.stage("milestones")
    assert m.status == "decided" and m.decision == "success" and m.calls == 3
    assert [(s.id, s.reached, s.screen, s.step, s.by) for s in v.milestones] == [
        ("found", True, 3, 2, "milestones"), ("picked", True, 8, 7, "milestones"),
        ("carted", True, 12, 11, "milestones")]
    assert v.progress == 1.0
    # Progressive scrutiny has the last word over milestones.
    assert v.decided_by == "triage" and by_role(fake_api) == {"milestone": 3, "triage": 1}
    req = next(r for r in fake_api.requests if role_of(r) == "milestone")
    assert "Noun/entity mismatch" in req.system_text() and "Corrective actions" in req.system_text()
    assert "Step 0: tap 50 60" in req.text()
    fake_api.assert_clean()


def test_an_ordered_milestone_never_reached_blocks_the_rest(fake_api, tmp_path: Path) -> None:
    ep = shop_episode(make_run(tmp_path))
    log: list = []
    fake_api.handler = milestone_handler(lambda ids, first, last: {}, log)
    v = judge_episode(ep, stages=["milestones"])
    # The next segment starts on the last screen of the one before (the paper's overlap).
    assert log == [(["found"], 0, 10, 11), (["found"], 10, 12, 3)]
    assert [(s.id, s.reached) for s in v.milestones] == [("found", False), ("picked", False), ("carted", False)]
    assert v.decision == "failure" and v.decided_by == "milestones" and v.progress == 0.0


def test_a_completion_outside_the_segment_is_repaired(fake_api, tmp_path: Path) -> None:
    ep = shop_episode(make_run(tmp_path))
    replies = iter([
        [{"idx": 0, "state": 1, "last_idx": 11}],   # step 11 is not in segment 0..10
        [{"idx": 0, "state": 1, "last_idx": 4}],
    ])

    def handle(req):
        ids, first, last = segment_of(req)
        if ids == ["found"]:
            return text(json.dumps(next(replies)))
        return text(json.dumps([{"idx": j, "state": 0, "last_idx": -1} for j in range(len(ids))]))

    fake_api.handler = handle
    v = judge_episode(ep, stages=["milestones"])
    m = v.stage("milestones")
    assert "last_idx 11 is not a step shown (0 to 10)" in m.details["repairs"][0]["problem"]
    assert v.milestones[0].screen == 4 and v.milestones[0].step == 3 and v.milestones[0].reached


def test_rules_decide_what_they_can_and_the_judge_starts_after_it(fake_api, tmp_path: Path) -> None:
    # No final state (as on a real phone): the editor milestone reads from the UI tree,
    # the saved-note milestone needs the state, so only it goes to the model.
    run = make_run(tmp_path)
    ep = record(run, "note",
                [["Notes", "+"], ["New note", "Title"], ["New note", "Shoes"], ["Shoes", "ASICS 89.99"]],
                [{"type": "tap", "x": 270, "y": 95}, {"type": "type", "text": "Shoes"},
                 {"type": "type", "text": "ASICS 89.99"}], final_state=None)
    log: list = []
    fake_api.handler = milestone_handler(lambda ids, first, last: {"saved": 3}, log)
    v = judge_episode(ep, stages=["rules", "milestones"])
    assert "no device state was recorded" in v.stage("rules").reason
    assert log == [(["saved"], 1, 3, 3)]
    assert [(s.id, s.screen, s.by) for s in v.milestones] == [("editor", 1, "rules"), ("saved", 3, "milestones")]
    assert v.decision == "success" and v.decided_by == "milestones"


def test_a_task_without_milestones_or_definition_skips_the_stage(tmp_path: Path) -> None:
    run = make_run(tmp_path, scenario="id: other\ntasks:\n  - id: x\n    apps: [notes]\n"
                                     "    instruction: {L0: do it}\n    difficulty: 1\n    golden_steps: 1\n")
    ep = record(run, "note", [["a"], ["b"]], [{"type": "tap", "x": 1, "y": 2}])
    v = judge_episode(ep, stages=["rules", "milestones"])
    assert v.stage("rules").status == "skipped" and "not available" in v.stage("rules").reason
    assert v.stage("milestones").status == "skipped" and v.decision == "undecided"
