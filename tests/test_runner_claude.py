"""The claude agent through the whole runner on the sim, the fake Messages API playing the model."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests import fakeapi
from tests.fakeapi import Faults, Request, text, tool_use
from tests.runner_helpers import read_steps, run, write_scenarios

fake_api = fakeapi.fake_api
CLAUDE = "tests.runner_helpers:QuickRetryClaude"
MODEL = "claude-sonnet-4-6"
_ELEMENT = re.compile(r'^\[(\d+)\] (\w+) "([^"]*)"', re.M)
LESSON = "Open the Budget note before answering."


def notes_model(req: Request) -> dict[str, Any]:
    """A competent model for `rt:budget` (and the lessons and user roles), decided from the request alone."""
    if "record_lessons" in req.tool_names():
        return tool_use("record_lessons", {"lessons": [LESSON]})
    if not req.get("tools"):  # the llm user
        return text("milk")
    first = Request({"messages": req["messages"][:1]}).text()
    elements = {label: int(n) for n, _, label in _ELEMENT.findall(first)}
    app = re.search(r"Current app: (\S+)\.", first)
    assert app is not None and elements, first[:400]
    data: dict[str, Any] = {"thought": "", "action_result": "", "description": ""}
    if app[1] == "com.guilens.launcher":
        data.update(action={"type": "tap", "element": elements["Notes"]}, description="Open Notes")
    elif "Save" in elements:
        data.update(action={"type": "answer", "text": "42 dollars"}, action_result="The Budget note is open.",
                    ltm_update={"app": "notes", "content": "Lunch money: 42 dollars a week"})
    else:
        budget = next(n for label, n in elements.items() if label.startswith("Budget"))
        data.update(action={"type": "tap", "element": budget}, action_result="Notes opened.")
    return tool_use("act", data)


@pytest.fixture
def files(tmp_path: Path, fake_api) -> tuple[Path, Path]:
    fake_api.handler = notes_model
    return write_scenarios(tmp_path)


def test_claude_completes_a_sim_task(files, tmp_path, fake_api):
    result = run(f"{files[0]}:budget", tmp_path / "runs", agent=CLAUDE, model=MODEL)
    ep = result.tasks["budget"].attempts[0]
    assert ep.status == "success" and ep.final_answer == "42 dollars" and ep.steps == 3
    assert ep.agent == "claude" and ep.model == MODEL
    assert ep.tokens.input_tokens > 0 and ep.cost_usd > 0
    steps = read_steps(result.run_dir / "budget" / "attempt-1")
    assert steps[0]["target"]["element"] is not None and steps[0]["action"]["x"] > 0  # element -> pixels
    assert steps[-1]["memory"]["ltm"][0]["content"] == "Lunch money: 42 dollars a week"
    assert all(s["usage"]["cost_usd"] > 0 for s in steps)
    meta = json.loads((result.run_dir / "run.json").read_text())
    assert meta["model"] == MODEL
    fake_api.assert_clean()


def test_malformed_tool_output_is_retried_then_recorded(files, tmp_path, fake_api):
    bad = tool_use("act", {"thought": "hmm", "action": {"type": "tap"}})
    fake_api.push(bad, bad, bad)  # three tries for step 0, all malformed
    result = run(f"{files[0]}:budget", tmp_path / "runs", agent=CLAUDE, model=MODEL)
    ep = result.tasks["budget"].attempts[0]
    assert ep.status == "success" and ep.steps == 4
    steps = read_steps(result.run_dir / "budget" / "attempt-1")
    assert steps[0]["action"] is None and "no valid action after 3 tries" in steps[0]["error"]
    assert steps[0]["usage"]["input_tokens"] > 0  # the failed tries are paid for
    assert steps[1]["error"] is None


def test_episode_completes_with_30_percent_faults(files, tmp_path, fake_api, monkeypatch):
    monkeypatch.setenv("GUILENS_REQUEST_TIMEOUT_S", "0.5")
    fake_api.faults = Faults(rate=0.3, kinds=("429", "500", "hang"), hang_s=1.0, seed=11)
    fake_api.fail_next("429", "hang", "500")  # at least these, whatever the seed draws
    result = run(f"{files[0]}:budget", tmp_path / "runs", agent=CLAUDE, model=MODEL)
    ep = result.tasks["budget"].attempts[0]
    assert ep.status == "success" and ep.steps == 3
    assert len(fake_api.requests) >= len(fake_api.served) + 3  # faults happened and were retried


def test_claude_lessons_are_paid_for_and_carried(files, tmp_path, fake_api):
    result = run(f"{files[0]}:budget", tmp_path / "runs", agent=CLAUDE, model=MODEL, attempts=2, max_steps=2)
    first, second = result.tasks["budget"].attempts
    assert first.status == second.status == "timeout"
    assert first.lessons_learned == [LESSON] and second.lessons == [LESSON]
    step_cost = sum(s["usage"]["cost_usd"] for s in read_steps(result.run_dir / "budget" / "attempt-1"))
    assert first.cost_usd > step_cost  # the reflection call is in the attempt's total
    later = [r for r in fake_api.served if "Attempt 2 of 2" in r.system_text()]
    assert later and LESSON in later[0].system_text()


def test_llm_user_answers_in_a_run(files, tmp_path, fake_api):
    result = run(f"{files[0]}:grocery", tmp_path / "runs", user="llm", level="L1")
    assert result.tasks["grocery"].status == "success"
    (ask,) = [s["ask"] for s in read_steps(result.run_dir / "grocery" / "attempt-1") if s["ask"]]
    assert ask["answer"] == "milk" and ask["answered_by"] == "llm" and ask["usage"]["input_tokens"] > 0
