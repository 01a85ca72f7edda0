"""The failure-mode stage (MemGUI-Bench A.8) through the real anthropic SDK against the loopback API,
its summary in the report, and `guilens judge --all-stages` / `--rules-only`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from guilens.judge.failure_summary import summarise
from guilens.judge.pipeline import judge_episode
from guilens.judge.records import EpisodeRecord
from guilens.judge.report import load_report
from tests import fakeapi
from tests.fakeapi import text
from tests.judge_helpers import make_run, note_success, record, role_of

fake_api = fakeapi.fake_api

DESC = {"action_description": "Typed into the note", "ui_description": "The note editor"}


def role(req: Any) -> str:
    return "failure_mode" if "root cause of the failure" in req.system_text() else role_of(req)


def roles(api: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in api.requests:
        out[role(r)] = out.get(role(r), 0) + 1
    return out


def scripted(**answers: object):
    """Each role answered from its own queue (a string is sent as is, anything else as JSON); the last
    item of a queue repeats."""
    queues = {k: (list(v) if isinstance(v, list) else [v]) for k, v in answers.items()}

    def handle(req):
        r = role(req)
        if r == "describe":
            return text(json.dumps(DESC))
        q = queues[r]
        item = q.pop(0) if len(q) > 1 else q[0]
        return text(item if isinstance(item, str) else json.dumps(item))

    return handle


def price_failure(run: Path, *, status: str = "failure", attempt: int = 1) -> Path:
    """The (standard) price task answered wrong: the rules decide it failed."""
    return record(run, "price", [["Shop", "ASICS Gel"], ["ASICS Gel", "89.99"], ["ASICS Gel", "89.99"]],
                  [{"type": "tap", "x": 100, "y": 95}, {"type": "answer", "text": "79.99"}],
                  final_answer="79.99", status=status, attempt=attempt)


MODE = {"category": "output_memory_hallucination", "confidence": 0.8,
        "analysis_reason": "the page showed 89.99 but the agent answered 79.99", "key_failure_point": 1,
        "evidence": [{"step": 0, "observation": "the product page shows 89.99"},
                     {"step": 1, "observation": "answers 79.99"}],
        "suggested_improvement": "re-read the price before answering"}
IRR0 = {"total_information_units": 1, "correctly_used_units": 0, "irr_percentage": 0, "analysis_reason": "wrong"}


def test_a_failure_is_classified_with_the_steps_it_blames(fake_api, tmp_path: Path) -> None:
    ep = price_failure(make_run(tmp_path))
    fake_api.handler = scripted(failure_mode=MODE)
    v = judge_episode(ep)  # the default stages: the rules decide, then the failure is classified
    assert v.decision == "failure" and v.decided_by == "rules"
    assert roles(fake_api) == {"failure_mode": 1}
    assert v.failure_mode == "output_memory_hallucination" and v.failure_steps == [1, 0]
    fm = v.stage("failure_mode")
    assert fm is not None and fm.status == "done" and fm.raw == "output_memory_hallucination"
    assert fm.prompt == "failure_mode@1" and fm.calls == 1 and fm.usage.cost_usd > 0 and fm.model
    assert fm.details["method"] == "llm_analysis" and fm.details["confidence"] == 0.8
    assert fm.details["evidence"][0] == {"step": 0, "observation": "the product page shows 89.99"}
    assert fm.details["suggested_improvement"].startswith("re-read")
    assert v.usage.cost_usd == fm.usage.cost_usd
    req = fake_api.requests[0]
    # What the model is told: the task, why it failed, the trajectory, no IRR (a standard task), the last screens.
    assert "Find the price of the ASICS shoes" in req.text() and v.reason in req.text()
    assert "Step 1: Action: answer 79.99" in req.text() and "not a memory task" in req.text()
    assert len(req.images()) == 1 and "intent_misunderstanding" in req.system_text()
    on_disk = json.loads((ep / "verdict.json").read_text())
    assert on_disk["failure_mode"] == "output_memory_hallucination" and on_disk["failure_steps"] == [1, 0]
    fake_api.assert_clean()


def test_malformed_output_is_repaired_then_recorded_as_unclassified(fake_api, tmp_path: Path) -> None:
    ep = price_failure(make_run(tmp_path))
    fake_api.handler = scripted(failure_mode=[
        "The agent forgot the price.",                           # not JSON
        {**MODE, "category": "memory_loss"},                      # not a mode
        {**MODE, "key_failure_point": 7},                         # no such step (0..1)
    ])
    v = judge_episode(ep)
    fm = v.stage("failure_mode")
    assert fm is not None and fm.status == "undecided" and fm.calls == 3
    problems = [r["problem"] for r in fm.details["repairs"]]
    assert "no JSON" in problems[0] and "not 'memory_loss'" in problems[1]
    assert "key_failure_point" in problems[2] and "at most 1" in problems[2]
    assert fm.details["method"] == "analysis_failed" and "malformed" in fm.reason
    assert v.failure_mode is None and v.failure_steps == [] and v.decision == "failure"
    # The repair is a conversation: the bad reply, then what was wrong with it.
    last = fake_api.requests[-1]
    assert "memory_loss" in last.text() and "cannot be used" in last.text()
    fake_api.assert_clean()


def test_a_repaired_reply_counts_and_the_peer_spelling_is_read(fake_api, tmp_path: Path) -> None:
    ep = price_failure(make_run(tmp_path))
    fake_api.handler = scripted(failure_mode=[
        {**MODE, "category": "execution_timeout"},               # told by rule, never by the model
        {**MODE, "category": "intent_understanding", "key_failure_point": "Step 1", "confidence": "0.5"},
    ])
    v = judge_episode(ep)
    fm = v.stage("failure_mode")
    assert fm is not None and fm.status == "done" and fm.calls == 2 and len(fm.details["repairs"]) == 1
    assert "decided by rule" in fm.details["repairs"][0]["problem"]
    assert v.failure_mode == "intent_misunderstanding" and v.failure_steps == [1, 0]


def test_a_timeout_is_told_by_rule_without_a_request(fake_api, tmp_path: Path) -> None:
    ep = price_failure(make_run(tmp_path), status="timeout")
    v = judge_episode(ep)
    assert fake_api.requests == []
    assert v.decision == "failure" and v.failure_mode == "execution_timeout" and v.failure_steps == []
    fm = v.stage("failure_mode")
    assert fm is not None and fm.details["method"] == "rule_timeout" and "no model call" in fm.reason


def note_failure_unread(run: Path) -> Path:
    """The memory task's wrong note, recorded without the app state (as on a real phone): the rules cannot
    read it, so progressive scrutiny decides and the IRR analyzer is asked."""
    return record(run, "note",
                  [["Notes", "+"], ["New note", "Title", "Body"], ["New note", "Shoes", "Body"], ["Shoes", "ASICS 79.99"]],
                  [{"type": "tap", "x": 270, "y": 95}, {"type": "type", "text": "Shoes"},
                   {"type": "type", "text": "ASICS 79.99"}], status="failure")


SCRUTINY = {"triage": {"reason": "unsure", "decision": "Uncertain"},
            "semantic": {"decision": 0, "reason": "the note says 79.99, not 89.99"}}


def test_a_partial_irr_is_a_partial_memory_hallucination_by_rule(fake_api, tmp_path: Path) -> None:
    ep = note_failure_unread(make_run(tmp_path))
    fake_api.handler = scripted(**SCRUTINY, irr={"total_information_units": 2, "correctly_used_units": 1,
                                                 "irr_percentage": 50, "analysis_reason": "title right, price wrong"})
    v = judge_episode(ep)
    assert v.decision == "failure" and v.irr == 0.5
    assert roles(fake_api)["irr"] == 1 and "failure_mode" not in roles(fake_api)  # the rule comes first: no call
    assert v.failure_mode == "partial_memory_hallucination"
    fm = v.stage("failure_mode")
    assert fm is not None and fm.details["method"] == "rule_irr" and fm.details["irr_percentage"] == 50
    assert "by rule, no model call" in fm.reason and fm.calls == 0
    assert [s.stage for s in v.stages][-2:] == ["irr", "failure_mode"]


def test_irr_zero_goes_to_the_model_and_is_shown_to_it(fake_api, tmp_path: Path) -> None:
    ep = note_failure_unread(make_run(tmp_path))
    fake_api.handler = scripted(**SCRUTINY, irr=IRR0,
                                failure_mode={**MODE, "key_failure_point": 2, "evidence": "typed 79.99"})
    v = judge_episode(ep)
    assert v.irr == 0 and v.failure_mode == "output_memory_hallucination" and v.failure_steps == [2]
    req = next(r for r in fake_api.requests if role(r) == "failure_mode")
    assert "IRR 0%" in req.text() and "79.99, not 89.99" in req.text()
    assert "Screen: The note editor" in req.text()  # the step descriptions progressive scrutiny made


def test_a_success_gets_no_stage(fake_api, tmp_path: Path) -> None:
    v = judge_episode(note_success(make_run(tmp_path)))
    assert v.decision == "success" and v.stage("failure_mode") is None and v.failure_mode is None
    assert fake_api.requests == []


def test_a_blocked_task_is_never_classified(fake_api, tmp_path: Path) -> None:
    ep = record(make_run(tmp_path), "price", [["Home"]], [], status="blocked")
    v = judge_episode(ep)
    fm = v.stage("failure_mode")
    assert fm is not None and fm.status == "skipped" and "never ran" in fm.reason
    assert v.failure_mode is None and fake_api.requests == []


def test_rejudging_reuses_the_classification(fake_api, tmp_path: Path) -> None:
    ep = price_failure(make_run(tmp_path))
    fake_api.handler = scripted(failure_mode=MODE)
    first = judge_episode(ep)
    n = len(fake_api.requests)
    again = judge_episode(ep)
    assert again.reused and len(fake_api.requests) == n and again.failure_mode == first.failure_mode
    forced = judge_episode(ep, force=True)  # judged again, every call served from the response cache
    fm = forced.stage("failure_mode")
    assert len(fake_api.requests) == n and fm is not None and fm.cached_calls == fm.calls == 1
    assert forced.usage.cost_usd == 0 and forced.failure_steps == first.failure_steps


def test_without_a_key_only_the_rules_classify(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    run = make_run(tmp_path)
    v = judge_episode(price_failure(run))
    fm = v.stage("failure_mode")
    assert fm is not None and fm.status == "skipped" and "ANTHROPIC_API_KEY" in fm.reason
    t = judge_episode(price_failure(run, status="timeout", attempt=2))
    assert t.failure_mode == "execution_timeout"


# --- the report's summary -------------------------------------------------------------------------


def rec(task: str, success: bool | None, mode: str | None = None, *, kind: str = "none", difficulty: int = 1,
        apps: int = 1, status: str = "failure", attempt: int = 1) -> EpisodeRecord:
    return EpisodeRecord(task=task, attempt=attempt, success=success, failure_mode=mode, memory_kind=kind,
                         memory=kind != "none", difficulty=difficulty, apps=apps, status=status)


def test_the_summary_counts_by_mode_and_by_task_property() -> None:
    records = [
        rec("a", False, "execution_timeout", kind="cross-app", apps=2, difficulty=3),
        rec("a", False, "partial_memory_hallucination", kind="cross-app", apps=2, difficulty=3, attempt=2),
        rec("b", False, "process_memory_hallucination", kind="cross-temporal", difficulty=2),
        rec("c", False, None, status="timeout"),                   # no verdict: the status is the rule
        rec("d", False, None, status="blocked", kind="cross-app", apps=3),
        rec("e", False, None),                                    # rules only: not classified
        rec("f", True, None, kind="cross-app"),                   # successes are not failures
        rec("g", None, None, status="interrupted"),               # nor are undecided attempts
        rec("h", False, "other", apps=3, difficulty=2),
    ]
    s = summarise(records)
    assert s["failures"] == 7 and s["classified"] == 5
    assert s["modes"] == {"execution_timeout": 2, "partial_memory_hallucination": 1,
                          "process_memory_hallucination": 1, "output_memory_hallucination": 0,
                          "knowledge_deficiency": 0, "intent_misunderstanding": 0, "other": 1}
    assert s["share"]["execution_timeout"] == 0.4 and s["not_classified"] == {"blocked": 1, "unclassified": 1}
    mem = s["by_memory"]
    assert sorted(mem) == ["cross-app", "cross-temporal", "standard"]
    assert mem["cross-app"]["failures"] == 3 and mem["cross-app"]["modes"]["partial_memory_hallucination"] == 1
    assert mem["cross-app"]["not_classified"]["blocked"] == 1
    assert mem["standard"]["failures"] == 3 and mem["standard"]["modes"]["execution_timeout"] == 1
    assert {k: v["failures"] for k, v in s["by_difficulty"].items()} == {"easy": 3, "hard": 2, "medium": 2}
    assert {k: v["failures"] for k, v in s["by_apps"].items()} == {"1": 3, "2": 2, "3": 2}
    assert s["by_apps"]["3"]["modes"]["other"] == 1


def test_the_report_reads_the_modes_from_the_verdicts(fake_api, tmp_path: Path) -> None:
    run = make_run(tmp_path)
    fake_api.handler = scripted(failure_mode=MODE)
    judge_episode(price_failure(run))
    judge_episode(price_failure(run, status="timeout", attempt=2))
    judge_episode(note_success(run))
    rep = load_report(run)
    data = rep.to_json()
    fm = data["failure_modes"]
    assert fm["failures"] == 2 and fm["modes"]["output_memory_hallucination"] == 1
    assert fm["modes"]["execution_timeout"] == 1 and fm["by_difficulty"]["medium"]["failures"] == 2
    price = [e for e in data["episodes"] if e["task"] == "price"]
    assert [(e["failure_mode"], e["failure_steps"]) for e in price] == [
        ("output_memory_hallucination", [1, 0]), ("execution_timeout", [])]
    from rich.console import Console

    console = Console(width=200, record=True)
    from guilens.judge.report_text import print_report

    print_report(rep, console)
    out = console.export_text()
    assert "Failure modes (2 failed attempts, 2 classified)" in out and "Failure modes by difficulty" in out
    from guilens.judge.html import render_html

    page = render_html(rep, tmp_path / "r.html", workers=1)
    assert "<h2>Failure modes</h2>" in page and 'aria-label="Failure modes (share' in page
    assert "<b>output_memory_hallucination</b> (steps 1, 0): " in page  # in the episode table's reason


# --- the command ----------------------------------------------------------------------------------


def guilens(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "guilens", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=120)


def test_all_stages_runs_the_llm_judges_where_the_rules_decided(fake_api, tmp_path: Path) -> None:
    ep = note_success(make_run(tmp_path))
    fake_api.handler = scripted(
        triage={"reason": "cannot see the body", "decision": "Uncertain"},
        semantic={"decision": 0, "reason": "the body is cut off"},
        milestone=[[{"idx": 0, "state": "completed", "last_idx": 1}], [{"idx": 1, "state": "completed",
                                                                         "last_idx": 2}]])
    out = guilens("judge", str(ep), "--all-stages")
    assert out.returncode == 0, out.stderr
    assert "success" in out.stdout and "by rules" in out.stdout
    assert "disagree: semantic says failure (the body is cut off)" in out.stdout
    assert "stages disagree with the decision on 1 of 1 episodes" in out.stdout
    v = json.loads((ep / "verdict.json").read_text())
    by = {s["stage"]: s for s in v["stages"]}
    assert v["decision"] == "success" and v["decided_by"] == "rules"  # authority: rules first
    assert by["rules"]["decision"] == "success" and by["semantic"]["decision"] == "failure"
    assert by["triage"]["status"] == "undecided" and by["describe"]["status"] == "done"
    assert "failure_mode" not in by and v["stages_requested"][-1] == "failure_mode"
    assert {"triage", "semantic"} <= set(roles(fake_api))
    n = len(fake_api.requests)
    again = guilens("judge", str(ep), "--all-stages", "--json")  # current: read back, no request
    (j,) = json.loads(again.stdout)
    assert j["reused"] and j["disagreements"] == ["semantic"] and len(fake_api.requests) == n


def test_rules_only_classifies_a_timeout_and_says_why_not_the_rest(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    price_failure(run)
    price_failure(run, status="timeout", attempt=2)
    out = guilens("judge", str(run), "--rules-only")
    assert out.returncode == 0, out.stderr
    assert "execution_timeout" in out.stdout
    wrong = json.loads((run / "price" / "attempt-1" / "verdict.json").read_text())
    fm = next(s for s in wrong["stages"] if s["stage"] == "failure_mode")
    assert fm["status"] == "skipped" and "--rules-only" in fm["reason"] and "judge model" in fm["reason"]
    both = guilens("judge", str(run), "--rules-only", "--all-stages")
    assert both.returncode == 2 and "do not go together" in both.stderr
