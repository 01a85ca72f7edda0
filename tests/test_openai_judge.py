"""`guilens judge --judge-model openai:...` against the loopback OpenAI server: the staged judge's images and
JSON go through the translation, the step descriptions can use a cheaper model, bad specs are one line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from guilens.cli import app
from tests import fakeopenai
from tests.fakeopenai import Faults, Request, text
from tests.judge_helpers import make_run, note_success, role_of

fake_openai = fakeopenai.fake_openai


def judge_model(req: Request) -> dict:
    role = role_of(req)
    if role == "triage":
        return text('```json\n{"reason": "cannot see the body", "decision": "Uncertain"}\n```')
    if role == "describe":
        return text(json.dumps({"action_description": "Typed the price", "ui_description": "The note"}))
    if role == "semantic":
        return text(json.dumps({"decision": 1, "reason": "the body reads ASICS 89.99"}))
    raise AssertionError(f"unexpected judge role {role}: {req.system_text()[:120]}")


def test_a_judge_run_on_an_openai_server_with_a_cheaper_describer(fake_openai, tmp_path: Path) -> None:
    ep = note_success(make_run(tmp_path))
    fake_openai.handler = judge_model
    result = CliRunner().invoke(app, ["judge", str(ep), "--stages", "scrutiny", "--judge-model", "openai:big-judge",
                                      "--describe-model", "openai:small-describer", "--base-url", fake_openai.url])
    assert result.exit_code == 0, result.output
    assert "success" in result.output and "by semantic" in result.output and "price unknown" in result.output
    verdict = json.loads((ep / "verdict.json").read_text())
    assert verdict["decision"] == "success" and verdict["decided_by"] == "semantic"
    models = {(role_of(r), r["model"]) for r in fake_openai.requests}
    assert models == {("triage", "big-judge"), ("describe", "small-describer"), ("semantic", "big-judge")}
    describe = [r for r in fake_openai.requests if role_of(r) == "describe"]
    assert len(describe) == 3 and all(r.image_count() == 1 for r in describe)  # before/after panels as images
    assert all(r.images()[0].format == "PNG" for r in describe)
    triage = next(r for r in fake_openai.requests if role_of(r) == "triage")
    assert "Step 2: type ASICS 89.99" in triage.text() and triage.image_count() == 1
    assert verdict["stages"][1]["usage"]["input_tokens"] > 0  # tokens always, though the price is unknown
    fake_openai.assert_clean()

    # judged again, nothing changed: the verdict is reused, no request made
    before = len(fake_openai.requests)
    again = CliRunner().invoke(app, ["judge", str(ep), "--stages", "scrutiny", "--judge-model", "openai:big-judge",
                                     "--describe-model", "openai:small-describer", "--base-url", fake_openai.url])
    assert again.exit_code == 0 and "cached" in again.output and len(fake_openai.requests) == before


def test_the_judge_survives_faults_on_the_server_and_counts_them(fake_openai, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GUILENS_MAX_RETRIES", "8")
    monkeypatch.setenv("GUILENS_REQUEST_TIMEOUT_S", "0.5")
    ep = note_success(make_run(tmp_path))
    fake_openai.handler = judge_model
    fake_openai.faults = Faults(rate=0.3, kinds=("429", "500", "503", "truncated", "invalid"), seed=2)
    result = CliRunner().invoke(app, ["judge", str(ep), "--stages", "scrutiny", "--model", "openai:j"])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    verdict = json.loads((ep / "verdict.json").read_text())
    assert verdict["decision"] == "success"
    api_retries = [r for s in verdict["stages"] for r in s["usage"]["retries"] if r["kind"] == "api"]
    assert fake_openai.injected and len(api_retries) == len(fake_openai.injected)


def test_bad_models_and_urls_are_one_line(fake_openai, tmp_path: Path) -> None:
    ep = note_success(make_run(tmp_path))
    import os
    import subprocess
    import sys

    for args, expected in ((["--judge-model", "acme:x"], "error: --judge-model 'acme:x': unknown provider 'acme'"),
                           (["--describe-model", "openai:"], "error: --describe-model 'openai:': no model"),
                           (["--base-url", "localhost"], "error: --base-url 'localhost': give an http")):
        proc = subprocess.run([sys.executable, "-m", "guilens", "judge", str(ep), "--stages", "scrutiny", *args],
                              capture_output=True, text=True, env=dict(os.environ), timeout=60)
        assert proc.returncode == 2 and expected in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert fake_openai.requests == []
