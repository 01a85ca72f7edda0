"""Prices and Claude model quirks: tokens to dollars, and what each model accepts.

One table for the agent, the llm user and the judge, so the same tokens always
cost the same. Model ids are reduced to a family-version key first, so dated
ids (`claude-sonnet-4-5-20250929`), cloud ids (`us.anthropic.claude-...-v1:0`)
and old-style ids (`claude-3-5-haiku-latest`) price like the model they name.
OpenAI models have a small table of their own; any model can be priced (or
re-priced) by the `prices` setting, which wins over both tables (`priced`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from guilens.episode import Usage

log = logging.getLogger(__name__)

# USD per million tokens: (input, output, 5-minute cache write, cache read), from the Claude
# pricing page (checked 2026-11). A 1-hour cache write costs twice the input price.
PRICES: dict[str, tuple[float, float, float, float]] = {
    "claude-fable-5-2": (8.0, 40.0, 10.0, 0.20),
    "claude-mythos-5-2": (8.0, 40.0, 10.0, 0.20),
    "claude-fable-5-1": (10.0, 50.0, 12.50, 0.25),
    "claude-mythos-5-1": (10.0, 50.0, 12.50, 0.25),
    "claude-fable-5": (10.0, 50.0, 12.50, 1.00),
    "claude-mythos-5": (10.0, 50.0, 12.50, 1.00),
    "claude-opus-5-5": (4.0, 20.0, 5.0, 0.20),
    "claude-opus-5": (5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-8": (5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-7": (5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-6": (5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-5": (5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-1": (15.0, 75.0, 18.75, 1.50),
    "claude-opus-4": (15.0, 75.0, 18.75, 1.50),
    "claude-opus-3": (15.0, 75.0, 18.75, 1.50),
    "claude-sonnet-5-5": (2.0, 10.0, 2.50, 0.10),
    "claude-sonnet-5": (2.0, 10.0, 2.50, 0.20),
    "claude-sonnet-4-6": (3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4-5": (3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4": (3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-3-7": (3.0, 15.0, 3.75, 0.30),
    "claude-haiku-5-5": (0.10, 0.50, 0.125, 0.01),
    "claude-haiku-4-5": (1.0, 5.0, 1.25, 0.10),
    "claude-haiku-3-5": (0.80, 4.0, 1.0, 0.08),
    "claude-haiku-3": (0.25, 1.25, 0.30, 0.03),
}
# Haiku 5.5 bills a request whose prompt (input + cache reads + cache writes) exceeds
# 100k tokens at a higher rate, on every token of that request.
LONG_PROMPT: dict[str, tuple[int, tuple[float, float, float, float]]] = {
    "claude-haiku-5-5": (100_000, (0.50, 2.50, 0.625, 0.05)),
}

_NEW_ID = re.compile(r"claude-(opus|sonnet|haiku|fable|mythos)-(\d+)(?:-(\d{1,2}))?(?![0-9])")
_OLD_ID = re.compile(r"claude-(\d)(?:-(\d))?-(opus|sonnet|haiku)")
_warned: set[str] = set()


def model_key(model: str) -> str | None:
    """`claude-sonnet-4-5-20250929`, `us.anthropic.claude-sonnet-4-5-v1:0`, `claude-3-5-haiku-latest`
    -> the family-version key of PRICES (`claude-sonnet-4-5`, `claude-haiku-3-5`); None if not Claude."""
    m = _NEW_ID.search(model)
    if m:
        family, major, minor = m.groups()
    else:
        m = _OLD_ID.search(model)
        if not m:
            return None
        major, minor, family = m.groups()
    return f"claude-{family}-{major}" + (f"-{minor}" if minor else "")


def _version(key: str) -> tuple[str, tuple[int, int]]:
    parts = key.split("-")
    return parts[1], (int(parts[2]), int(parts[3]) if len(parts) > 3 else 0)


@dataclass(frozen=True)
class ModelCaps:
    sampling: bool
    """Accepts `temperature` (Opus 4.7 and every 5.x model answer HTTP 400 to a non-default one)."""
    forced_tool_choice: bool = True
    """Accepts `tool_choice` `any`/`tool`. Every model does: the API refuses a forced choice only
    together with manual extended thinking (`thinking: {"type": "enabled"}`), which is a property of
    the request, not the model, and the Anthropic provider checks it there
    (`guilens.llm.providers.anthropic.forced_refused`). An earlier table said the 5.5 generation,
    Fable and Mythos refused it, which cost the default model a repair turn whenever it answered
    without the tool; Anthropic's docs say adaptive thinking (their default) takes a forced choice."""


def model_caps(model: str) -> ModelCaps:
    key = model_key(model)
    if key is None:
        return ModelCaps(sampling=True)
    family, version = _version(key)
    if family in ("fable", "mythos"):
        return ModelCaps(sampling=False)
    return ModelCaps(sampling=version < (4, 7))


def _field(usage: Any, *names: str) -> int:
    for name in names:
        value = usage.get(name) if isinstance(usage, dict) else getattr(usage, name, None)
        if value:
            return int(value)
    return 0


def cost_usd(model: str, usage: Any) -> float:
    """Dollars for one response's usage (an SDK `Usage`, its dict, or a `guilens.episode.Usage`).

    Unknown models cost 0 and log one warning: a wrong price is worse than a visibly missing one.
    """
    key = model_key(model)
    prices = PRICES.get(key or "")
    if prices is None:
        if model not in _warned:
            _warned.add(model)
            log.warning("no price known for model %r: its cost is counted as $0", model)
        return 0.0
    tokens_in = _field(usage, "input_tokens")
    tokens_out = _field(usage, "output_tokens")
    write = _field(usage, "cache_creation_input_tokens", "cache_write_tokens")
    read = _field(usage, "cache_read_input_tokens", "cache_read_tokens")
    detail = (
        usage.get("cache_creation") if isinstance(usage, dict) else getattr(usage, "cache_creation", None)
    )
    write_1h = min(write, _field(detail, "ephemeral_1h_input_tokens")) if detail else 0
    if key in LONG_PROMPT and tokens_in + write + read > LONG_PROMPT[key][0]:
        prices = LONG_PROMPT[key][1]
    p_in, p_out, p_write, p_read = prices
    dollars = (
        tokens_in * p_in
        + tokens_out * p_out
        + (write - write_1h) * p_write
        + write_1h * 2 * p_in
        + read * p_read
    ) / 1_000_000
    return round(dollars, 8)


# USD per million tokens (input, output, cache read) of OpenAI models, from OpenAI's pricing page
# (checked 2025-06); matched on the name with any date suffix removed.
OPENAI_PRICES: dict[str, tuple[float, float, float]] = {
    "gpt-4o": (2.50, 10.0, 1.25),
    "gpt-4o-mini": (0.15, 0.60, 0.075),
    "gpt-4.1": (2.0, 8.0, 0.50),
    "gpt-4.1-mini": (0.40, 1.60, 0.10),
    "gpt-4.1-nano": (0.10, 0.40, 0.025),
}
_DATED = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def price_override(provider: str, model: str, overrides: dict[str, Any] | None) -> Any:
    """The `prices` setting's entry for `provider:model` (or the bare `model`), or None."""
    if not overrides:
        return None
    for key in (f"{provider}:{model}", model):
        if key in overrides:
            return overrides[key]
    return None


def priced(provider: str, model: str, usage: Usage, overrides: dict[str, Any] | None = None) -> tuple[float, bool]:
    """Dollars for `usage` of `provider:model` and whether a price was known: the `prices` setting
    first (a local model at 0 or at its GPU cost), then guilens's tables. Unknown: (0.0, False), which
    callers show as "price unknown", never as $0."""
    own = price_override(provider, model, overrides)
    if own is not None:
        p_in, p_out = float(own.input), float(own.output)
        p_read = float(own.cache_read) if own.cache_read is not None else p_in
        p_write = float(own.cache_write) if own.cache_write is not None else p_in
        dollars = (usage.input_tokens * p_in + usage.output_tokens * p_out + usage.cache_read_tokens * p_read
                   + usage.cache_write_tokens * p_write) / 1_000_000
        return round(dollars, 8), True
    if provider == "openai":
        table = OPENAI_PRICES.get(_DATED.sub("", model.rpartition("/")[2]))
        if table is None:
            return 0.0, False
        p_in, p_out, p_read = table
        dollars = (usage.input_tokens * p_in + usage.output_tokens * p_out + usage.cache_read_tokens * p_read) / 1e6
        return round(dollars, 8), True
    if model_key(model) not in PRICES:
        return 0.0, False
    return usage.cost_usd, True


def to_usage(model: str, usage: Any) -> Usage:
    return Usage(
        input_tokens=_field(usage, "input_tokens"),
        output_tokens=_field(usage, "output_tokens"),
        cache_read_tokens=_field(usage, "cache_read_input_tokens"),
        cache_write_tokens=_field(usage, "cache_creation_input_tokens"),
        cost_usd=cost_usd(model, usage),
    )
