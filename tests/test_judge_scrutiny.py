"""Progressive scrutiny through the real anthropic SDK against the loopback Messages API."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from guilens.judge.pipeline import judge_episode
from guilens.llm import LLMClient
from tests import fakeapi
from tests.fakeapi import text
from tests.judge_helpers import by_role, make_run, note_failure, note_success, record, role_of

fake_api = fakeapi.fake_api


def reply(obj: object) -> dict:
    return text(json.dumps(obj))


DESC = {"action_description": "Tapped the new-note button", "ui_description": "The notes list"}


def scripted(triage: object, semantic: object = None, visual: object = None, irr: object = None):
    """A handler answering each role with a fixed JSON reply (a list: one per call, in order)."""
    queues = {k: (list(v) if isinstance(v, list) else [v]) for k, v in
              {"triage": triage, "semantic": semantic, "visual": visual, "irr": irr}.items() if v is not None}

    def handle(req):
        role = role_of(req)
        if role == "describe":
            return reply(DESC)
        q = queues[role]
        item = q.pop(0) if len(q) > 1 else q[0]
        return text(item) if isinstance(item, str) else reply(item)

    return handle


def test_a_clear_success_stops_after_triage(fake_api, tmp_path: Path) -> None:
    ep = note_success(make_run(tmp_path))
    fake_api.push(reply({"reason": "The note Shoes shows 89.99", "decision": "Success"}))
    seen: list[tuple[str, str]] = []
    v = judge_episode(ep, stages=["scrutiny"], on_stage=lambda r: seen.append((r.stage, r.status)))
    assert seen == [("triage", "decided"), ("describe", "skipped"), ("semantic", "skipped"), ("visual", "skipped")]
    assert len(fake_api.requests) == 1
    assert v.decision == "success" and v.decided_by == "triage"
    assert [s.stage for s in v.stages] == ["triage", "describe", "semantic", "visual"]
    assert [s.status for s in v.stages] == ["decided", "skipped", "skipped", "skipped"]
    t = v.stage("triage")
    assert t is not None and t.steps == [1, 2, 3] and t.calls == 1 and t.usage.input_tokens > 0
    assert t.usage.cost_usd > 0 and v.usage.cost_usd == t.usage.cost_usd
    req = fake_api.requests[0]
    assert len(req.images()) == 1  # one composite of the last three screens
    assert "Step 2: type ASICS 89.99" in req.text() and "Final" in req.text()
    assert 'only "Success" or "Uncertain"' in req.text() or "You cannot decide \"Failure\"" in req.text()
    fake_api.assert_clean()


@pytest.mark.parametrize("decision,expected", [(1, "success"), (0, "failure")])
def test_uncertain_goes_through_descriptions_to_the_semantic_judge(fake_api, tmp_path: Path, decision: int,
                                                                    expected: str) -> None:
    ep = note_success(make_run(tmp_path))
    fake_api.handler = scripted(
        triage={"reason": "cannot see the body", "decision": "Uncertain"},
        semantic={"decision": decision, "reason": "the body reads 89.99" if decision else "wrong price"},
    )
    v = judge_episode(ep, stages=["scrutiny"])
    assert by_role(fake_api) == {"triage": 1, "describe": 3, "semantic": 1}
    assert v.decision == expected and v.decided_by == "semantic"
    assert v.stage("triage").status == "undecided" and v.stage("visual").status == "skipped"
    d = v.stage("describe")
    assert d.status == "done" and d.calls == 3 and sorted(d.details["descriptions"]) == ["0", "1", "2"]
    sem = next(r for r in fake_api.requests if role_of(r) == "semantic")
    assert "Step 1: Action: Tapped the new-note button" in sem.text()
    assert "CRITICAL WARNING" in sem.text() and len(sem.images()) == 1
    # Each description request carries one before/after panel with the raw action.
    desc = [r for r in fake_api.requests if role_of(r) == "describe"]
    assert all(len(r.images()) == 1 for r in desc)
    assert any("Action Type: 'type'" in r.text() and "ASICS 89.99" in r.text() for r in desc)
    assert v.usage.cost_usd == pytest.approx(sum(s.usage.cost_usd for s in v.stages))
    fake_api.assert_clean()


def test_minus_one_reaches_the_visual_judge_with_exactly_the_requested_steps(fake_api, tmp_path: Path) -> None:
    ep = note_success(make_run(tmp_path))
    fake_api.handler = scripted(
        triage={"reason": "unsure", "decision": "Uncertain"},
        semantic={"decision": -1, "reason": "need the editor screens", "required_steps": [2, 0, 99]},
        visual={"decision": 1, "reason": "the title and body are right"},
    )
    v = judge_episode(ep, stages=["scrutiny"])
    assert by_role(fake_api) == {"triage": 1, "describe": 3, "semantic": 1, "visual": 1}
    sem, vis = v.stage("semantic"), v.stage("visual")
    assert sem.status == "undecided" and sem.raw == -1 and sem.details["required_steps"] == [2, 0]
    assert vis.status == "decided" and vis.steps == [0, 2] and v.decided_by == "visual" and v.decision == "success"
    req = next(r for r in fake_api.requests if role_of(r) == "visual")
    assert "Step 0, Step 2" in req.text() and "FINAL and DEFINITIVE" in req.text()
    (img,) = req.images()  # one composite holding two screens side by side
    assert 1.6 < img.width / img.height * (1200 / 540) < 2.3
    fake_api.assert_clean()


def test_malformed_output_is_repaired_then_recorded_as_undecided(fake_api, tmp_path: Path) -> None:
    ep = note_success(make_run(tmp_path))
    fake_api.handler = scripted(
        triage={"reason": "unsure", "decision": "Uncertain"},
        semantic=["I think it worked.", '{"decision": 2, "reason": "?"}', '{"reason": "no decision"}'],
    )
    v = judge_episode(ep, stages=["scrutiny"])
    assert by_role(fake_api) == {"triage": 1, "describe": 3, "semantic": 3}
    sem = v.stage("semantic")
    assert sem.status == "undecided" and sem.calls == 3 and len(sem.details["repairs"]) == 3
    assert v.decision == "undecided" and v.decided_by is None
    assert v.stage("visual").status == "skipped"
    # The repair is a conversation: the bad reply, then what was wrong with it.
    third = [r for r in fake_api.requests if role_of(r) == "semantic"][2]
    roles = [m["role"] for m in third["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    assert "'decision' must be one of 1, 0, -1, not 2" in third.text()
    fake_api.assert_clean()


def test_malformed_triage_escalates_and_a_repaired_reply_counts(fake_api, tmp_path: Path) -> None:
    ep = note_failure(make_run(tmp_path))
    fake_api.handler = scripted(
        triage=['{"decision": "Failure", "reason": "wrong price"}', "```json\n{\"decision\": \"Uncertain\"}\n```"],
        semantic={"decision": 0, "reason": "the body says 79.99"},
    )
    v = judge_episode(ep, stages=["triage", "describe", "semantic"])
    t = v.stage("triage")
    assert t.status == "undecided" and t.raw == "Uncertain" and t.calls == 2
    assert "must be \"Success\" or \"Uncertain\"" in t.details["repairs"][0]["problem"]
    assert v.decision == "failure" and v.decided_by == "semantic"


def test_a_failed_memory_task_gets_an_irr_analysis(fake_api, tmp_path: Path) -> None:
    ep = note_failure(make_run(tmp_path))
    fake_api.handler = scripted(
        triage={"reason": "unsure", "decision": "Uncertain"},
        semantic={"decision": 0, "reason": "the price in the note is 79.99, not 89.99"},
        irr=[{"total_information_units": 2, "correctly_used_units": 1, "irr_percentage": 20,
              "analysis_reason": "inconsistent"},
             {"total_information_units": 2, "correctly_used_units": 1, "irr_percentage": 50,
              "analysis_reason": "title right, price wrong"}],
    )
    v = judge_episode(ep, stages=["scrutiny", "irr"])
    assert v.decision == "failure" and v.irr == 0.5
    irr = v.stage("irr")
    assert irr.status == "done" and irr.calls == 2 and irr.details["irr_percentage"] == 50
    req = next(r for r in fake_api.requests if role_of(r) == "irr")
    assert "79.99, not 89.99" in req.text() and "Step 2: Action: Tapped" in req.text()
    assert by_role(fake_api)["describe"] == 3  # the descriptions were made once and reused


def test_a_successful_memory_task_has_irr_100_without_a_call(fake_api, tmp_path: Path) -> None:
    ep = note_success(make_run(tmp_path))
    v = judge_episode(ep)  # default stages: the rules decide, nothing else is asked
    assert v.decided_by == "rules" and v.irr == 1.0 and v.stage("irr").reason.startswith("the task succeeded")
    assert fake_api.requests == []


def test_descriptions_run_concurrently_within_the_bound(fake_api, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GUILENS_JUDGE_CONCURRENCY", "3")
    screens = [[f"Screen {i}", "New note" if i else "Notes"] for i in range(9)]
    actions = [{"type": "tap", "x": 100 + i, "y": 200} for i in range(8)]
    ep = record(make_run(tmp_path), "note", screens, actions, final_state={"notes": {"notes": []}},
                status="failure")
    lock, live, peak = threading.Lock(), [0], [0]

    def handle(req):
        role = role_of(req)
        if role == "describe":
            time.sleep(0.05)  # the fake server answers one request at a time; the client side overlaps
            return reply(DESC)
        if role == "triage":
            return reply({"reason": "?", "decision": "Uncertain"})
        return reply({"decision": 0, "reason": "no note"})

    class Counting(LLMClient):
        def create(self, **kw):  # type: ignore[override]
            with lock:
                live[0] += 1
                peak[0] = max(peak[0], live[0])
            try:
                return super().create(**kw)
            finally:
                with lock:
                    live[0] -= 1

    fake_api.handler = handle
    v = judge_episode(ep, stages=["scrutiny"], client_factory=lambda m: Counting(m, role="judge"))
    assert v.decision == "failure" and by_role(fake_api)["describe"] == 8
    assert peak[0] == 3


def test_rejudging_costs_nothing_and_force_hits_the_response_cache(fake_api, tmp_path: Path) -> None:
    ep = note_success(make_run(tmp_path))
    fake_api.handler = scripted(triage={"reason": "unsure", "decision": "Uncertain"},
                                semantic={"decision": 1, "reason": "ok"})
    first = judge_episode(ep, stages=["scrutiny"])
    n = len(fake_api.requests)
    again = judge_episode(ep, stages=["scrutiny"])
    assert again.reused and len(fake_api.requests) == n and again.key == first.key
    forced = judge_episode(ep, stages=["scrutiny"], force=True)
    assert not forced.reused and len(fake_api.requests) == n  # every call served from the response cache
    assert forced.usage.cost_usd == 0 and all(s.cached_calls == s.calls for s in forced.stages)
    assert forced.decision == first.decision
    # A changed episode is judged again.
    (ep / "steps.jsonl").write_text((ep / "steps.jsonl").read_text().replace("ASICS 89.99", "ASICS 89.98"))
    changed = judge_episode(ep, stages=["scrutiny"])
    assert not changed.reused and changed.key != first.key


def test_big_screens_are_scaled_to_1568(fake_api, tmp_path: Path, monkeypatch) -> None:
    import tests.judge_helpers as h

    monkeypatch.setattr(h, "SIZE", (1080, 2400))
    ep = note_success(make_run(tmp_path))
    fake_api.handler = scripted(triage={"reason": "?", "decision": "Uncertain"},
                                semantic={"decision": 1, "reason": "ok"})
    judge_episode(ep, stages=["scrutiny"])
    sizes = [img.size for r in fake_api.requests for img in r.images()]
    assert sizes and max(max(s) for s in sizes) == 1568


def test_without_an_api_key_the_llm_stages_say_so(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    ep = note_failure(make_run(tmp_path))
    v = judge_episode(ep, stages=["rules", "scrutiny", "irr"])
    assert v.decision == "failure" and v.decided_by == "rules"
    for name in ("triage", "describe", "semantic", "visual", "irr"):
        s = v.stage(name)
        assert s.status == "skipped" and "ANTHROPIC_API_KEY" in s.reason, (name, s.reason)


def test_an_api_outage_is_an_error_stage_and_is_not_cached(fake_api, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GUILENS_MAX_RETRIES", "0")
    ep = note_success(make_run(tmp_path))
    fake_api.fail_next("500")
    fake_api.handler = scripted(triage={"reason": "fine", "decision": "Success"})
    v = judge_episode(ep, stages=["rules", "scrutiny"])
    assert v.stage("triage").status == "error" and "500" in v.stage("triage").reason
    assert v.decided_by == "rules"
    again = judge_episode(ep, stages=["rules", "scrutiny"])
    assert not again.reused and again.stage("triage").status == "decided"


def test_an_episode_without_screens_is_judged_from_text(fake_api, tmp_path: Path) -> None:
    ep = record(make_run(tmp_path), "note", [["a"], ["b"]], [{"type": "type", "text": "Shoes"}],
                with_screens=False, with_ui=False, status="failure")
    fake_api.handler = scripted(triage={"reason": "?", "decision": "Uncertain"},
                                semantic={"decision": 0, "reason": "nothing to see"})
    v = judge_episode(ep, stages=["rules", "scrutiny"])
    assert v.stage("rules").status == "skipped" and "nothing for the rules to read" in v.stage("rules").reason
    assert v.stage("triage").status == "skipped" and v.stage("triage").reason == "no screens were recorded"
    assert v.stage("describe").details["missing"] == [0]
    assert v.decided_by == "semantic" and by_role(fake_api) == {"semantic": 1}
    (req,) = fake_api.requests
    assert req.images() == [] and "no screens were recorded" in req.text() and "type Shoes" in req.text()


def test_a_killed_attempt_stays_undecided_and_no_model_decides_it(fake_api, tmp_path: Path) -> None:
    """An interrupted attempt is nobody's failure: the rules leave it undecided and the deciding stages
    (triage, semantic, visual) are not asked, even when they are requested and a model is there."""
    ep = record(make_run(tmp_path), "note",
                [["Notes", "+"], ["New note", "Title", "Body"], ["New note", "Shoes", "Body"]],
                [{"type": "tap", "x": 270, "y": 95}, {"type": "type", "text": "Shoes"}],
                status="interrupted")
    fake_api.handler = scripted(triage={"reason": "looks done", "decision": "Success"},
                                semantic={"decision": 0, "reason": "no"})
    v = judge_episode(ep, stages=["rules", "scrutiny"])
    assert v.decision is None or v.decision == "undecided"
    assert v.stage("rules").status == "undecided"
    assert {s.stage: s.status for s in v.stages if s.stage in ("triage", "semantic", "visual")} == {
        "triage": "skipped", "semantic": "skipped", "visual": "skipped"}
    assert "interrupted" in v.stage("triage").reason
    assert not any(role_of(r) in ("triage", "semantic", "visual") for r in fake_api.requests)
