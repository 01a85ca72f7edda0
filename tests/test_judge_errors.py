"""Judge stages that fail keep their failure on the record, even when a later stage runs them again."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from guilens.judge.pipeline import judge_episode
from guilens.judge.verdict import Verdict
from tests import fakeapi
from tests.fakeapi import error, text
from tests.judge_helpers import by_role, make_run, note_failure, role_of

fake_api = fakeapi.fake_api

DESC = {"action_description": "Tapped the new-note button", "ui_description": "The notes list"}
IRR = {"total_information_units": 2, "correctly_used_units": 1, "irr_percentage": 50,
       "analysis_reason": "title right, price wrong"}


def judge_api(fail_first_describes: int = 0) -> Any:
    """Triage says Uncertain, the semantic judge says 0, IRR answers; the first N descriptions fail."""
    lock = threading.Lock()
    seen = [0]

    def handle(req: Any) -> Any:
        role = role_of(req)
        if role == "triage":
            return text(json.dumps({"reason": "cannot see the price", "decision": "Uncertain"}))
        if role == "describe":
            with lock:
                seen[0] += 1
                n = seen[0]
            if n <= fail_first_describes:
                return error(500, "describe is down")
            return text(json.dumps(DESC))
        if role == "semantic":
            return text(json.dumps({"decision": 0, "reason": "the body says 79.99"}))
        if role == "irr":
            return text(json.dumps(IRR))
        return error(400, f"unexpected role {role}")

    return handle


def test_a_failed_describe_rerun_by_irr_keeps_its_failure(fake_api, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GUILENS_MAX_RETRIES", "0")
    ep = note_failure(make_run(tmp_path))
    fake_api.handler = judge_api(fail_first_describes=3)  # every step's description fails the first time
    v = judge_episode(ep, stages=["rules", "scrutiny", "irr"])
    assert v.decided_by == "rules" and v.decision == "failure" and v.irr == 0.5
    sem = v.stage("semantic")
    assert sem is not None and sem.status == "skipped" and sem.reason == "describe failed"
    d = v.stage("describe")
    assert d is not None and d.status == "done" and d.details["for"] == "irr"  # the last run: IRR's, which worked
    assert [(r.status, r.purpose, r.calls) for r in d.runs] == [("error", "scrutiny", 3)]
    assert d.runs[0].reason.startswith("no step could be described (step 0: LLMUnavailable: ")
    assert len(d.errors) == 3 and all("HTTP 500 api_error: describe is down" in e for e in d.errors)
    assert sorted(e.split(":")[0] for e in d.errors) == ["step 0", "step 1", "step 2"]
    assert d.calls == 6 and by_role(fake_api)["describe"] == 6
    assert [r.kind for r in d.usage.retries] == ["api"] * 3  # the failed tries, counted with the stage
    on_disk = Verdict.model_validate_json((ep / "verdict.json").read_text())
    assert on_disk.stage("describe").runs[0].status == "error" and on_disk.stage("describe").errors == d.errors

    # The failure makes the verdict one to judge again, not to reuse.
    again = judge_episode(ep, stages=["rules", "scrutiny", "irr"])
    assert not again.reused
    d2 = again.stage("describe")
    assert d2 is not None and d2.status == "done" and d2.runs == [] and d2.errors == []
    assert again.stage("semantic").status == "decided"
    assert judge_episode(ep, stages=["rules", "scrutiny", "irr"]).reused


def test_one_step_that_cannot_be_described_leaves_the_others(fake_api, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GUILENS_MAX_RETRIES", "0")
    monkeypatch.setenv("GUILENS_JUDGE_CONCURRENCY", "1")  # one at a time: the first call is step 0's
    ep = note_failure(make_run(tmp_path))
    fake_api.handler = judge_api(fail_first_describes=1)
    v = judge_episode(ep, stages=["scrutiny"])
    d = v.stage("describe")
    assert d is not None and d.status == "done" and d.details["missing"] == [0]
    assert sorted(d.details["descriptions"]) == ["1", "2"]
    assert len(d.errors) == 1 and d.errors[0].startswith("step 0: LLMUnavailable: ")
    assert "1 failed: step 0" in d.reason
    assert v.decided_by == "semantic"  # the judgement went on with the steps it has


def test_an_errored_stage_records_its_failed_tries(fake_api, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GUILENS_MAX_RETRIES", "1")
    ep = note_failure(make_run(tmp_path))
    fake_api.fail_next("529", "truncated")
    v = judge_episode(ep, stages=["triage"])
    t = v.stage("triage")
    assert t is not None and t.status == "error" and t.errors == [t.reason]
    assert "gave up after 2 tries: HTTP 529 overloaded_error: Overloaded; HTTP 200 but the body was cut short" in t.reason
    assert [r.kind for r in t.usage.retries] == ["api", "api"] and v.usage.retries == t.usage.retries


def test_repairs_and_api_retries_are_counted_on_the_stage(fake_api, tmp_path: Path, monkeypatch) -> None:
    """A judge stage records every reply it sent back and every failed try, in order, with the cause."""
    monkeypatch.setenv("GUILENS_MAX_RETRIES", "2")
    ep = note_failure(make_run(tmp_path))
    replies = iter(['{"decision": "Failure", "reason": "wrong price"}',
                    json.dumps({"reason": "cannot see the price", "decision": "Uncertain"})])
    fake_api.handler = lambda req: text(next(replies))
    fake_api.fail_next("500")  # the first try fails, then the reply needs a repair
    v = judge_episode(ep, stages=["triage"])
    t = v.stage("triage")
    assert t is not None and t.status == "undecided" and t.raw == "Uncertain" and t.calls == 2
    assert [(r.kind, r.role) for r in t.usage.retries] == [("api", "judge"), ("repair", "judge")]
    assert t.usage.retries[0].cause.startswith("HTTP 500 api_error")
    assert t.usage.retries[1].cause == f"triage: {t.details['repairs'][0]['problem']}"
    on_disk = Verdict.model_validate_json((ep / "verdict.json").read_text())
    assert on_disk.stage("triage").usage.retries == t.usage.retries and on_disk.usage.retries == t.usage.retries
