"""`guilens run --user llm --user-model openai:MODEL --user-base-url URL`: the simulated user on an
OpenAI-compatible server, through the CLI, its calls on the step where it answered."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests import fakeopenai
from tests.fakeopenai import FAKE_OPENAI_KEY, text

fake_openai = fakeopenai.fake_openai


def test_the_llm_user_answers_from_an_openai_server(fake_openai, tmp_path: Path) -> None:
    fake_openai.handler = lambda req: text("The Budget note, please.")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GUILENS_OPENAI")}
    proc = subprocess.run(
        [sys.executable, "-m", "guilens", "run", "demo", "--level", "L2", "--user", "llm",
         "--user-model", "openai:user-sim", "--user-base-url", fake_openai.url, "--headless",
         "--out", str(tmp_path / "runs")],
        capture_output=True, text=True, env=env, timeout=240, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    attempts = [p.parent for p in (tmp_path / "runs").glob("*/*/attempt-*/episode.json")]
    assert attempts
    attempt = attempts[0]
    steps = [json.loads(line) for line in (attempt / "steps.jsonl").read_text().splitlines()]
    asks = [s["ask"] for s in steps if s.get("ask")]
    assert asks and all(a["answered_by"] == "llm" and a["answer"] == "The Budget note, please." for a in asks)
    assert len(fake_openai.requests) == len(asks)
    for ask, req in zip(asks, fake_openai.requests, strict=True):
        (call,) = ask["llm_calls"]
        assert call["role"] == "user" and call["model"] == "user-sim" and call["request"] == json.loads(req.raw)
        assert ask["question"] in req.last_user_text()
    run_json = (attempt.parent.parent / "run.json").read_text()
    assert "--user-model openai:user-sim" in run_json  # the command as typed, to run again
    for f in attempt.parent.parent.rglob("*.json*"):
        assert FAKE_OPENAI_KEY not in f.read_text(), f
    fake_openai.assert_clean()
