"""The OpenAI chat-completions provider: translation both ways, the real `openai` SDK against the loopback
server, faults retried and recorded, keys, specs and base URLs."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from guilens.config import ConfigError, load_settings
from guilens.llm import LLMRequestError, LLMUnavailable, MissingAPIKey, image_block, make_client, parse_model
from guilens.llm.providers.openai_translate import from_openai, to_openai
from guilens.llm.spec import is_local
from tests import fakeopenai
from tests.fakeopenai import ALL_FAULTS, FAKE_OPENAI_KEY, FakeOpenAI, Faults, raw_args, text, tool_call

fake_openai = fakeopenai.fake_openai

ACT = {"name": "act", "description": "Do one action.",
       "input_schema": {"type": "object", "properties": {"action": {"type": "object"}}, "required": ["action"]}}


def client(**kw: object):
    opts: dict = {"settings": load_settings(), "max_retries": 6, "retry_base_delay": 0.01, "retry_max_delay": 0.05,
                  "timeout": 2}
    opts.update(kw)
    return make_client("openai:qwen2.5-vl-7b", **opts)


def screenshot(color: str = "white", size: tuple[int, int] = (90, 200)) -> dict:
    block = image_block(Image.new("RGB", size, color))
    block["_ref"] = "screens/0003.png"
    return block


# --- translation, as pure functions ---------------------------------------------------------------


def test_a_canonical_request_becomes_a_chat_completion_body() -> None:
    img = screenshot()
    params = {
        "system": [{"type": "text", "text": "You act.", "cache_control": {"type": "ephemeral"}},
                   {"type": "text", "text": "# Task\nSave it."}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Step 1"}, img]},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm"},
                                              {"type": "text", "text": "Tapping."},
                                              {"type": "tool_use", "id": "c1", "name": "act", "input": {"a": 1}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "is_error": True,
                                          "content": "Invalid: no x"}, {"type": "text", "text": "Again."}]},
        ],
        "tools": [ACT], "tool_choice": {"type": "tool", "name": "act"}, "max_tokens": 300, "temperature": 0.0,
    }
    body = to_openai(params, "qwen")
    msgs = body["messages"]
    assert msgs[0] == {"role": "system", "content": "You act.\n\n# Task\nSave it."}
    assert msgs[1]["content"][0] == {"type": "text", "text": "Step 1"}
    url = msgs[1]["content"][1]["image_url"]["url"]
    assert url == f"data:image/png;base64,{img['source']['data']}"
    assert msgs[2] == {"role": "assistant", "content": "Tapping.", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "act", "arguments": '{"a": 1}'}}]}
    assert msgs[3] == {"role": "tool", "tool_call_id": "c1", "content": "Invalid: no x"}
    assert msgs[4] == {"role": "user", "content": [{"type": "text", "text": "Again."}]}
    assert body["tools"] == [{"type": "function", "function": {"name": "act", "description": "Do one action.",
                                                               "parameters": ACT["input_schema"]}}]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "act"}}
    assert body["max_tokens"] == 300 and body["temperature"] == 0.0
    assert "_ref" not in json.dumps(body) and "cache_control" not in json.dumps(body)
    assert to_openai({**params, "tool_choice": {"type": "any"}}, "m")["tool_choice"] == "required"


def test_a_chat_completion_becomes_canonical_blocks() -> None:
    reply = {"id": "x", "model": "qwen", "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "Thought: tap it", "tool_calls": [
            {"id": "c9", "type": "function", "function": {"name": "act", "arguments": '{"action": {"type": "home"}}'}},
            {"id": "c10", "type": "function", "function": {"name": "act", "arguments": '{"action": '}}]}}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 30, "prompt_tokens_details": {"cached_tokens": 100}}}
    data = from_openai(reply)
    assert data["content"][0] == {"type": "text", "text": "Thought: tap it"}
    assert data["content"][1] == {"type": "tool_use", "id": "c9", "name": "act", "input": {"action": {"type": "home"}}}
    bad = data["content"][2]
    assert bad["input"] == {} and bad["_arguments"] == '{"action": ' and "not valid JSON" in bad["_error"]
    assert data["stop_reason"] == "tool_use"
    assert data["usage"] == {"input_tokens": 20, "output_tokens": 30, "cache_read_input_tokens": 100}
    assert from_openai({"choices": [{"message": {"content": "hi"}, "finish_reason": "length"}]})["stop_reason"] == \
        "max_tokens"


# --- against the loopback server, with the real SDK ------------------------------------------------


def test_forced_tool_call_images_and_a_repair_round_trip(fake_openai) -> None:
    fake_openai.push(raw_args("act", "{not json"), tool_call("act", {"action": {"type": "tap", "x": 5, "y": 6}}))
    c = client()
    messages = [{"role": "user", "content": [{"type": "text", "text": "What now?"}, screenshot()]}]
    first = c.create(system="You act.", messages=messages, tools=[ACT], tool_choice={"type": "tool", "name": "act"})
    (call,) = first.tool_calls
    assert call.input == {} and call.error and "not valid JSON" in call.error  # a reply to repair, not a crash
    sent = fake_openai.requests[0]
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "act"}}
    assert sent.tool_names() == ["act"] and sent.image_count() == 1 and sent.images()[0].size == (90, 200)
    # the repair goes back as the model's own reply (its arguments as it wrote them) and a tool message
    messages += [{"role": "assistant", "content": first.content},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "is_error": True,
                                               "content": f"Invalid: {call.error}"}]}]
    second = c.create(system="You act.", messages=messages, tools=[ACT], tool_choice={"type": "tool", "name": "act"},
                      repair=True)
    assert second.tool_calls[0].input == {"action": {"type": "tap", "x": 5, "y": 6}}
    again = fake_openai.requests[1]["messages"]
    assert again[2]["tool_calls"][0]["function"]["arguments"] == "{not json"
    assert again[3]["role"] == "tool" and again[3]["tool_call_id"] == call.id
    assert second.call is not None and second.call.repair and not first.call.repair  # type: ignore[union-attr]
    fake_openai.assert_clean()


def test_plain_text_replies_and_usage(fake_openai) -> None:
    fake_openai.push(text("Just text.", usage=fakeopenai.usage(prompt_tokens=1000, completion_tokens=50)))
    resp = client().create(system="s", messages=[{"role": "user", "content": "hello"}])
    assert resp.text == "Just text." and resp.tool_calls == [] and resp.stop_reason == "end_turn"
    assert resp.usage.input_tokens == 1000 and resp.usage.output_tokens == 50
    assert resp.usage.cost_usd == 0.0 and resp.call is not None and not resp.call.cost_known  # price unknown


def test_the_prices_setting_prices_a_local_model(fake_openai, tmp_path: Path, monkeypatch) -> None:
    config = tmp_path / "prices.toml"
    config.write_text('[prices]\n"openai:qwen2.5-vl-7b" = {input = 0.5, output = 2.0}\n', encoding="utf-8")
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(config))
    fake_openai.push(text("ok", usage=fakeopenai.usage(prompt_tokens=2_000_000, completion_tokens=1_000_000)))
    resp = client(settings=load_settings()).create(system="s", messages=[{"role": "user", "content": "x"}])
    assert resp.usage.cost_usd == pytest.approx(2 * 0.5 + 1 * 2.0)
    assert resp.call is not None and resp.call.cost_known


def test_thirty_percent_faults_of_every_kind_are_retried_and_each_is_recorded(fake_openai) -> None:
    fake_openai.faults = Faults(rate=0.3, kinds=ALL_FAULTS, seed=5, hang_s=1.5)
    fake_openai.handler = lambda req: tool_call("act", {"echo": req.last_user_text()})
    c = client(timeout=0.5, max_retries=8)
    recorded: list[str] = []
    for i in range(40):
        messages = [{"role": "user", "content": f"step {i}"}]
        resp = c.create(system="s", messages=messages, tools=[ACT], tool_choice={"type": "tool", "name": "act"})
        recorded += [r.cause for r in resp.usage.retries]
        assert resp.call is not None and [r.cause for r in resp.call.retries] == [r.cause for r in resp.usage.retries]
        while resp.tool_calls[0].error:  # what an agent does with unreadable arguments: a repair turn
            recorded.append(f"repair: {resp.tool_calls[0].error}")
            messages = [*messages, {"role": "assistant", "content": resp.content},
                        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": resp.tool_calls[0].id,
                                                      "is_error": True, "content": resp.tool_calls[0].error}]}]
            resp = c.create(system="s", messages=messages, tools=[ACT], tool_choice={"type": "tool", "name": "act"},
                            repair=True)
            recorded += [r.cause for r in resp.usage.retries]
        assert resp.tool_calls[0].input == {"echo": f"step {i}"}
    injected = [kind for _, kind in fake_openai.injected]
    assert len(injected) >= 12 and set(injected) == set(ALL_FAULTS), injected
    causes = {"429": r"^HTTP 429 ", "500": r"^HTTP 500 ", "503": r"^HTTP 503 ", "hang": r"^no answer within",
              "truncated": r"^HTTP 200 but the body was cut short", "invalid": r"^HTTP 200 but the body is not",
              "badargs": r"^repair: the act call's arguments are not valid JSON"}
    import re

    assert len(recorded) == len(injected)  # every fault on the record, once, in order
    for kind, cause in zip(injected, recorded, strict=True):
        assert re.search(causes[kind], cause), (kind, cause)
    fake_openai.assert_clean()


def test_a_server_that_stays_down_is_one_error_with_every_try() -> None:
    with FakeOpenAI(faults=Faults(rate=1.0, kinds=("503",)), key=None) as api:
        c = make_client("openai:m", base_url=api.url, settings=load_settings(), max_retries=2,
                        retry_base_delay=0.01, timeout=1)
        with pytest.raises(LLMUnavailable) as info:
            c.create(system="s", messages=[{"role": "user", "content": "x"}])
    assert "gave up after 3 tries" in str(info.value) and len(info.value.retries) == 3
    assert "OpenAI-compatible server at http://127.0.0.1" in str(info.value) and "\n" not in str(info.value)


# --- keys, specs and base URLs --------------------------------------------------------------------


def test_a_local_server_needs_no_key_and_a_remote_one_does(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    with FakeOpenAI(key=None) as api:  # a local vLLM started without --api-key
        api.push(text("fine"))
        assert make_client("openai:m", base_url=api.url).create(system="s", messages=[
            {"role": "user", "content": "x"}]).text == "fine"
    # a local server that wants a key: the 401 says to set one
    with FakeOpenAI() as api, pytest.raises(LLMRequestError, match="set OPENAI_API_KEY"):
        make_client("openai:m", base_url=api.url, max_retries=0).create(system="s", messages=[
            {"role": "user", "content": "x"}])
    with pytest.raises(MissingAPIKey) as info:
        make_client("openai:gpt-4o", role="judge")
    assert "OPENAI_API_KEY is not set" in str(info.value) and "api.openai.com" in str(info.value)
    assert "--rules-only" in str(info.value) and "\n" not in str(info.value)
    assert is_local("http://localhost:8000/v1") and is_local("http://10.0.0.7:8000/v1")
    assert is_local("http://gpu-box:8000/v1") and not is_local("https://api.example.com/v1")


def test_specs_and_base_urls_are_checked_in_one_line(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_OPENAI_KEY)
    assert parse_model("claude-sonnet-5-5").provider == "anthropic"
    assert str(parse_model("openai:qwen2.5-vl:7b")) == "openai:qwen2.5-vl:7b"
    assert parse_model("us.anthropic.claude-sonnet-4-5-v1:0").provider == "anthropic"
    with pytest.raises(ConfigError, match=r"^--user-model 'mistral:7b': unknown provider 'mistral'"):
        make_client("mistral:7b", option="--user-model")
    with pytest.raises(ConfigError, match=r"^--base-url 'ftp://x': give an http"):
        make_client("openai:m", base_url="ftp://x")
    with pytest.raises(ConfigError, match="no tool calling"):
        make_client("openai:m", base_url="http://127.0.0.1:9/v1", tool_calls=False).create(
            system="s", messages=[{"role": "user", "content": "x"}], tools=[ACT])


def test_images_keep_their_bytes_on_the_wire(fake_openai) -> None:
    fake_openai.push(text("ok"))
    img = screenshot("red", (120, 260))
    client().create(system="s", messages=[{"role": "user", "content": [img]}])
    sent = fake_openai.requests[0].image_urls()[0]
    assert base64.b64decode(sent.split(",", 1)[1]) == base64.b64decode(img["source"]["data"])
    assert Image.open(io.BytesIO(base64.b64decode(sent.split(",", 1)[1]))).getpixel((0, 0)) == (255, 0, 0)
