"""What a failed model call raises, and the one-line causes the retries are recorded with.

Every message says who failed (the Anthropic API, an OpenAI-compatible server,
or the request itself) and what to do, in one line: the runner puts it in `episode.json`, the CLI prints
it. A call that gave up carries the `Retry` records of every try, so the
faults behind it stay countable even though no step recorded them.
"""

from __future__ import annotations

from typing import Any

from guilens.config import ConfigError
from guilens.episode_model import Retry

CAUSE_MAX = 200
"""A cause longer than this (an error body echoing the request) is cut, saying how long it was."""


def clip(text: str, limit: int = CAUSE_MAX) -> str:
    """`text` on one line, at most about `limit` characters; a cut says how long the whole was."""
    one = " ".join(str(text).split())
    if len(one) <= limit:
        return one
    return f"{one[: limit - 1]}… ({len(one)} characters)"


class LLMError(Exception):
    """An LLM call that could not be made or did not succeed; the message says why and what to do."""

    def __init__(self, message: str, *, status: int | None = None, retries: list[Retry] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retries: list[Retry] = list(retries or [])
        """Every failed try of the call (and, from the agent, the step's earlier retries), in order."""

    def after(self, earlier: list[Retry]) -> LLMError:
        """The same error, saying what this step's earlier calls had already been through."""
        if not earlier:
            return self
        return type(self)(f"{self}; earlier in this step: {summary(earlier)}", status=self.status,
                          retries=[*earlier, *self.retries])


class MissingAPIKey(LLMError, ConfigError):
    """No `ANTHROPIC_API_KEY`, or no `OPENAI_API_KEY` for a remote endpoint. A `ConfigError` too, so the CLI
    prints it as one line, no traceback; it names what else the command at hand accepts."""


class LLMRequestError(LLMError):
    """The API refused the request itself (HTTP 4xx other than 408/409/429): retrying cannot help."""


class LLMUnavailable(LLMError):
    """Rate limits, overload, server errors, timeouts or unreadable replies outlasted every retry."""


class Unreadable(Exception):
    """An HTTP 200 whose body is not a reply (not JSON, not a message or chat completion)."""


def count_causes(causes: list[str]) -> str:
    """`HTTP 500 api_error: Internal server error x2; no answer within 30 s`: repeats counted, in first-seen order."""
    counted: dict[str, int] = {}
    for c in causes:
        counted[c] = counted.get(c, 0) + 1
    return "; ".join(c if n == 1 else f"{c} x{n}" for c, n in counted.items())


def summary(retries: list[Retry]) -> str:
    """`3 API retries (HTTP 529 overloaded_error: Overloaded x2; no answer within 30 s), 1 repair (...)`."""
    parts = []
    api = [r.cause for r in retries if r.kind == "api"]
    repairs = [r.cause for r in retries if r.kind == "repair"]
    if api:
        parts.append(f"{len(api)} API {'retry' if len(api) == 1 else 'retries'} ({count_causes(api)})")
    if repairs:
        parts.append(f"{len(repairs)} {'repair' if len(repairs) == 1 else 'repairs'} ({count_causes(repairs)})")
    return ", ".join(parts)


def error_text(err: Any) -> str:
    """The API's own `type: message` from an error response, else the SDK's message."""
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        nested = body.get("error")
        inner: dict[str, Any] = nested if isinstance(nested, dict) else body
        kind, msg = inner.get("type"), inner.get("message")
        if msg:
            return clip(f"{kind}: {msg}" if kind else str(msg))
    return clip(str(getattr(err, "message", None) or err))


def connection_cause(err: Any, where: str) -> str:
    """A connection failure as a person would name it: a reply cut off mid-body is not 'cannot reach'."""
    inner = err.__cause__ or err
    text = clip(str(inner) or type(inner).__name__)
    if "complete message body" in text:  # httpx: the peer closed before content-length bytes came
        return f"HTTP reply cut off mid-body ({text})"
    return f"cannot reach {where}: {text}"
