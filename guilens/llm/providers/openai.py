"""The OpenAI chat-completions provider, on the official `openai` SDK: OpenAI itself, and the servers that
speak its API (vLLM, SGLang, llama.cpp, LM Studio, Ollama).

The key comes from `OPENAI_API_KEY`. A server on loopback or a private network
needs none (a local vLLM takes any key unless started with `--api-key`), so a
placeholder goes in the `Authorization` header the SDK insists on sending; a
remote endpoint without a key is refused before the run (`MissingAPIKey`). A
local server that does want a key answers 401, which says to set it.

Translation lives in `openai_translate` (pure functions, tested both ways);
this module sends one try through `with_raw_response` so the body is kept as
received and read here: the SDK does not validate replies, and a 200 that is
cut short or is not a completion must be a retryable fault, not a `str` or a
completion with no choices deep in a caller.
"""

from __future__ import annotations

from typing import Any

from guilens.config import ConfigError
from guilens.llm.errors import LLMRequestError, clip
from guilens.llm.providers.base import Reply, SDKProvider, parse_body
from guilens.llm.providers.openai_translate import from_openai, to_openai

NO_KEY = "no-key"
"""What goes in the Authorization header to a local server when `OPENAI_API_KEY` is not set."""
DEFAULT_URL = "https://api.openai.com/v1"


def _error_text(err: Any) -> str:
    """The server's own message: OpenAI's `{"error": {"type", "message"}}`, vLLM's `{"message"}`, or the SDK's."""
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        nested = body.get("error")
        inner: dict[str, Any] = nested if isinstance(nested, dict) else body
        kind, msg = inner.get("type") or inner.get("code"), inner.get("message")
        if isinstance(nested, str) and not msg:
            msg = nested
        if msg:
            return clip(f"{kind}: {msg}" if kind else str(msg))
    return clip(str(getattr(err, "message", None) or err))


class OpenAIProvider(SDKProvider):
    name = "openai"
    unnamed_url = DEFAULT_URL

    def __init__(self, model: str, *, key: str | None, base_url: str, timeout: float,
                 tool_calls: bool = True) -> None:
        import openai  # lazy: the CLI must start fast

        self.model = model
        self.base_url: str | None = base_url
        self.timeout = timeout
        self.tool_calls = tool_calls
        self.where = "the OpenAI API" if base_url == DEFAULT_URL else f"the OpenAI-compatible server at {base_url}"
        self.keyed = bool(key)
        self._sdk_mod = openai
        self._sdk = openai.OpenAI(api_key=key or NO_KEY, base_url=base_url, max_retries=0, timeout=timeout)

    def body(self, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("tools") and not self.tool_calls:
            raise ConfigError(f"{self.where} is set to have no tool calling (openai_tool_calls = false): "
                              "use a text --format instead of tools")
        return to_openai(params, self.model)

    def send(self, body: dict[str, Any]) -> Reply:
        known = {k: v for k, v in body.items() if k in ("model", "messages", "max_tokens", "tools", "tool_choice",
                                                        "temperature")}
        extra = {k: v for k, v in body.items() if k not in known}
        raw = self._sdk.chat.completions.with_raw_response.create(**known, extra_body=extra or None)
        http = raw.http_response  # the httpx response: its body as received
        text = http.text
        data = from_openai(parse_body(text))
        request_id = http.headers.get("x-request-id") or http.headers.get("request-id")
        return Reply(data=data, raw=text, status=http.status_code, request_id=request_id)

    def error_text(self, err: Any) -> str:
        return _error_text(err)

    def refused(self, status: int, cause: str, who: str) -> LLMRequestError | None:
        if status == 401:
            fix = "check the key" if self.keyed else "set OPENAI_API_KEY (this server wants one)"
            what = "OPENAI_API_KEY" if self.keyed else "the request without a key"
            return LLMRequestError(f"{self.where} rejected {what} ({cause}): {fix}", status=status)
        if status == 404:
            return LLMRequestError(
                f"{who}: {self.where} answered 404 ({cause}): check the base URL (it usually ends in /v1) "
                "and the model name the server serves", status=status)
        return None
