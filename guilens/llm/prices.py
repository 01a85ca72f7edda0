"""Claude prices and model quirks: tokens to dollars, and what each model accepts.

One table for the agent, the llm user and the judge, so the same tokens always
cost the same. Model ids are reduced to a family-version key first, so dated
ids (`claude-sonnet-4-5-20250929`), cloud ids (`us.anthropic.claude-...-v1:0`)
and old-style ids (`claude-3-5-haiku-latest`) price like the model they name.
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
    forced_tool_choice: bool
    """Accepts `tool_choice` `any`/`tool` (not the 5.5 generation, nor always-thinking Fable/Mythos)."""


def model_caps(model: str) -> ModelCaps:
    key = model_key(model)
    if key is None:
        return ModelCaps(sampling=True, forced_tool_choice=True)
    family, version = _version(key)
    if family in ("fable", "mythos"):
        return ModelCaps(sampling=False, forced_tool_choice=False)
    return ModelCaps(sampling=version < (4, 7), forced_tool_choice=version < (5, 5))


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


def to_usage(model: str, usage: Any) -> Usage:
    return Usage(
        input_tokens=_field(usage, "input_tokens"),
        output_tokens=_field(usage, "output_tokens"),
        cache_read_tokens=_field(usage, "cache_read_input_tokens"),
        cache_write_tokens=_field(usage, "cache_creation_input_tokens"),
        cost_usd=cost_usd(model, usage),
    )
