"""One client for every Anthropic call guilens makes: the claude agent, the llm user, the judge.

Why one wrapper: the three callers need the same things and none should get
them subtly different: bounded retries that honour `retry-after`, tokens turned
into dollars with one price table, a content-addressed response cache (the
judge re-reads unchanged episodes for free), prompt caching of the unchanging
prefix, and error messages a person can act on. The SDK is imported lazily so
`guilens --help` stays fast, and the API key is read from the environment and
handed to the SDK only: it never reaches a cache file, a log line or a message.

Model quirks are absorbed here rather than in every caller: the newest models
reject sampling parameters (`temperature`) and forced `tool_choice`; for those
the request drops `temperature` and asks for `auto` tool choice instead, and the
callers handle a reply without a tool call as they would any malformed reply.
"""

from __future__ import annotations

import email.utils
import logging
import os
import random
import threading
import time
from pathlib import Path
from typing import Any

from guilens.config import ConfigError, Settings, api_key, load_settings
from guilens.episode import Usage
from guilens.llm.cache import CACHE_FORMAT, LLMResponse, ResponseCache, ToolCall, response_from
from guilens.llm.images import fit_size, image_block
from guilens.llm.prices import LONG_PROMPT, PRICES, ModelCaps, cost_usd, model_caps, model_key, to_usage

__all__ = [
    "CACHE_FORMAT",
    "LONG_PROMPT",
    "PRICES",
    "LLMClient",
    "LLMError",
    "LLMRequestError",
    "LLMResponse",
    "LLMUnavailable",
    "MissingAPIKey",
    "ModelCaps",
    "ResponseCache",
    "ToolCall",
    "cost_usd",
    "fit_size",
    "image_block",
    "mark_prefix",
    "model_caps",
    "model_key",
    "to_usage",
]

log = logging.getLogger(__name__)


class LLMError(Exception):
    """An LLM call that could not be made or did not succeed; the message says why and what to do."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class MissingAPIKey(LLMError, ConfigError):
    """No `ANTHROPIC_API_KEY`. A `ConfigError` too, so the CLI prints it as one line, no traceback."""


class LLMRequestError(LLMError):
    """The API refused the request itself (HTTP 4xx other than 408/409/429): retrying cannot help."""


class LLMUnavailable(LLMError):
    """Rate limits, overload, server errors or timeouts outlasted every retry."""


_EPHEMERAL = {"type": "ephemeral"}


def _has_cache_control(blocks: list[dict[str, Any]]) -> bool:
    return any(isinstance(b, dict) and "cache_control" in b for b in blocks)


def mark_prefix(system: str | list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> tuple[Any, Any]:
    """Put a cache breakpoint at the end of the unchanging prefix (tools, then system).

    Blocks that already carry `cache_control` are the caller's choice and are left alone.
    """
    sys_blocks = [{"type": "text", "text": system}] if isinstance(system, str) else [dict(b) for b in system]
    sys_blocks = [b for b in sys_blocks if b.get("type") != "text" or b.get("text")]
    tool_list = [dict(t) for t in tools] if tools else None
    if _has_cache_control(sys_blocks) or (tool_list and _has_cache_control(tool_list)):
        return sys_blocks, tool_list
    if sys_blocks:
        sys_blocks[-1]["cache_control"] = dict(_EPHEMERAL)
    elif tool_list:
        tool_list[-1]["cache_control"] = dict(_EPHEMERAL)
    return sys_blocks, tool_list


def _retry_after(headers: Any) -> float | None:
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            when = email.utils.parsedate_tz(value)
            if when is not None:
                return max(0.0, email.utils.mktime_tz(when) - time.time())
    return None


def _error_text(err: Any) -> str:
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        kind, msg = inner.get("type"), inner.get("message")
        if msg:
            return f"{kind}: {msg}" if kind else str(msg)
    return str(getattr(err, "message", None) or err)


class LLMClient:
    """A Messages API client for one model and one role (`agent`, `user`, `judge`).

    `cache` (None: on for the judge role only) serves a repeated request from disk,
    costing nothing and making no HTTP call. Retries: 408, 409, 429, 5xx and 529
    responses, timeouts and connection errors are retried up to `max_retries` times,
    waiting what `retry-after` asks (at most `max_retry_after` s) or an exponential
    jittered backoff. Thread-safe: the judge calls it from several threads.
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
    ) -> None:
        key = api_key()
        if not key:
            raise MissingAPIKey(
                f"ANTHROPIC_API_KEY is not set (needed by the {role} model {model}): export it, "
                "or use --agent oracle / --user oracle, or judge with --rules-only"
            )
        self.settings = settings if settings is not None else load_settings()
        self.model = model
        self.role = role
        self.base_url = base_url or self.settings.api_base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
        self.max_retries = self.settings.max_retries if max_retries is None else max_retries
        self.timeout = self.settings.request_timeout_s if timeout is None else timeout
        self.retry_base_delay = retry_base_delay
        self.retry_max_delay = retry_max_delay
        self.max_retry_after = max_retry_after
        use_cache = (role == "judge") if cache is None else cache
        self.cache = ResponseCache(cache_dir or self.settings.cache_dir) if use_cache else None
        self.caps = model_caps(model)
        self.total = Usage()
        self.calls = 0
        """HTTP requests made, retries included (cache hits make none)."""
        self._lock = threading.Lock()

        import anthropic  # lazy: the CLI must start fast

        self._anthropic = anthropic
        import inspect

        accepted = inspect.signature(anthropic.resources.messages.Messages.create).parameters
        self._sdk_params = frozenset(n for n in accepted if n not in ("self", "extra_body", "extra_headers"))
        self._sdk = anthropic.Anthropic(
            api_key=key, base_url=self.base_url, max_retries=0, timeout=self.timeout
        )

    def request_params(
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
    ) -> dict[str, Any]:
        """The request body `create` sends: model quirks applied, prefix cache breakpoint set."""
        if cache_prefix:
            sys_blocks, tool_list = mark_prefix(system, tools)
        else:
            sys_blocks = [{"type": "text", "text": system}] if isinstance(system, str) else list(system)
            tool_list = list(tools) if tools else None
        params: dict[str, Any] = {"model": self.model, "max_tokens": max_tokens, "messages": messages}
        if sys_blocks:
            params["system"] = sys_blocks
        if tool_list:
            params["tools"] = tool_list
            if tool_choice is not None:
                if tool_choice.get("type") in ("any", "tool") and not self.caps.forced_tool_choice:
                    tool_choice = {"type": "auto"}
                params["tool_choice"] = tool_choice
        if temperature is not None and self.caps.sampling:
            params["temperature"] = temperature
        if extra:
            params.update(extra)
        return params

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
    ) -> LLMResponse:
        params = self.request_params(
            system=system,
            messages=messages,
            tools=tools,
            tool_choice=tool_choice,
            max_tokens=max_tokens,
            temperature=temperature,
            cache_prefix=cache_prefix,
            extra=extra,
        )
        key = ResponseCache.key(params) if self.cache else ""
        if self.cache:
            hit = self.cache.get(key)
            if hit is not None:
                return response_from(hit, requested_model=self.model, cached=True)
        started = time.monotonic()
        message, retries = self._send(params)
        data = message.model_dump(mode="json", exclude_none=True)
        if self.cache and data.get("stop_reason") != "max_tokens":
            self.cache.put(key, data, role=self.role)
        resp = response_from(data, requested_model=self.model, cached=False)
        resp.retries = retries
        resp.latency_s = round(time.monotonic() - started, 3)
        resp.request_id = getattr(message, "_request_id", None)
        with self._lock:
            self.total = self.total + resp.usage
        return resp

    def _delay(self, attempt: int, headers: Any) -> float:
        asked = _retry_after(headers)
        if asked is not None:
            return min(asked, self.max_retry_after)
        backoff = min(self.retry_max_delay, self.retry_base_delay * 2**attempt)
        return backoff * (0.5 + random.random() / 2)

    def _send(self, params: dict[str, Any]) -> tuple[Any, int]:
        sdk = self._anthropic
        # Parameters this SDK version has no keyword for (`temperature` in 2.x) go in the body as-is.
        known = {k: v for k, v in params.items() if k in self._sdk_params}
        extra = {k: v for k, v in params.items() if k not in self._sdk_params}
        attempt = 0
        while True:
            with self._lock:
                self.calls += 1
            headers = None
            try:
                return self._sdk.messages.create(**known, extra_body=extra or None), attempt
            except sdk.APIStatusError as err:
                status = err.status_code
                should = err.response.headers.get("x-should-retry")
                retryable = should == "true" or (
                    should != "false" and (status in (408, 409, 429) or status >= 500)
                )
                detail = f"HTTP {status} {_error_text(err)}"
                if status == 401:
                    raise LLMRequestError(
                        f"the Anthropic API rejected ANTHROPIC_API_KEY ({detail}): check the key",
                        status=status,
                    ) from None
                if not retryable:
                    raise LLMRequestError(
                        f"{self.model} ({self.role}) request refused: {detail}", status=status
                    ) from None
                headers = err.response.headers
            except sdk.APITimeoutError:
                status, detail = None, f"no answer within {self.timeout:g} s"
            except sdk.APIConnectionError as err:
                status, detail = (
                    None,
                    f"cannot reach {self.base_url or 'the Anthropic API'}: {err.__cause__ or err}",
                )
            except sdk.APIError as err:  # a reply the SDK could not read: retrying will not fix it
                raise LLMError(f"{self.model} ({self.role}): unreadable reply from the API: {err}") from None
            if attempt >= self.max_retries:
                raise LLMUnavailable(
                    f"{self.model} ({self.role}): gave up after {attempt + 1} tries: {detail}", status=status
                ) from None
            delay = self._delay(attempt, headers)
            log.info(
                "%s (%s): %s; retry %d/%d in %.2f s",
                self.model,
                self.role,
                detail,
                attempt + 1,
                self.max_retries,
                delay,
            )
            time.sleep(delay)
            attempt += 1
