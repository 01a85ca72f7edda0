"""`LLMClient` and `make_client`: one client for a model spec and a role, on any provider.

The spec (`openai:qwen2.5-vl-7b`, `anthropic:claude-sonnet-5-5`, or a bare
Claude name) picks the provider (`guilens.llm.providers`); the client adds
what every caller needs and none should get subtly different: the retry loop
(`guilens.llm.retry`: each failed try a `Retry` with its cause), tokens turned
into dollars (`prices`, with the `prices` setting over the tables), a
content-addressed response cache (the judge re-reads unchanged episodes for
free), and the call record (`LLMResponse.call`: the request as sent with images
referenced, the raw reply, retries, tokens, cost, duration).

Keys are read from the environment and handed to the SDK only: they never
reach a record, a cache file, a log line or a message.
"""

from __future__ import annotations

import json
import os
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from guilens.config import Settings, api_key, load_settings
from guilens.episode_model import Usage
from guilens.llm.cache import LLMResponse, ResponseCache, response_from
from guilens.llm.errors import MissingAPIKey
from guilens.llm.prices import priced
from guilens.llm.providers.anthropic import AnthropicProvider, mark_prefix, reply_data
from guilens.llm.providers.base import Provider
from guilens.llm.providers.openai import DEFAULT_URL, OpenAIProvider
from guilens.llm.record import make_record
from guilens.llm.retry import RetryPolicy, send_with_retries
from guilens.llm.spec import ModelSpec, check_base_url, is_local, parse_model

__all__ = ["LLMClient", "make_client", "mark_prefix", "reply_data"]

HINTS = {
    "agent": "or run another --agent (oracle, random, human)",
    "user": "or run with --user oracle or --user human",
    "judge": "or judge with --rules-only",
}
"""What else each role's command accepts when a key is missing: `run` has no `--rules-only`."""


def make_client(
    spec: str,
    *,
    role: str = "agent",
    base_url: str | None = None,
    settings: Settings | None = None,
    cache: bool | None = None,
    option: str = "--model",
    base_url_option: str = "--base-url",
    hint: str | None = None,
    tool_calls: bool | None = None,
    **tuning: Any,
) -> LLMClient:
    """The client for `spec` (`openai:MODEL`, `anthropic:MODEL` or a bare Claude name) in `role`
    (`agent`, `user`, `judge`).

    `base_url` overrides the provider's setting (`openai_base_url`, `api_base_url`); `option` and
    `base_url_option` are how the command spells them, for the one-line errors (`ConfigError`:
    unknown provider, bad URL; `MissingAPIKey`: no key for a remote endpoint). `hint` says what else
    the command accepts when the key is missing (default: by role). `tool_calls` (default: the
    `openai_tool_calls` setting) says whether an OpenAI-compatible server does tool calling;
    `client.supports_tools` tells the caller. `tuning`: `max_retries`, `timeout`, `cache_dir`,
    `retry_base_delay`, `retry_max_delay`, `max_retry_after`.
    """
    return LLMClient(spec, role=role, base_url=base_url, settings=settings, cache=cache, option=option,
                     base_url_option=base_url_option, hint=hint, tool_calls=tool_calls, **tuning)


class LLMClient:
    """A client for one model and one role (`agent`, `user`, `judge`); see `make_client`.

    `create` takes the canonical (Messages API) request on every provider and returns an
    `LLMResponse` whose `call` is the record of the call. `cache` (None: on for the judge role only)
    serves a repeated request from disk, costing nothing and making no HTTP call. Each failed try is
    a `Retry` in the response's `usage.retries` (and its `call.retries`), or in the `LLMError` raised
    when every try failed. Thread-safe: the judge calls it from several threads.
    """

    def __init__(
        self,
        model: str,
        *,
        role: str = "agent",
        cache: bool | None = None,
        cache_dir: Path | None = None,
        settings: Settings | None = None,
        base_url: str | None = None,
        max_retries: int | None = None,
        timeout: float | None = None,
        retry_base_delay: float = 1.0,
        retry_max_delay: float = 30.0,
        max_retry_after: float = 60.0,
        option: str = "--model",
        base_url_option: str = "--base-url",
        hint: str | None = None,
        tool_calls: bool | None = None,
    ) -> None:
        self.spec: ModelSpec = parse_model(model, option=option)
        self.model = self.spec.model
        self.role = role
        self.settings = settings if settings is not None else load_settings()
        self.timeout = self.settings.request_timeout_s if timeout is None else timeout
        self.policy = RetryPolicy(self.settings.max_retries if max_retries is None else max_retries,
                                  retry_base_delay, retry_max_delay, max_retry_after)
        self.provider: Provider = self._provider(base_url, base_url_option, hint or HINTS.get(role, ""), tool_calls)
        self.base_url = self.provider.base_url
        use_cache = (role == "judge") if cache is None else cache
        cap = self.settings.cache_max_mb
        self.cache = (ResponseCache(cache_dir or self.settings.cache_dir,
                                    max_bytes=int(cap * 1_000_000) if cap else None) if use_cache else None)
        self.total = Usage()
        self.calls = 0
        """HTTP requests made, retries included (cache hits make none)."""
        self._lock = threading.Lock()

    # -- set-up --
    def _provider(self, base_url: str | None, url_option: str, hint: str, tool_calls: bool | None) -> Provider:
        s, spec, role = self.settings, self.spec, self.role
        if spec.provider == "anthropic":
            key = api_key("anthropic")
            if not key:
                raise MissingAPIKey(f"ANTHROPIC_API_KEY is not set (needed by the {role} model {spec.model}): "
                                    f"export it, {hint}".rstrip(", "))
            given = base_url or s.api_base_url
            named = url_option if base_url else "the api_base_url setting"
            url = given or os.environ.get("ANTHROPIC_BASE_URL") or None
            if url:
                url = check_base_url(url, option=named if given else "ANTHROPIC_BASE_URL")
            return AnthropicProvider(spec.model, key=key, base_url=url, timeout=self.timeout)
        given = base_url or s.openai_base_url
        named = url_option if base_url else "the openai_base_url setting"
        url = check_base_url(given or os.environ.get("OPENAI_BASE_URL") or DEFAULT_URL,
                             option=named if given else "OPENAI_BASE_URL")
        key = api_key("openai")
        if not key and not is_local(url):
            raise MissingAPIKey(f"OPENAI_API_KEY is not set (needed by the {role} model {spec} at {url}): export "
                                f"it, point {url_option} at a local server, {hint}".rstrip(", "))
        return OpenAIProvider(spec.model, key=key, base_url=url, timeout=self.timeout,
                              tool_calls=s.openai_tool_calls if tool_calls is None else tool_calls)

    @property
    def supports_tools(self) -> bool:
        """Whether `tools` may be sent (false for a server set to have no tool calling: use a text format)."""
        return bool(getattr(self.provider, "tool_calls", True))

    # -- requests --
    @staticmethod
    def canonical(
        *,
        system: str | list[dict[str, Any]],
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: dict[str, Any] | None = None,
        max_tokens: int = 1024,
        temperature: float | None = 0.0,
        cache_prefix: bool = True,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        return {"system": system, "messages": messages, "tools": tools, "tool_choice": tool_choice,
                "max_tokens": max_tokens, "temperature": temperature, "cache_prefix": cache_prefix,
                "extra": extra}

    def request_params(self, **kw: Any) -> dict[str, Any]:
        """The body `create` sends for these arguments: translated, model quirks applied."""
        return self.provider.body(self.canonical(**kw))

    def create(
        self,
        *,
        system: str | list[dict[str, Any]],
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: dict[str, Any] | None = None,
        max_tokens: int = 1024,
        temperature: float | None = 0.0,
        cache_prefix: bool = True,
        extra: dict[str, Any] | None = None,
        repair: bool = False,
    ) -> LLMResponse:
        """Send the canonical request; `repair`: it tells the model what was wrong with its last reply
        (recorded on the call). Image blocks may carry `_ref` (the screen they show, for the record)."""
        params = self.canonical(system=system, messages=messages, tools=tools, tool_choice=tool_choice,
                                max_tokens=max_tokens, temperature=temperature, cache_prefix=cache_prefix,
                                extra=extra)
        body = self.provider.body(params)
        claude = self.spec.provider == "anthropic"
        key = ""
        if self.cache:
            key = ResponseCache.key(body if claude else {"provider": self.spec.provider, "url": self.base_url, **body})
        started_at, started = datetime.now().astimezone(), time.monotonic()
        if self.cache:
            hit = self.cache.get(key)
            if hit is not None:
                resp = response_from(hit, requested_model=self.model, cached=True, claude=claude)
                resp.call = self._record(params, body, started_at, started, reply=json.dumps(hit, ensure_ascii=False),
                                         cached=True, repair=repair, usage=resp.usage, cost_known=True)
                return resp
        who = f"{self.spec if not claude else self.model} ({self.role})"
        reply, retries = send_with_retries(self.provider, body, who=who, role=self.role, policy=self.policy,
                                           on_try=self._count)
        data = reply.data
        if self.cache and data.get("stop_reason") != "max_tokens":
            self.cache.put(key, data, role=self.role)
        resp = response_from(data, requested_model=self.model, cached=False, claude=claude)
        cost, known = priced(self.spec.provider, str(data.get("model") or self.model) if claude else self.model,
                             resp.usage, self.settings.prices)
        resp.usage.cost_usd = cost
        resp.retries = len(retries)
        resp.usage.retries = retries
        resp.latency_s = round(time.monotonic() - started, 3)
        resp.request_id = reply.request_id
        resp.call = self._record(params, body, started_at, started, reply=reply.raw, status=reply.status,
                                 request_id=reply.request_id, repair=repair, retries=retries, usage=resp.usage,
                                 cost_known=known)
        with self._lock:
            self.total = self.total + resp.usage
        return resp

    def _count(self) -> None:
        with self._lock:
            self.calls += 1

    def _record(self, params: dict[str, Any], body: dict[str, Any], started_at: datetime, started: float,
                **kw: Any) -> Any:
        return make_record(role=self.role, provider=self.spec.provider, model=self.model, base_url=self.base_url,
                           params=params, body=body, started_at=started_at,
                           duration_s=time.monotonic() - started, **kw)
