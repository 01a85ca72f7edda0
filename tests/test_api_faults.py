"""API faults on 30% of requests, through the real CLI, the real anthropic SDK and the loopback API.

The claude agent runs two sim tasks, five attempts each, while the fake
Messages API answers a seeded 30% of requests with a fault of every kind it
knows (429, 500, 529, hangs, bodies cut short or dropped, bodies that are no
message, replies without a tool call). The run must complete with no
traceback anywhere, and every fault the server injected must be in the
record: the steps' `usage.retries`, one entry per fault, in the same order,
each naming its cause.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests import fakeapi
from tests.fakeapi import ALL_FAULTS, FakeAnthropic, Faults, Request, tool_use
from tests.runner_helpers import read_steps, run, write_scenarios

fake_api = fakeapi.fake_api
ROOT = Path(__file__).resolve().parents[1]
CLAUDE = "tests.runner_helpers:QuickRetryClaude"
MODEL = "claude-sonnet-4-6"
_ELEMENT = re.compile(r'^\[(\d+)\] (\w+) "([^"]*)"', re.M)

PLANS: dict[str, dict[int, tuple[str, str]]] = {
    "Groceries": {1: ("tap", "Notes"), 2: ("tap", "New note"), 3: ("type", "Groceries"), 4: ("tap", "Note"),
                  5: ("type", "milk"), 6: ("tap", "Save"), 7: ("finish", "success")},
    "Budget": {1: ("tap", "Notes"), 2: ("tap", "Budget"), 3: ("answer", "42 dollars")},
}
"""What a competent model does at each step of `rt:grocery` and `rt:budget`, read from the request."""

CAUSES = {
    "429": r"^HTTP 429 rate_limit_error",
    "500": r"^HTTP 500 api_error",
    "529": r"^HTTP 529 overloaded_error",
    "hang": r"^no answer within 0\.5 s$",
    "truncated": r"^HTTP 200 but the body was cut short",
    "dropped": r"^HTTP reply cut off mid-body",
    "invalid": r"^HTTP 200 but the (body is not|message's content is)",
    "badtool": r"^no act tool call in the reply$",
}
"""How each injected fault must read in the record."""


def notes_model(req: Request) -> dict[str, Any]:
    """The model, decided from the request alone: the task, the step number and the element list."""
    first = Request({"messages": req["messages"][:1]}).text()
    task = "Groceries" if "titled Groceries" in req.system_text() else "Budget"
    step = int(re.search(r"^Step (\d+);", first, re.M)[1])  # type: ignore[index]
    kind, arg = PLANS[task][step]
    if kind == "tap":
        labels = {label: int(n) for n, _, label in _ELEMENT.findall(first)}
        action: dict[str, Any] = {"type": "tap", "element": next(n for lb, n in labels.items() if lb.startswith(arg))}
    elif kind == "type":
        action = {"type": "type", "text": arg}
    elif kind == "answer":
        action = {"type": "answer", "text": arg}
    else:
        action = {"type": "finish", "status": arg}
    return tool_use("act", {"thought": f"step {step}", "action": action, "action_result": "", "description": ""})


def recorded_retries(run_dir: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every step's retries in run order (tasks as run.json lists them, attempts in order), and every
    episode's own total, for the cross-check."""
    meta = json.loads((run_dir / "run.json").read_text())
    steps_retries: list[dict[str, Any]] = []
    episode_retries: list[dict[str, Any]] = []
    for task in meta["tasks"]:
        for attempt in sorted((run_dir / task).glob("attempt-*"), key=lambda p: int(p.name.split("-")[1])):
            for s in read_steps(attempt):
                steps_retries += s["usage"].get("retries", [])
            episode_retries += json.loads((attempt / "episode.json").read_text())["tokens"].get("retries", [])
    return steps_retries, episode_retries


def test_thirty_percent_faults_of_every_kind_are_survived_and_recorded(tmp_path: Path) -> None:
    files = write_scenarios(tmp_path)
    faults = Faults(rate=0.3, kinds=ALL_FAULTS, hang_s=1.0, retry_after=0.01, seed=12)
    with FakeAnthropic(handler=notes_model, faults=faults) as api:
        api.fail_next(*ALL_FAULTS)  # every kind at least once, whatever the seed draws
        env = {**os.environ, **api.env(), "GUILENS_CONFIG_FILE": str(tmp_path / "none.toml"),
               "GUILENS_CACHE_DIR": str(tmp_path / "cache"), "GUILENS_REQUEST_TIMEOUT_S": "0.5",
               "GUILENS_MAX_RETRIES": "8", "PYTHONPATH": str(ROOT)}
        env.pop("ANTHROPIC_BASE_URL", None)
        proc = subprocess.run(
            [sys.executable, "-m", "guilens", "run", str(files[0]), "--agent", CLAUDE, "--model", MODEL,
             "--attempts", "5", "--all-attempts", "--headless", "--out", str(tmp_path / "runs")],
            env=env, cwd=tmp_path, capture_output=True, text=True, timeout=240,
        )
        injected = [kind for _, kind in api.injected]
        api.assert_clean()
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    assert "Traceback" not in output, output[-3000:]
    (run_dir,) = list((tmp_path / "runs").iterdir())
    for f in run_dir.rglob("*.json*"):
        assert "Traceback" not in f.read_text(), f
    episodes = [json.loads(p.read_text()) for p in run_dir.glob("*/attempt-*/episode.json")]
    assert len(episodes) == 10 and {e["status"] for e in episodes} == {"success"}
    assert all(e["error_detail"] is None for e in episodes)

    # Every injected fault is in the record, once, in order, naming its cause.
    assert len(injected) >= 20 and set(injected) == set(ALL_FAULTS), injected
    steps_retries, episode_retries = recorded_retries(run_dir)
    assert len(steps_retries) == len(injected)
    for kind, entry in zip(injected, steps_retries, strict=True):
        assert entry["kind"] == ("repair" if kind == "badtool" else "api"), (kind, entry)
        assert re.search(CAUSES[kind], entry["cause"]), (kind, entry)
        assert entry["role"] == "agent"
        assert (entry["wait_s"] is not None) == (entry["kind"] == "api")
    assert episode_retries == steps_retries  # the episodes' totals hold the same, nothing more


def test_the_api_down_ends_the_attempt_as_error_saying_the_api_did_it(tmp_path: Path, fake_api, monkeypatch) -> None:
    monkeypatch.setenv("GUILENS_MAX_RETRIES", "2")
    monkeypatch.setenv("GUILENS_REQUEST_TIMEOUT_S", "0.5")
    fake_api.faults = Faults(hang_s=1.0)
    fake_api.handler = notes_model
    fake_api.fail_next("badtool", "529", "truncated", "hang")  # a repair, then three failed tries
    files = write_scenarios(tmp_path)
    result = run(f"{files[0]}:budget", tmp_path / "runs", agent=CLAUDE, model=MODEL)
    ep = result.tasks["budget"].attempts[0]
    assert ep.status == "error" and ep.steps == 0
    assert "\n" not in ep.error
    assert "the Anthropic API failed; gave up after 3 tries: HTTP 529 overloaded_error: Overloaded; " \
           "HTTP 200 but the body was cut short" in ep.error
    assert "no answer within 0.5 s" in ep.error
    assert ep.error.endswith("earlier in this step: 1 repair (no act tool call in the reply)")
    assert [r.outcome for r in fake_api.requests] == ["badtool", "529", "truncated", "hang"]


def test_an_api_failure_leaves_no_traceback_in_the_episode(tmp_path: Path, fake_api, monkeypatch) -> None:
    monkeypatch.setenv("GUILENS_MAX_RETRIES", "0")
    fake_api.handler = notes_model
    fake_api.fail_next("500")
    files = write_scenarios(tmp_path)
    ep = run(f"{files[0]}:budget", tmp_path / "runs", agent=CLAUDE, model=MODEL).tasks["budget"].attempts[0]
    assert ep.status == "error" and "the Anthropic API failed" in (ep.error or "")
    assert ep.error_detail is None


def test_a_repaired_step_records_each_bad_reply(tmp_path: Path, fake_api) -> None:
    fake_api.handler = notes_model
    fake_api.fail_next("badtool", "429", "badtool")
    files = write_scenarios(tmp_path)
    result = run(f"{files[0]}:budget", tmp_path / "runs", agent=CLAUDE, model=MODEL)
    assert result.tasks["budget"].status == "success"
    first = read_steps(result.run_dir / "budget" / "attempt-1")[0]
    assert [(r["kind"], r["cause"][:12]) for r in first["usage"]["retries"]] == [
        ("repair", "no act tool "), ("api", "HTTP 429 rat"), ("repair", "no act tool ")]
    assert first["error"] is None and first["usage"]["input_tokens"] > 0
