"""The LLM client against the loopback fake API, through the real anthropic SDK."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from PIL import Image

from guilens.config import ConfigError, load_settings
from guilens.llm import (
    LLMClient,
    LLMRequestError,
    LLMUnavailable,
    MissingAPIKey,
    image_block,
)
from tests import fakeapi
from tests.fakeapi import FAKE_KEY, Faults, error, text, tool_use, usage

fake_api = fakeapi.fake_api

ACT = {"name": "act", "description": "do it", "input_schema": {"type": "object", "properties": {}}}


def fast_client(model: str = "claude-sonnet-4-6", **kw: object) -> LLMClient:
    opts: dict[str, object] = {
        "timeout": 0.5,
        "retry_base_delay": 0.01,
        "retry_max_delay": 0.05,
        "max_retries": 8,
    }
    opts.update(kw)
    return LLMClient(model, settings=load_settings(), **opts)  # type: ignore[arg-type]


def ask(client: LLMClient, content: str = "hello", **kw: object):
    return client.create(system="You are terse.", messages=[{"role": "user", "content": content}], **kw)  # type: ignore[arg-type]


def test_thirty_percent_faults_still_succeed(fake_api):
    fake_api.faults = Faults(rate=0.3, hang_s=2.0, retry_after=0.01, seed=11)
    fake_api.handler = lambda req: tool_use("act", {"echo": req.last_user_text()})
    client = fast_client(timeout=0.4)
    started = time.monotonic()
    answers = [ask(client, f"call {i}", tools=[ACT]) for i in range(24)]
    elapsed = time.monotonic() - started
    assert [a.tool_calls[0].input["echo"] for a in answers] == [f"call {i}" for i in range(24)]
    outcomes = [r.outcome for r in fake_api.requests]
    assert outcomes.count("ok") == 24
    assert {"429", "500", "529", "hang"} <= set(outcomes), outcomes
    assert len(fake_api.requests) == client.calls == 24 + sum(a.retries for a in answers)
    assert elapsed < 20, f"retries took {elapsed:.1f} s"
    fake_api.assert_clean()


def test_retry_after_is_honoured_and_capped(fake_api):
    fake_api.faults = Faults(retry_after=0.4)
    fake_api.fail_next("429")
    fake_api.push(text("ok"))
    resp = ask(fast_client())
    assert resp.text == "ok" and resp.retries == 1
    first, second = fake_api.requests
    assert second.received_at - first.received_at >= 0.38

    fake_api.faults = Faults(retry_after=30)
    fake_api.fail_next("429")
    fake_api.push(text("ok again"))
    started = time.monotonic()
    assert ask(fast_client(max_retry_after=0.05), "again").text == "ok again"
    assert time.monotonic() - started < 3


def test_gives_up_after_bounded_retries(fake_api):
    fake_api.fail_next("500", "529", "500")
    with pytest.raises(LLMUnavailable) as info:
        ask(fast_client(max_retries=2))
    assert "gave up after 3 tries" in str(info.value)
    assert "HTTP 500" in str(info.value)
    assert len(fake_api.requests) == 3


def test_hang_longer_than_timeout_is_retried(fake_api):
    fake_api.faults = Faults(hang_s=3.0)
    fake_api.fail_next("hang")
    fake_api.push(text("after the hang"))
    started = time.monotonic()
    resp = ask(fast_client(timeout=0.3))
    assert resp.text == "after the hang" and resp.retries == 1
    assert time.monotonic() - started < 2.5
    assert [r.outcome for r in fake_api.requests] == ["hang", "ok"]


def test_timeouts_exhausted_say_so(fake_api):
    fake_api.faults = Faults(hang_s=3.0)
    fake_api.fail_next("hang", "hang")
    with pytest.raises(LLMUnavailable, match="no answer within 0.2 s"):
        ask(fast_client(timeout=0.2, max_retries=1))


def test_refusals_are_not_retried_and_never_show_the_key(fake_api):
    fake_api.push(error(400, "messages.0.content: bad block"))
    with pytest.raises(LLMRequestError) as info:
        ask(fast_client())
    assert info.value.status == 400 and "bad block" in str(info.value)
    assert len(fake_api.requests) == 1

    fake_api.push(error(401, "invalid x-api-key"))
    with pytest.raises(LLMRequestError) as info:
        ask(fast_client(), "again")
    assert "ANTHROPIC_API_KEY" in str(info.value)
    assert FAKE_KEY not in str(info.value)


def test_cache_hit_costs_nothing_and_makes_no_call(fake_api, tmp_path):
    fake_api.handler = lambda req: text(f"answer to {req.last_user_text()}", usage=usage(1000, 50))
    client = fast_client(cache=True, cache_dir=tmp_path / "cache")
    first = ask(client, "q1")
    assert not first.cached and first.usage.cost_usd > 0
    again = ask(client, "q1")
    assert again.cached and again.text == first.text
    assert again.usage.cost_usd == 0 and again.usage.input_tokens == 0
    assert len(fake_api.requests) == 1
    other = ask(client, "q2")
    assert not other.cached and len(fake_api.requests) == 2
    # a new client (a later process) reads the same disk cache
    later = fast_client(cache=True, cache_dir=tmp_path / "cache")
    assert ask(later, "q2").cached and len(fake_api.requests) == 2
    assert client.total.cost_usd == pytest.approx(first.usage.cost_usd + other.usage.cost_usd)
    files = list((tmp_path / "cache").rglob("*.json"))
    assert len(files) == 2
    assert all(FAKE_KEY not in f.read_text() for f in files)


def test_cache_is_on_for_the_judge_only_by_default(fake_api, tmp_path):
    fake_api.handler = lambda req: text("same")
    judge = fast_client(role="judge", cache_dir=tmp_path)
    agent = fast_client(role="agent", cache_dir=tmp_path)
    assert judge.cache is not None and agent.cache is None
    ask(agent)
    ask(agent)
    assert len(fake_api.requests) == 2
    ask(judge)
    ask(judge)
    assert len(fake_api.requests) == 3


def test_unreadable_cache_entry_is_a_miss(fake_api, tmp_path):
    fake_api.handler = lambda req: text("fresh")
    client = fast_client(cache=True, cache_dir=tmp_path)
    ask(client)
    (entry,) = list(tmp_path.rglob("*.json"))
    entry.write_text("{not json")
    assert not ask(client).cached
    assert ask(client).cached


def test_missing_key_fails_early_with_a_clear_message(monkeypatch, tmp_path):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    with pytest.raises(MissingAPIKey) as info:
        LLMClient("claude-sonnet-4-6", role="judge")
    message = str(info.value)
    assert message.startswith("ANTHROPIC_API_KEY is not set")
    assert "--rules-only" in message and "--agent" not in message and "\n" not in message
    assert isinstance(info.value, ConfigError)  # the CLI prints ConfigErrors as one line
    # each role's message names what its own command accepts: `run` has no --rules-only
    for role, names in (("agent", "--agent"), ("user", "--user oracle")):
        with pytest.raises(MissingAPIKey) as info:
            LLMClient("claude-sonnet-4-6", role=role)
        assert names in str(info.value) and "--rules-only" not in str(info.value)


def test_prompt_cache_breakpoint_on_the_unchanging_prefix(fake_api):
    fake_api.handler = lambda req: tool_use("act", {})
    client = fast_client()
    first = ask(client, "step 1", tools=[ACT], tool_choice={"type": "tool", "name": "act"})
    second = ask(client, "step 2", tools=[ACT], tool_choice={"type": "tool", "name": "act"})
    assert [r.cache_breakpoints() for r in fake_api.requests] == [["system[0]"], ["system[0]"]]
    assert first.usage.cache_write_tokens > 0 and first.usage.cache_read_tokens == 0
    assert second.usage.cache_read_tokens == first.usage.cache_write_tokens

    # tools but no system: the last tool carries it; caller-placed markers are left alone
    client.create(system="", messages=[{"role": "user", "content": "x"}], tools=[ACT, dict(ACT, name="b")])
    assert fake_api.requests[-1].cache_breakpoints() == ["tools[1]"]
    own = [
        {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "b"},
    ]
    client.create(system=own, messages=[{"role": "user", "content": "y"}])
    assert fake_api.requests[-1].cache_breakpoints() == ["system[0]"]
    client.create(system="s", messages=[{"role": "user", "content": "z"}], cache_prefix=False)
    assert fake_api.requests[-1].cache_breakpoints() == []


def test_newest_models_get_no_temperature_and_a_forced_tool(fake_api):
    fake_api.handler = lambda req: tool_use("act", {})
    old = fast_client("claude-sonnet-4-6")
    ask(old, tools=[ACT], tool_choice={"type": "tool", "name": "act"}, temperature=0.0)
    sent = fake_api.requests[-1]
    assert sent["temperature"] == 0.0 and sent["tool_choice"] == {"type": "tool", "name": "act"}

    new = fast_client("claude-sonnet-5-5")  # the default model: forced, as the API allows
    resp = ask(new, tools=[ACT], tool_choice={"type": "tool", "name": "act"}, temperature=0.0)
    sent = fake_api.requests[-1]
    assert "temperature" not in sent and sent["tool_choice"] == {"type": "tool", "name": "act"}
    assert resp.tool_calls[0].name == "act"
    # manual extended thinking is what the API refuses a forced choice with: then it is `auto`
    thinking = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    ask(new, tools=[ACT], tool_choice={"type": "tool", "name": "act"}, extra=thinking, max_tokens=2048)
    assert fake_api.requests[-1]["tool_choice"] == {"type": "auto"}
    ask(new, tools=[ACT], tool_choice={"type": "tool", "name": "act"}, extra={"thinking": {"type": "adaptive"}})
    assert fake_api.requests[-1]["tool_choice"] == {"type": "tool", "name": "act"}
    fake_api.assert_clean()


def test_usage_from_the_response_is_priced(fake_api):
    fake_api.push(
        text("priced", usage=usage(input_tokens=1000, output_tokens=500, cache_read=3000, cache_write=2000))
    )
    resp = ask(fast_client("claude-sonnet-4-6"))
    assert resp.usage.input_tokens == 1000 and resp.usage.output_tokens == 500
    assert resp.usage.cache_read_tokens == 3000 and resp.usage.cache_write_tokens == 2000
    assert resp.usage.cost_usd == pytest.approx((1000 * 3 + 500 * 15 + 2000 * 3.75 + 3000 * 0.30) / 1e6)
    assert resp.model == "claude-sonnet-4-6" and resp.stop_reason == "end_turn"
    assert resp.request_id and resp.latency_s >= 0


def test_base_url_from_anthropic_env(fake_api, monkeypatch):
    monkeypatch.delenv("GUILENS_API_BASE_URL")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.url)
    fake_api.push(text("via ANTHROPIC_BASE_URL"))
    assert ask(fast_client()).text == "via ANTHROPIC_BASE_URL"


def test_images_reach_the_api_scaled(fake_api):
    fake_api.push(text("seen"))
    screen = Image.new("RGB", (1080, 2400), (250, 250, 250))
    client = fast_client()
    client.create(
        system="look",
        messages=[
            {"role": "user", "content": [{"type": "text", "text": "what is this"}, image_block(screen)]}
        ],
    )
    (img,) = fake_api.requests[0].images()
    assert img.size == (706, 1568) and img.format == "PNG"


def test_image_block_sizes_and_formats():
    small = image_block(Image.new("RGBA", (300, 200)))
    assert small["source"]["media_type"] == "image/png"
    wide = image_block(Image.new("RGB", (4000, 1000)), max_side=1000, fmt="jpeg")
    assert wide["source"]["media_type"] == "image/jpeg"
    import base64
    import io

    decoded = Image.open(io.BytesIO(base64.b64decode(wide["source"]["data"])))
    assert decoded.size == (1000, 250)


def test_concurrent_calls_share_one_client(fake_api, tmp_path):
    fake_api.faults = Faults(rate=0.2, kinds=("429", "500"), seed=5)
    fake_api.handler = lambda req: text(req.last_user_text().upper())
    client = fast_client(role="judge", cache_dir=tmp_path)
    results: dict[int, str] = {}

    def work(i: int) -> None:
        results[i] = ask(client, f"item {i}").text

    threads = [threading.Thread(target=work, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    assert results == {i: f"ITEM {i}" for i in range(12)}
    assert len(list(Path(tmp_path).rglob("*.json"))) == 12
