"""Every model call of a step is recorded: the request as the server received it (images as references to
the step's screen), the raw reply, retries and repairs, tokens and cost; the agent's on the step, the llm
user's on the step's `ask`; shown in the TUI (run screen live, and replay); no secret anywhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from guilens.agents.base import AgentContext, AgentStep, StepInput
from guilens.episode import EpisodeReader
from guilens.llm import image_block, make_client
from tests import fakeapi, fakeopenai
from tests.fakeopenai import FAKE_OPENAI_KEY, Request, text, tool_call
from tests.runner_helpers import run, write_scenarios

fake_openai = fakeopenai.fake_openai
fake_api = fakeapi.fake_api

SYSTEM = "You operate a phone. [Brackets] and {braces} and “quotes” — read as written.\nCall act once."
ACT = {"name": "act", "description": "One action.",
       "input_schema": {"type": "object", "properties": {"action": {"type": "object"}}, "required": ["action"]}}


class RecordingAgent:
    """A minimal model-driven agent: one forced `act` call per step, its screen referenced, its calls kept."""

    name = "recorder"

    def __init__(self, settings: Any, *, model: str | None = None) -> None:
        self.model = model
        self.client = make_client(model or "openai:qwen", role="agent", settings=settings, retry_base_delay=0.01,
                                  retry_max_delay=0.05)

    def reset(self, context: AgentContext) -> None:
        self.context = context

    def step(self, inp: StepInput) -> AgentStep:
        img = image_block(inp.observation.screenshot, 800)
        img["_ref"] = f"screens/{inp.index:04d}.png"
        said = f"\nThe user answered: {inp.user_answer}" if inp.user_answer else ""
        content = [{"type": "text", "text": f"Task: {self.context.instruction}\nStep {inp.index + 1}.{said}"}, img]
        resp = self.client.create(system=SYSTEM, messages=[{"role": "user", "content": content}], tools=[ACT],
                                  tool_choice={"type": "tool", "name": "act"}, max_tokens=200)
        action = resp.tool_calls[0].input["action"]
        return AgentStep(action=action, thought=resp.text, usage=resp.usage,
                         llm_calls=[resp.call] if resp.call else [])


def model(req: Request) -> dict[str, Any]:
    """The agent asks once, then answers with what the user said; the llm user (no tools) says 42 dollars."""
    if not req.get("tools"):
        return text("42 dollars")
    said = req.last_user_text()
    if "The user answered:" in said:
        return tool_call("act", {"action": {"type": "answer", "text": said.rsplit(": ", 1)[1]}}, content="Done.")
    return tool_call("act", {"action": {"type": "ask_user", "question": "How much is the budget?"}},
                     content="I should ask.")


def unredacted_equal(recorded: Any, received: Any, screens: list[str], path: str = "") -> None:
    """`recorded` is `received` exactly, except that each image's bytes are a reference to a step's screen."""
    if isinstance(received, dict):
        assert isinstance(recorded, dict) and recorded.keys() == received.keys(), path
        for k in received:
            unredacted_equal(recorded[k], received[k], screens, f"{path}.{k}")
    elif isinstance(received, list):
        assert isinstance(recorded, list) and len(recorded) == len(received), path
        for i, (a, b) in enumerate(zip(recorded, received, strict=True)):
            unredacted_equal(a, b, screens, f"{path}[{i}]")
    elif isinstance(received, str) and received.startswith("data:image/"):
        import base64

        data = base64.b64decode(received.split(",", 1)[1])
        assert recorded["ref"] in screens and recorded["bytes"] == len(data), path
        assert recorded["width"] > 0 and recorded["media_type"] == "image/png"
    else:
        assert recorded == received and type(recorded) is type(received), path


@pytest.fixture
def recorded_run(tmp_path: Path, fake_openai, monkeypatch) -> tuple[Path, Any]:
    monkeypatch.setenv("GUILENS_USER_MODEL", "openai:qwen-user")
    fake_openai.handler = model
    tasks, _ = write_scenarios(tmp_path)
    result = run(f"{tasks}:budget", tmp_path / "runs", agent="tests.test_llm_calls:RecordingAgent",
                 model="openai:qwen-agent", user="llm", level="L1")
    fake_openai.assert_clean()
    return result.run_dir / "budget" / "attempt-1", fake_openai


def test_the_step_records_what_the_server_received_byte_for_byte_and_no_secret(recorded_run) -> None:
    attempt, api = recorded_run
    reader = EpisodeReader(attempt)
    assert reader.episode.final_answer == "42 dollars" and reader.episode.error is None
    steps = reader.steps
    agent_reqs = [r for r in api.requests if r.get("tools")]
    user_reqs = [r for r in api.requests if not r.get("tools")]
    assert [len(s.llm_calls) for s in steps] == [1, 1] and len(user_reqs) == 1
    screens = [s.screen for s in steps if s.screen]
    for step, req in zip(steps, agent_reqs, strict=True):
        (call,) = step.llm_calls
        unredacted_equal(call.request, json.loads(req.raw), screens)  # the body as received, bytes for images
        assert call.request["messages"][1]["content"][1]["image_url"]["url"]["ref"] == step.screen
        assert call.role == "agent" and call.provider == "openai" and call.model == "qwen-agent"
        assert call.status == 200 and call.duration_s > 0 and call.cost_known is False
        reply = json.loads(call.reply or "")
        assert reply["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "act"
        assert call.usage.input_tokens == reply["usage"]["prompt_tokens"] and call.usage.output_tokens > 0
        assert call.request["tool_choice"] == {"type": "function", "function": {"name": "act"}}
    # the text the server received is in the record, character for character
    received_system = json.loads(agent_reqs[0].raw)["messages"][0]["content"]
    assert received_system == SYSTEM == steps[0].llm_calls[0].request["messages"][0]["content"]
    # the llm user's call is on the step where it answered
    ask = steps[0].ask
    assert ask is not None and ask.answer == "42 dollars" and ask.answered_by == "llm"
    (ucall,) = ask.llm_calls
    assert ucall.role == "user" and ucall.model == "qwen-user"
    unredacted_equal(ucall.request, json.loads(user_reqs[0].raw), screens)
    # no key, no auth header, no image bytes anywhere in the episode
    for f in attempt.rglob("*"):
        if f.is_file() and f.suffix in (".json", ".jsonl"):
            body = f.read_text(encoding="utf-8")
            assert FAKE_OPENAI_KEY not in body and "Bearer" not in body and "base64," not in body, f


def test_anthropic_calls_are_recorded_the_same_way(fake_api) -> None:
    fake_api.push(fakeapi.tool_use("act", {"action": {"type": "home"}}))
    from PIL import Image

    from guilens.config import load_settings

    img = image_block(Image.new("RGB", (100, 220), "blue"))
    img["_ref"] = "screens/0007.png"
    c = make_client("anthropic:claude-sonnet-4-6", settings=load_settings())
    resp = c.create(system=SYSTEM, messages=[{"role": "user", "content": [{"type": "text", "text": "go"}, img]}],
                    tools=[ACT], tool_choice={"type": "tool", "name": "act"})
    call = resp.call
    assert call is not None and call.provider == "anthropic" and call.cost_known and call.usage.cost_usd > 0
    received = dict(fake_api.requests[0])
    ref = call.request["messages"][0]["content"][1]["source"]["data"]
    assert ref["ref"] == "screens/0007.png" and (ref["width"], ref["height"]) == (100, 220)
    assert "_ref" not in json.dumps(received)  # the guilens-only key never went out
    received["messages"][0]["content"][1]["source"]["data"] = ref
    assert call.request == received
    assert json.loads(call.reply or "")["content"][0]["name"] == "act"
    assert fakeapi.FAKE_KEY not in call.model_dump_json()


async def test_the_replay_shows_the_calls_of_the_step_in_view(recorded_run) -> None:
    from textual.widgets import Static

    from guilens.screens.app import GuilensApp
    from guilens.screens.llm_calls import LLMCallsScreen
    from guilens.screens.replay_screen import ReplayScreen

    attempt, api = recorded_run
    received = [json.loads(r.raw) for r in api.requests]
    app = GuilensApp(lambda: ReplayScreen(attempt))
    async with app.run_test(size=(200, 60)) as pilot:
        await pilot.pause()
        shown_keys = {k: b.binding.description for k, b in app.screen.active_bindings.items() if b.binding.show}
        assert shown_keys.get("l") == "LLM calls"  # in the key bar (and so in the palette's key list)
        await pilot.press("l")
        await pilot.pause()
        view = app.screen
        assert isinstance(view, LLMCallsScreen)
        shown = view.text
        body = view.query_one("#llm-calls-body", Static)
        assert SYSTEM in str(body.render())  # on screen, as written: brackets not taken for markup
        assert SYSTEM in shown and received[0]["messages"][1]["content"][0]["text"] in shown
        assert "[image screens/0000.png, " in shown and "bytes, image/png]" in shown
        assert "How much is the budget?" in shown  # the raw reply
        assert "42 dollars" in shown and "Call 2: user · openai:qwen-user" in shown  # the user's call
        assert "price unknown" in shown and FAKE_OPENAI_KEY not in shown
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)


async def test_the_run_screen_shows_the_last_steps_calls_live(tmp_path: Path, fake_openai, monkeypatch) -> None:
    from guilens.run.plan import plan_run
    from guilens.screens.app import GuilensApp
    from guilens.screens.launch import make_run_screen
    from guilens.screens.llm_calls import LLMCallsScreen
    from guilens.screens.modals import AskUserScreen
    from guilens.screens.run_screen import RunScreen

    fake_openai.handler = model
    tasks, _ = write_scenarios(tmp_path)
    plan = plan_run(f"{tasks}:budget", agent="tests.test_llm_calls:RecordingAgent", model="openai:qwen-agent",
                    devices=["sim"], user="oracle", level="L1", out=tmp_path / "runs")
    app = GuilensApp(lambda: make_run_screen(plan))
    async with app.run_test(size=(200, 60)) as pilot:
        screen = next(s for s in app.screen_stack if isinstance(s, RunScreen))
        for _ in range(600):
            if isinstance(app.screen, AskUserScreen):
                await pilot.press("enter")
            if screen.pane.steps:
                break
            await pilot.pause(0.05)
        assert screen.pane.steps, "no step arrived"
        while isinstance(app.screen, AskUserScreen):
            await pilot.press("enter")
            await pilot.pause(0.05)
        await pilot.press("l")
        for _ in range(40):
            if isinstance(app.screen, LLMCallsScreen):
                break
            await pilot.pause(0.05)
        view = app.screen
        assert isinstance(view, LLMCallsScreen)
        agent_requests = [json.loads(r.raw) for r in fake_openai.requests if r.get("tools")]
        sent = agent_requests[view.step.index]  # the last step recorded when the key was pressed
        assert sent["messages"][1]["content"][0]["text"] in view.text and SYSTEM in view.text
        assert "→ tool call act" in view.text or '"tool_calls"' in view.text
        await pilot.press("escape")
        for _ in range(600):
            if isinstance(app.screen, AskUserScreen):
                await pilot.press("enter")
            if screen.finished:
                break
            await pilot.pause(0.05)


def test_faults_before_a_reply_are_on_that_calls_record(tmp_path: Path, fake_openai, monkeypatch) -> None:
    monkeypatch.setenv("GUILENS_USER_MODEL", "openai:qwen-user")
    monkeypatch.setenv("GUILENS_REQUEST_TIMEOUT_S", "0.5")
    monkeypatch.setenv("GUILENS_MAX_RETRIES", "6")
    fake_openai.faults = fakeopenai.Faults(hang_s=1.5)
    fake_openai.handler = model
    fake_openai.fail_next("429", "truncated", "hang", "invalid", "503")
    tasks, _ = write_scenarios(tmp_path)
    result = run(f"{tasks}:budget", tmp_path / "runs", agent="tests.test_llm_calls:RecordingAgent",
                 model="openai:qwen-agent", user="llm", level="L1")
    steps = EpisodeReader(result.run_dir / "budget" / "attempt-1").steps
    causes = [r.cause for r in steps[0].llm_calls[0].retries]
    assert [c.split(" (")[0] for c in causes] == [
        "HTTP 429 rate_limit_exceeded: Rate limit reached for requests",
        "HTTP 200 but the body was cut short or is not JSON", "no answer within 0.5 s",
        "HTTP 200 but the body is not JSON: '<html><body>502 Bad Gateway</body></html>'",
        "HTTP 503 service_unavailable: The server had an error while processing your request"]
    assert [r.cause for r in steps[0].usage.retries] == causes  # the step's usage counts the same tries
    assert steps[0].llm_calls[0].duration_s >= 0.5  # the hang is in the call's time
    assert all(r.role == "agent" for r in steps[0].llm_calls[0].retries)
