"""What a provider is to the client: turn guilens's canonical request into its wire body, send one try,
and say what a failure was.

The canonical request is the Anthropic Messages shape (system, messages of
text/image/tool_use/tool_result blocks, tools with `input_schema`,
`tool_choice`), because guilens's callers were written against it and it is
the richer of the two. The canonical reply is a Messages API message dict
(`content` blocks, `stop_reason`, `usage` with `input_tokens`...). A provider
translates both ways, so the agent, the llm user and the judge never know which
API answered.

A provider does one HTTP try at a time: the retry loop, the cache, the call
record and the prices live in the client, once for every provider.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

from guilens.config import ConfigError
from guilens.llm.errors import LLMError, LLMRequestError, Unreadable, clip, connection_cause, error_text


@dataclass
class Reply:
    """One HTTP 200, read."""

    data: dict[str, Any]
    """The reply in the canonical (Messages API) shape."""
    raw: str
    """The body exactly as received."""
    status: int = 200
    request_id: str | None = None


@dataclass
class Failure:
    """A try that failed, as the retry loop needs it: why, and whether sending it again can help."""

    cause: str
    """One line: `HTTP 429 rate_limit_error: ...`, `no answer within 30 s`, `HTTP 200 but ...`."""
    retryable: bool
    status: int | None = None
    headers: Any = None
    """The response headers, for `retry-after`."""
    fatal: LLMError | None = None
    """For a failure that is not retryable: the error to raise (it names the fault and the fix)."""


class Provider(Protocol):
    name: str
    """`anthropic` or `openai`."""
    where: str
    """What a person calls the endpoint: `the Anthropic API`, `the OpenAI-compatible server at URL`."""
    base_url: str | None

    def body(self, params: dict[str, Any]) -> dict[str, Any]:
        """The wire body for a canonical request: translated, model quirks applied, guilens-only keys gone."""
        ...

    def send(self, body: dict[str, Any]) -> Reply:
        """One HTTP try. Raises the SDK's errors, `Unreadable`, or `json.JSONDecodeError`; `classify` reads them."""
        ...

    def classify(self, err: BaseException, who: str) -> Failure | None:
        """What `err` from `send` means; None for an exception that is not a call failure (a bug: re-raised)."""
        ...


class SDKProvider:
    """What the two SDK providers share: reading a failed try. Both SDKs raise the same error tree
    (`APIStatusError`, `APITimeoutError`, `APIConnectionError`, `APIError`); a provider names its module
    (`_sdk_mod`), its endpoint for a connection failure (`unnamed_url` when it has no `base_url`), how
    its servers word an error (`error_text`), and the statuses it explains itself (`refused`)."""

    where: str
    base_url: str | None
    timeout: float
    unnamed_url: str
    _sdk_mod: Any

    def error_text(self, err: Any) -> str:
        return error_text(err)

    def refused(self, status: int, cause: str, who: str) -> LLMRequestError | None:
        """The error for a status this provider explains (a rejected key), or None."""
        return None

    def classify(self, err: BaseException, who: str) -> Failure | None:
        sdk = self._sdk_mod
        if isinstance(err, sdk.APIStatusError):
            status = err.status_code
            should = err.response.headers.get("x-should-retry")
            retryable = should == "true" or (should != "false" and (status in (408, 409, 429) or status >= 500))
            cause = f"HTTP {status} {self.error_text(err)}"
            fatal = self.refused(status, cause, who)
            if fatal is not None:
                return Failure(cause, False, status, fatal=fatal)
            if not retryable:
                return Failure(cause, False, status, fatal=LLMRequestError(
                    f"{who}: {self.where} refused the request: {cause}", status=status))
            return Failure(cause, True, status, headers=err.response.headers)
        if isinstance(err, sdk.APITimeoutError):
            return Failure(f"no answer within {self.timeout:g} s", True)
        if isinstance(err, sdk.APIConnectionError):
            return Failure(connection_cause(err, self.base_url or self.unnamed_url), True)
        if isinstance(err, json.JSONDecodeError):
            return Failure(f"HTTP 200 but the body was cut short or is not JSON ({clip(str(err), 80)})", True)
        if isinstance(err, Unreadable):
            return Failure(str(err), True)
        if isinstance(err, sdk.APIError):
            return Failure(f"HTTP 200 but the body is unreadable ({clip(str(err), 120)})", True)
        if isinstance(err, ValueError | TypeError) and not isinstance(err, ConfigError):
            # the SDK refusing the request before sending it
            return Failure(clip(str(err)), False, fatal=LLMRequestError(
                f"{who}: the request cannot be sent: {clip(str(err))}"))
        return None


def clean_block(block: Any) -> Any:
    """A content block without guilens-only keys (`_ref`, `_arguments`...), which no API takes; a
    tool_result's nested blocks too. Only block keys: a tool's input is the model's and stays whole."""
    if not isinstance(block, dict):
        return block
    out = {k: v for k, v in block.items() if not (isinstance(k, str) and k.startswith("_"))}
    if out.get("type") == "tool_result" and isinstance(out.get("content"), list):
        out["content"] = [clean_block(c) for c in out["content"]]
    return out


def clean_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` with every content block cleaned (`clean_block`)."""
    out = []
    for m in messages:
        content = m.get("content")
        out.append({**m, "content": [clean_block(b) for b in content]} if isinstance(content, list) else m)
    return out


def parse_body(text: str) -> Any:
    """A 200's body as JSON. `json.JSONDecodeError` for JSON cut short; `Unreadable` for a body that is not
    JSON at all (a proxy's HTML error page), so the recorded cause tells the two apart."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        if text.lstrip()[:1] in ("{", "["):
            raise
        raise Unreadable(f"HTTP 200 but the body is not JSON: {clip(text, 80)!r}") from None
