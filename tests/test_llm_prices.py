"""Tokens to dollars, model ids to price rows, model quirks."""

from __future__ import annotations

import pytest

from guilens.episode import Usage
from guilens.llm import PRICES, cost_usd, model_caps, model_key, to_usage


@pytest.mark.parametrize(
    ("model", "key"),
    [
        ("claude-sonnet-4-5", "claude-sonnet-4-5"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("claude-opus-4-20250514", "claude-opus-4"),
        ("claude-opus-4-1-20250805", "claude-opus-4-1"),
        ("us.anthropic.claude-sonnet-4-5-v1:0", "claude-sonnet-4-5"),
        ("claude-3-5-haiku-latest", "claude-haiku-3-5"),
        ("claude-3-haiku-20240307", "claude-haiku-3"),
        ("claude-haiku-5-5[1m]", "claude-haiku-5-5"),
        ("claude-fable-5-2", "claude-fable-5-2"),
        ("gpt-4o", None),
    ],
)
def test_model_key(model, key):
    assert model_key(model) == key


def test_every_current_sdk_model_has_a_price():
    from typing import get_args

    from anthropic.resources.messages.messages import DEPRECATED_MODELS
    from anthropic.types.model_param import ModelParam

    literal = next(a for a in get_args(ModelParam) if get_args(a))
    current = [m for m in get_args(literal) if m not in DEPRECATED_MODELS]
    missing = [m for m in current if model_key(m) not in PRICES]
    assert not missing, f"no price for {missing}"


def test_cost_of_each_token_kind():
    u = {"input_tokens": 1_000_000}
    assert cost_usd("claude-sonnet-4-5", u) == 3.0
    assert cost_usd("claude-sonnet-4-5", {"output_tokens": 1_000_000}) == 15.0
    assert cost_usd("claude-sonnet-4-5", {"cache_creation_input_tokens": 1_000_000}) == 3.75
    assert cost_usd("claude-sonnet-4-5", {"cache_read_input_tokens": 1_000_000}) == 0.30
    assert cost_usd("claude-opus-4-1", {"input_tokens": 2000, "output_tokens": 1000}) == pytest.approx(0.105)
    assert cost_usd("claude-haiku-4-5", {"input_tokens": 1000, "output_tokens": 1000}) == pytest.approx(0.006)


def test_one_hour_cache_writes_cost_twice_the_input_price():
    u = {
        "cache_creation_input_tokens": 1_000_000,
        "cache_creation": {"ephemeral_5m_input_tokens": 400_000, "ephemeral_1h_input_tokens": 600_000},
    }
    assert cost_usd("claude-sonnet-4-5", u) == pytest.approx(0.4 * 3.75 + 0.6 * 6.0)


def test_haiku_5_5_long_prompts_cost_more_on_every_token():
    short = {"input_tokens": 90_000, "output_tokens": 1000}
    long = {"input_tokens": 90_000, "cache_read_input_tokens": 20_000, "output_tokens": 1000}
    assert cost_usd("claude-haiku-5-5", short) == pytest.approx((90_000 * 0.10 + 1000 * 0.50) / 1e6)
    assert cost_usd("claude-haiku-5-5", long) == pytest.approx(
        (90_000 * 0.50 + 20_000 * 0.05 + 1000 * 2.50) / 1e6
    )


def test_guilens_usage_prices_the_same_as_the_sdk_dict():
    sdk = {
        "input_tokens": 10,
        "output_tokens": 20,
        "cache_read_input_tokens": 30,
        "cache_creation_input_tokens": 40,
    }
    ours = Usage(input_tokens=10, output_tokens=20, cache_read_tokens=30, cache_write_tokens=40)
    assert cost_usd("claude-opus-4-5", ours) == cost_usd("claude-opus-4-5", sdk) > 0
    converted = to_usage("claude-opus-4-5", sdk)
    assert (converted.cache_read_tokens, converted.cache_write_tokens) == (30, 40)
    assert converted.cost_usd == cost_usd("claude-opus-4-5", sdk)


def test_unknown_model_costs_nothing_and_warns_once(caplog):
    with caplog.at_level("WARNING"):
        assert cost_usd("my-local-proxy", {"input_tokens": 10**6}) == 0.0
        assert cost_usd("my-local-proxy", {"input_tokens": 10**6}) == 0.0
    assert sum("my-local-proxy" in r.message for r in caplog.records) == 1


def test_model_caps():
    assert model_caps("claude-sonnet-4-5").sampling and model_caps("claude-sonnet-4-5").forced_tool_choice
    assert model_caps("claude-opus-4-6").sampling
    assert not model_caps("claude-opus-4-7").sampling and model_caps("claude-opus-4-7").forced_tool_choice
    assert not model_caps("claude-sonnet-5").sampling and model_caps("claude-sonnet-5").forced_tool_choice
    # Forced tool choice is refused only with manual extended thinking (a request property), never by model.
    assert model_caps("claude-sonnet-5-5").forced_tool_choice
    assert model_caps("claude-fable-5-1").forced_tool_choice
    assert model_caps("some-proxy").sampling
