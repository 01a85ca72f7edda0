"""The fake Messages API itself: it must refuse what the real one refuses, or tests prove nothing."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from guilens.config import load_settings
from guilens.llm import LLMClient, LLMRequestError
from tests import fakeapi
from tests.fakeapi import FakeAnthropic, text, tool_use

fake_api = fakeapi.fake_api


def client(model: str = "claude-sonnet-4-6") -> LLMClient:
    return LLMClient(model, settings=load_settings(), timeout=2, max_retries=0)


def post(api: FakeAnthropic, body: dict, headers: dict[str, str] | None = None, path: str = "/v1/messages"):
    req = urllib.request.Request(
        api.url + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", **(headers or {})},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


@pytest.mark.parametrize(
    ("messages", "problem"),
    [
        ([], "at least one message"),
        ([{"role": "assistant", "content": "hi"}], "first message"),
        ([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}], "alternate"),
        ([{"role": "user", "content": [{"type": "video", "data": "x"}]}], "unknown content block type"),
        ([{"role": "user", "content": [{"type": "text", "text": ""}]}], "non-empty"),
        (
            [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": "!!"},
                        }
                    ],
                }
            ],
            "not a valid base64 image",
        ),
    ],
)
def test_malformed_requests_are_refused_like_the_real_api(fake_api, messages, problem):
    fake_api.push(text("never sent"))
    with pytest.raises(LLMRequestError, match=problem) as info:
        client().create(system="s", messages=messages)
    assert info.value.status == 400
    assert len(fake_api.queue) == 1  # the scripted reply is still there


def test_model_rules_are_enforced():
    with FakeAnthropic() as api:
        body = {"model": "claude-opus-5-5", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}]}
        status, reply = post(api, {**body, "temperature": 0.0}, {"x-api-key": "k"})
        assert status == 400 and "temperature" in reply["error"]["message"]
        tools = [{"name": "t", "input_schema": {"type": "object"}}]
        thinking = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
        status, reply = post(
            api, {**body, "tools": tools, "tool_choice": {"type": "any"}, **thinking}, {"x-api-key": "k"}
        )
        assert status == 400 and "tool_choice forces tool use" in reply["error"]["message"]
        api.push(tool_use("t", {}))  # without manual thinking a forced choice is served
        status, reply = post(api, {**body, "tools": tools, "tool_choice": {"type": "any"}}, {"x-api-key": "k"})
        assert status == 200 and reply["content"][0]["type"] == "tool_use"


def test_no_key_wrong_path_and_unscripted_requests():
    with FakeAnthropic() as api:
        body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}]}
        assert post(api, body)[0] == 401
        assert post(api, body, {"authorization": "Bearer k"}, path="/v1/complete")[0] == 404
        status, reply = post(api, body, {"authorization": "Bearer k"})
        assert status == 400 and "no scripted reply" in reply["error"]["message"]
        assert api.problems and "no scripted reply" in api.problems[0]
        with pytest.raises(AssertionError, match="no scripted reply"):
            api.assert_clean()
        assert all(r.headers.get("authorization") in (None, "<redacted>") for r in api.requests)


def test_handler_crash_is_reported(fake_api):
    fake_api.handler = lambda req: 1 / 0
    with pytest.raises(LLMRequestError, match="ZeroDivisionError"):
        client().create(system="s", messages=[{"role": "user", "content": "x"}])
    assert "ZeroDivisionError" in fake_api.problems[0]


def test_estimated_usage_emulates_the_prompt_cache(fake_api):
    fake_api.handler = lambda req: tool_use("act", {"n": len(req["messages"])})
    c = client()
    big_system = "rules " * 2000
    a = c.create(system=big_system, messages=[{"role": "user", "content": "first"}])
    b = c.create(system=big_system, messages=[{"role": "user", "content": "second"}])
    d = c.create(system=big_system + "changed", messages=[{"role": "user", "content": "third"}])
    assert a.usage.cache_write_tokens > 2000 and a.usage.cache_read_tokens == 0
    assert b.usage.cache_read_tokens == a.usage.cache_write_tokens and b.usage.cache_write_tokens == 0
    assert d.usage.cache_write_tokens > 0 and d.usage.cache_read_tokens == 0
    assert b.usage.cost_usd < a.usage.cost_usd
    assert a.tool_calls[0].input == {"n": 1}


def test_request_helpers(fake_api):
    fake_api.push(text("ok"))
    c = client()
    c.create(
        system=[{"type": "text", "text": "sys one"}, {"type": "text", "text": "sys two"}],
        messages=[
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "act", "input": {}}]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "bad action"}],
            },
        ],
        tools=[{"name": "act", "input_schema": {"type": "object"}}],
    )
    req = fake_api.requests[0]
    assert req.system_text() == "sys one\nsys two"
    assert "bad action" in req.text() and "first" in req.text()
    assert req.last_user_text() == "bad action"
    assert req.tool_names() == ["act"]
    assert req.cache_breakpoints() == ["system[1]"]
