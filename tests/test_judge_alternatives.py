"""Alternative paths through the run, the judge and the metrics: each path is recorded live and decided
by the rules stage's replay, and PSPA's APR (the milestones of the path the agent took furthest)
parts from AndroidLens' ATP (a node counts once) on a run cut short, as computed here by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from guilens.episode import EpisodeReader
from guilens.judge.metrics_progress import (
    attempt_process_ratio,
    attempt_progress,
    personalized_process_ratio,
    process_ratio,
    selected_path,
    task_progress,
)
from guilens.judge.pipeline import judge_episode
from guilens.judge.records import EpisodeRecord, MilestoneRecord
from guilens.judge.report import load_report, row_json
from tests import fakeapi
from tests.alternatives_helpers import write
from tests.runner_helpers import SMALL, run

fake_api = fakeapi.fake_api


def _attempt(result_dir: Path, task: str) -> Path:
    return result_dir / task / "attempt-1"


@pytest.mark.parametrize(("task", "path", "hits"), [
    ("text-or-note-a", "by-message", ["computed", "chat-open", "message-sent", "done"]),
    ("text-or-note-b", "by-note", ["computed", "note-titled", "note-saved", "done"]),
])
def test_each_path_is_recorded_live_and_decided_by_the_judge(tmp_path: Path, task: str, path: str,
                                                            hits: list[str]) -> None:
    res = run(f"{write(tmp_path)}:{task}", tmp_path / "runs", screen=SMALL)
    d = _attempt(res.run_dir, task)
    ep = EpisodeReader(d).episode
    assert ep.status == "success" and [h.id for h in ep.milestones] == hits
    v = judge_episode(d, ["rules"])
    rules = v.stage("rules")
    assert v.decision == "success" and rules.details["alternatives"] == {"told": path}
    reached = {m.id: m.reached for m in v.milestones}
    assert [m for m, ok in reached.items() if ok] == hits
    assert all(ok is False for m, ok in reached.items() if m not in hits)  # the untaken path: not reached, not unknown
    assert v.progress == 1.0  # ATP's reading: the node is complete by its path
    row = load_report(res.run_dir).rows[0]
    record = row.record
    assert row_json(row)["progress"] == 1.0  # the report's own line counts as ATP does (not 4 of 6 milestones)
    assert {(m.id, m.alternative, m.path) for m in record.milestones if m.alternative} == {
        ("chat-open", "told", "by-message"), ("message-sent", "told", "by-message"),
        ("note-titled", "told", "by-note"), ("note-saved", "told", "by-note")}
    assert attempt_progress(record) == 1.0 and attempt_process_ratio(record) == 1.0
    assert [m.id for m in selected_path(record)] == hits


def test_a_run_cut_short_on_a_path_gives_apr_above_atp(tmp_path: Path) -> None:
    """The oracle cut at 8 of its 12 steps, the chat to Mom open but nothing sent: computed 1/1, `told` 0/1 by ATP (its
    path unfinished), `done` 0/1. ATP = 1/3. P* is by-message (1 milestone completed, by-note 0):
    APR = (computed + chat-open) / (computed, chat-open, message-sent, done) = 2/4; PPR = 1/2 over the path's
    two milestones, flexible as every step of an alternative path is."""
    res = run(f"{write(tmp_path)}:text-or-note-a", tmp_path / "runs", screen=SMALL, max_steps=8)
    d = _attempt(res.run_dir, "text-or-note-a")
    v = judge_episode(d, ["rules"])
    assert v.decision == "failure" and v.stage("rules").details["alternatives"] == {"told": None}
    assert {m.id for m in v.milestones if m.reached} == {"computed", "chat-open"}
    assert v.progress == pytest.approx(1 / 3)
    records = [row.record for row in load_report(res.run_dir).rows]
    assert task_progress(records).value == pytest.approx(1 / 3)
    assert process_ratio(records).value == pytest.approx(2 / 4)
    # PPR: the flexible milestones of P*, the path's (one of several valid approaches): 1 of 2
    assert personalized_process_ratio(records).value == pytest.approx(1 / 2)


def _rec(*ms: MilestoneRecord) -> EpisodeRecord:
    return EpisodeRecord(task="t", milestones=tuple(ms))


def M(mid: str, reached: bool, **kw: object) -> MilestoneRecord:
    return MilestoneRecord(id=mid, reached=reached, **kw)  # type: ignore[arg-type]


def test_pspa_path_selection_and_tie_breaks_by_hand() -> None:
    # A, then node N with a 3-step path P (2 done) and a 1-step path Q (0 done), then D (not reached)
    r = _rec(M("a", True), M("p1", True, alternative="n", path="p"), M("p2", True, alternative="n", path="p"),
             M("p3", False, alternative="n", path="p"), M("q1", False, alternative="n", path="q"), M("d", False))
    # ATP: a 1, n 0 (no path complete), d 0 -> 1/3. APR over a, p1, p2, p3, d -> 3/5.
    assert attempt_progress(r) == pytest.approx(1 / 3) and attempt_process_ratio(r) == pytest.approx(3 / 5)
    # a tie on completed milestones goes to more flexible ones, then to the shorter path
    tie = _rec(M("x1", True, alternative="n", path="x"), M("x2", False, alternative="n", path="x"),
               M("y1", True, alternative="n", path="y", flexible=True), M("y2", False, alternative="n", path="y"))
    assert [m.id for m in selected_path(tie)] == ["y1", "y2"]
    short = _rec(M("x1", True, alternative="n", path="x"), M("x2", False, alternative="n", path="x"),
                 M("x3", False, alternative="n", path="x"), M("y1", True, alternative="n", path="y"),
                 M("y2", False, alternative="n", path="y"))
    assert [m.id for m in selected_path(short)] == ["y1", "y2"] and attempt_process_ratio(short) == 0.5


def test_a_dependency_on_a_node_counts_only_once_a_path_is_complete() -> None:
    # `after` was reached but depends on node n, none of whose paths is complete: PSPA's rule 3 drops it
    open_node = _rec(M("p1", True, alternative="n", path="p"), M("p2", False, alternative="n", path="p"),
                     M("q1", False, alternative="n", path="q"), M("after", True, depends_on=("n",)))
    assert attempt_process_ratio(open_node) == pytest.approx(1 / 3)  # p1 of p1, p2, after
    assert attempt_progress(open_node) == pytest.approx(1 / 2)  # ATP takes the reached milestone as it is
    done_node = _rec(M("p1", True, alternative="n", path="p"), M("p2", False, alternative="n", path="p"),
                     M("q1", True, alternative="n", path="q"), M("after", True, depends_on=("n",)))
    assert attempt_process_ratio(done_node) == 1.0 and attempt_progress(done_node) == 1.0


JUDGE_ONLY = """\
id: judgepack
title: Alternatives the LLM judges
tasks:
  - id: share
    apps: [shop, messages, notes]
    instruction: {L0: "Find the red shoes, tell Mom their price by text or in a note, then go back to the Shop"}
    difficulty: 1
    golden_steps: 8
    milestones:
      - {id: found, text: Red shoes are listed}
      - id: told
        text: Mom is told the price
        any_of:
          - id: by-text
            milestones: [{id: typed, text: A text to Mom is typed}, {id: sent, text: The text to Mom is sent}]
          - id: by-note
            milestones: [{id: noted, text: A note holds the price}]
      - {id: back, text: The Shop is open again}
"""
ALT_SUBTARGETS = {"Red shoes are listed": "found", "A text to Mom is typed": "typed", "The text to Mom is sent": "sent",
                  "A note holds the price": "noted", "The Shop is open again": "back"}


@pytest.mark.parametrize(("told", "decision", "reached"), [
    ({"noted": 5}, "success", {"found", "noted", "back"}),
    ({"typed": 4, "sent": 6}, "success", {"found", "typed", "sent", "back"}),
    ({"typed": 4}, "failure", {"found", "typed"}),  # a path begun is no path taken: what follows waits
])
def test_the_milestone_judge_takes_any_one_path(fake_api: object, tmp_path: Path, told: dict[str, int], decision: str,
                                                reached: set[str]) -> None:
    import json
    import re

    from tests.fakeapi import text
    from tests.judge_helpers import make_run, record, role_of

    ep = record(make_run(tmp_path, scenario=JUDGE_ONLY), "share", [[f"screen {i}"] for i in range(10)],
                [{"type": "tap", "x": 5, "y": 5 + i} for i in range(9)], status="success")
    asked: list[list[str]] = []

    def handle(req: object) -> object:
        assert role_of(req) == "milestone"
        body = req.last_user_text()  # type: ignore[attr-defined]
        listing = json.loads(body.split("Milestone list:\n", 1)[1].split("\n\nTrajectory segment", 1)[0])
        ids = [ALT_SUBTARGETS[m["sub-target"]] for m in listing]
        first, last = map(int, re.search(r"steps (\d+) to (\d+)", body).groups())  # type: ignore[union-attr]
        asked.append(ids)
        plan = {"found": 2, **told, "back": 8}
        done = {m: plan[m] for m in ids if m in plan and first <= plan[m] <= last}
        return text(json.dumps([{"idx": j, "state": int(m in done), "last_idx": done.get(m, -1)}
                                for j, m in enumerate(ids)]))

    fake_api.handler = handle  # type: ignore[attr-defined]
    v = judge_episode(ep, ["rules", "milestones"])
    assert asked, [(st.stage, st.status, st.reason) for st in v.stages]
    assert ["typed", "sent", "noted"] in asked  # the node's paths are asked about together
    m = v.stage("milestones")
    assert m.decision == decision, m.reason
    assert {s.id for s in v.milestones if s.reached} == reached
    assert v.progress == (1.0 if decision == "success" else pytest.approx(1 / 3))
