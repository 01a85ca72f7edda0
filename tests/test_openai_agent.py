"""`--agent openai`: each format completes a sim task against the loopback OpenAI server (real SDK, real HTTP).

The server plays a model (tests/openai_agent_helpers.py) that answers in the
format's syntax and coordinate convention; the agent must size the screenshot
as the format says, word the request as the format's model expects, parse the
reply with the format's parser and scale it back to the device, or the taps
miss and the calculator never shows 42.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guilens.agents.openai_agent import OpenAIAgent
from guilens.config import load_settings
from tests import fakeopenai
from tests.fakeopenai import ALL_FAULTS, FAKE_OPENAI_KEY, FakeOpenAI, Faults, raw_args, text, tool_call
from tests.openai_agent_helpers import FORMATS, SCENARIO, CalculatorModel, run

sim = pytest.importorskip("guilens.device.sim.device")
fake_openai = fakeopenai.fake_openai
ROOT = Path(__file__).resolve().parents[1]

IMAGE_SIZES = {"native": (706, 1568), "uitars": (1092, 2408), "qwen": (1092, 2408), "odyssey": (672, 1484)}
"""native: long side 1568; uitars/qwen: Qwen2.5-VL's smart resize (28-pixel multiples) of 1080x2400 within
12.8 MP; odyssey: the same within 1280 patches (~1 MP)."""


def agent(fmt: str, **kw) -> OpenAIAgent:
    return OpenAIAgent(load_settings(), model="test-vl-7b", format=fmt, **kw)


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_completes_the_calculator_task(fake_openai, fmt):
    model = CalculatorModel(fmt)
    fake_openai.handler = model
    device = sim.SimDevice()

    steps = run(agent(fmt), device)

    assert [s.action.type for s in steps] == ["tap"] * 7 + ["answer"] and steps[-1].action.text == "42"
    assert device.state()["apps"]["calculator"]["result"] == "42"
    served = fake_openai.served
    assert len(served) == 8 and all(r.image_count() == 1 for r in served)
    assert set(model.seen) == {IMAGE_SIZES[fmt]}
    first, last = served[0], served[-1]
    assert first["model"] == "test-vl-7b"
    if fmt == "native":
        assert first.tool_names() == ["act"]
        assert first["tool_choice"] == {"type": "function", "function": {"name": "act"}}
        assert "The screenshot is 706x1568 pixels" in first.last_user_text()
        assert "## Short-term memory" in last.last_user_text()  # com, the native default
        assert steps[-1].memory.strategy == "com" and steps[-1].memory.ltm[0].content == "12+30 = 42"
    else:
        assert "tools" not in first and steps[-1].memory.strategy == "action-thought"
        assert len(steps[-1].memory.history) == 7
    if fmt == "uitars":  # the whole prompt in the first user turn, no system message
        assert first.system_text() == "" and last.last_user_text().startswith("You are a GUI agent.")
        assert "## User Instruction\nUse Calculator to add 12 and 30" in last.last_user_text()
        assert "Step 7: Thought: Step 7: tap =. Action: click(start_box='<|box_start|>(" in last.last_user_text()
    if fmt == "qwen":
        assert "The screen's resolution is 1092x2408." in first.system_text()
        assert "The user query: Use Calculator" in first.last_user_text()
        assert "Task progress (You have done the following operation on the current device): None." in first.text()
    if fmt == "odyssey":
        content = first["messages"][-1]["content"]
        assert content[0]["type"] == "image_url"  # GUI Odyssey's "Picture 1" comes first
        assert "I'm looking for guidance on how to Use Calculator" in content[1]["text"]
        # the model wrote no thought, so its action-thought history is its commands
        history = re.search(r"Previous Actions: (.*)\nProvide", last.last_user_text(), re.S)
        assert history is not None
        assert re.fullmatch(r"(\d\. CLICK: \(\d+, \d+\)\n?){7}", history[1]), history[1]
    # each step's calls are on its record, the screenshot referenced as the step's screen, not copied
    for i, s in enumerate(steps):
        (call,) = s.llm_calls
        assert call.provider == "openai" and call.role == "agent" and not call.repair
        assert f"screens/{i:04d}.png" in json.dumps(call.request) and "base64," not in json.dumps(call.request)
    fake_openai.assert_clean()


@pytest.mark.parametrize("fmt", ["native", "qwen"])
def test_thirty_percent_faults_are_survived_and_each_one_recorded(fake_openai, fmt):
    from guilens.llm import make_client

    fake_openai.faults = Faults(rate=0.3, kinds=ALL_FAULTS, hang_s=1.0, seed=7)
    fake_openai.handler = CalculatorModel(fmt)
    client = make_client("openai:test-vl-7b", role="agent", timeout=0.5, max_retries=10,
                         retry_base_delay=0.01, retry_max_delay=0.05)
    device = sim.SimDevice()

    steps = run(agent(fmt, client=client), device)

    assert device.state()["apps"]["calculator"]["result"] == "42" and steps[-1].action.text == "42"
    injected = [kind for _, kind in fake_openai.injected]
    assert len(injected) >= 3, injected
    recorded = [r for s in steps for r in s.usage.retries]
    assert len(recorded) == len(injected)  # every fault, once, in order
    for kind, entry in zip(injected, recorded, strict=True):
        assert entry.kind == ("repair" if kind == "badargs" else "api"), (kind, entry)
    calls = [c for s in steps for c in s.llm_calls]
    assert sum(len(c.retries) for c in calls) == sum(1 for r in recorded if r.kind == "api")
    fake_openai.assert_clean()


def test_a_reply_the_format_cannot_read_is_sent_back_and_recorded(fake_openai):
    fake_openai.push(
        text("I will tap the Calculator icon now."),
        text("Thought: open it\nAction: click(start_box='<|box_start|>(680,1473)<|box_end|>')"),
    )
    a = agent("uitars")
    out = run_one(a)
    assert out.error is None and out.action.type == "tap"
    (repair,) = out.usage.retries
    assert repair.kind == "repair" and repair.role == "agent" and "no 'Action:' in the reply" in repair.cause
    second = fake_openai.requests[1]
    roles = [m["role"] for m in second["messages"]]
    assert roles == ["user", "assistant", "user"]
    assert second["messages"][1]["content"] == "I will tap the Calculator icon now."
    assert "Your reply could not be used: no 'Action:'" in second.last_user_text()
    assert [c.repair for c in out.llm_calls] == [False, True]
    fake_openai.assert_clean()


def test_native_tool_arguments_that_are_not_json_are_repaired(fake_openai):
    fake_openai.push(
        raw_args("act", "{not json"),
        tool_call("act", {"thought": "t", "action": {"type": "key", "key": "home"}, "description": "Home",
                          "action_result": ""}),
    )
    out = run_one(agent("native"))
    assert out.action.type == "key" and [r.kind for r in out.usage.retries] == ["repair"]
    assert "arguments are not a JSON object" in out.usage.retries[0].cause
    second = fake_openai.requests[1]
    tool_msg = next(m for m in second["messages"] if m["role"] == "tool")
    assert "Invalid:" in tool_msg["content"] and "Call the act tool once" in tool_msg["content"]
    fake_openai.assert_clean()


def test_unreadable_replies_end_the_step_with_an_error_naming_the_problem(fake_openai):
    fake_openai.push(text("CLICK somewhere"), text("CLICK: here"), text("no idea"))
    out = run_one(agent("odyssey"))
    assert out.action is None and "no valid action after 3 tries" in (out.error or "")
    assert [r.kind for r in out.usage.retries] == ["repair"] * 3 and len(out.llm_calls) == 3


def test_max_pixels_sets_the_image_size_and_the_taps_still_land(fake_openai):
    model = CalculatorModel("qwen")
    fake_openai.handler = model
    device = sim.SimDevice()
    steps = run(agent("qwen", max_pixels=500_000), device)
    assert device.state()["apps"]["calculator"]["result"] == "42" and steps[-1].action.text == "42"
    (size,) = set(model.seen)
    assert size == (448, 1036) and size[0] * size[1] <= 500_000 and size[0] % 28 == 0 and size[1] % 28 == 0
    assert "The screen's resolution is 448x1036." in fake_openai.served[0].system_text()


def run_one(a: OpenAIAgent):
    from guilens.agents.base import AgentContext, StepInput

    a.reset(AgentContext(task=None, instruction="Open Calculator."))
    return a.step(StepInput(index=0, observation=sim.SimDevice().observe(), budget_left=5))


# --- through the CLI -----------------------------------------------------------------------------


def test_guilens_run_with_the_uitars_format_completes_and_records_no_key(tmp_path):
    (tmp_path / "calc.yaml").write_text(SCENARIO)
    with FakeOpenAI(handler=CalculatorModel("uitars")) as api:
        env = {**os.environ, **api.env(), "GUILENS_CONFIG_FILE": str(tmp_path / "none.toml"),
               "GUILENS_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
        env.pop("GUILENS_OPENAI_BASE_URL", None)  # the endpoint comes from --base-url
        proc = subprocess.run(
            [sys.executable, "-m", "guilens", "run", str(tmp_path / "calc.yaml"), "--agent", "openai",
             "--base-url", api.url, "--model", "ui-tars-1.5-7b", "--format", "uitars", "--headless",
             "--out", str(tmp_path / "runs")],
            env=env, cwd=tmp_path, capture_output=True, text=True, timeout=180,
        )
        api.assert_clean()
        served = len(api.served)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Traceback" not in output, output[-3000:]
    (episode_file,) = (tmp_path / "runs").glob("*/add/attempt-1/episode.json")
    episode = json.loads(episode_file.read_text())
    assert episode["status"] == "success" and episode["final_answer"] == "42"
    lines = [json.loads(x) for x in (episode_file.parent / "steps.jsonl").read_text().splitlines()]
    assert len(lines) == 8 == served
    assert lines[-1]["memory"]["strategy"] == "action-thought" and len(lines[-1]["memory"]["history"]) == 7
    assert all(len(x["llm_calls"]) == 1 for x in lines)
    run_json = json.loads(next((tmp_path / "runs").glob("*/run.json")).read_text())
    assert "--format uitars" in run_json["command"]
    for f in (tmp_path / "runs").rglob("*"):
        if f.is_file() and f.suffix in (".json", ".jsonl"):
            assert FAKE_OPENAI_KEY not in f.read_text(), f


@pytest.fixture
def cli(tmp_path, monkeypatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("GUILENS_OPENAI_BASE_URL", raising=False)
    (tmp_path / "calc.yaml").write_text(SCENARIO)
    return CliRunner()


@pytest.mark.parametrize(("args", "message"), [
    (["--base-url", "http://127.0.0.1:9/v1"], "--agent openai needs --model"),
    (["--model", "m", "--base-url", "ftp://gpu-box/v1"], "--base-url 'ftp://gpu-box/v1': give an http:// or https:// URL"),
    (["--model", "m", "--base-url", "https://api.example.com/v1"], "OPENAI_API_KEY is not set"),
    (["--model", "m", "--memory", "everything"], "--memory 'everything'"),
    (["--model", "m", "--format", "tars"], "--format 'tars'"),
    (["--model", "anthropic:claude-sonnet-5-5"], "for a Claude model use --agent claude"),
    (["--model", "m", "--history-images", "0"], "--history-images 0"),
])
def test_bad_agent_options_are_one_line_naming_the_option(cli, args, message):
    from guilens.cli import app

    result = cli.invoke(app, ["run", "calc.yaml", "--agent", "openai", "--headless", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert len([ln for ln in result.output.splitlines() if ln.startswith("error:")]) == 1


def test_lessons_for_pass_at_k_from_a_text_format_server(fake_openai):
    from datetime import datetime

    from guilens.episode import Episode, Timings

    fake_openai.push(text("Lessons:\n- Press = before answering.\n- Read the display, not the history."))
    from guilens.agents.base import AgentContext

    a = agent("qwen")
    a.reset(AgentContext(task=None, instruction="Add 12 and 30."))
    episode = Episode(task="add", status="failure", timings=Timings(started_at=datetime(2026, 11, 21, 9)))
    assert a.lessons(episode, []) == ["Press = before answering.", "Read the display, not the history."]
    req = fake_openai.requests[0]
    assert "tools" not in req and "Write each lesson as a line starting with '- '." in req.system_text()
    assert a.lessons_usage.input_tokens > 0
