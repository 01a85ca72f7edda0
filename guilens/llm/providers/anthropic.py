"""The Anthropic Messages API provider: the canonical request goes out nearly as is.

What it adds: the prompt-cache breakpoint at the end of the unchanging prefix,
and the model quirks the API enforces. Opus 4.7 and every 5.x model refuse
`temperature`, so it is dropped for them. Forced tool choice (`any`/`tool`) is
refused only together with manual extended thinking (`thinking: {"type":
"enabled"}`): the API answers "Thinking may not be enabled when tool_choice
forces tool use", while adaptive thinking and no thinking both take a forced
choice (Anthropic's docs, "Thinking in tool and multi-turn workflows"). So the
choice is turned into `auto` exactly then, and every model, the default one
included, otherwise gets the forced call it was asked for.

Each try uses the SDK's raw-response form, so the body is kept exactly as
received for the call record, and is read here rather than by the SDK (which
does not validate replies, and hands back a `str` or a half-empty message for a
200 that is not one).
"""

from __future__ import annotations

import inspect
from typing import Any

from guilens.llm.errors import LLMRequestError, Unreadable, clip
from guilens.llm.prices import model_caps
from guilens.llm.providers.base import Reply, SDKProvider, clean_block, clean_messages, parse_body

_EPHEMERAL = {"type": "ephemeral"}


def _has_cache_control(blocks: list[dict[str, Any]]) -> bool:
    return any(isinstance(b, dict) and "cache_control" in b for b in blocks)


def mark_prefix(system: str | list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> tuple[Any, Any]:
    """Put a cache breakpoint at the end of the unchanging prefix (tools, then system).

    Blocks that already carry `cache_control` are the caller's choice and are left alone.
    """
    sys_blocks: list[dict[str, Any]] = (
        [{"type": "text", "text": system}] if isinstance(system, str) else [dict(b) for b in system])
    sys_blocks = [b for b in sys_blocks if b.get("type") != "text" or b.get("text")]
    tool_list = [dict(t) for t in tools] if tools else None
    if _has_cache_control(sys_blocks) or (tool_list and _has_cache_control(tool_list)):
        return sys_blocks, tool_list
    if sys_blocks:
        sys_blocks[-1]["cache_control"] = dict(_EPHEMERAL)
    elif tool_list:
        tool_list[-1]["cache_control"] = dict(_EPHEMERAL)
    return sys_blocks, tool_list


def forced_refused(params: dict[str, Any]) -> bool:
    """Whether the API would refuse a forced tool choice in this request: manual extended thinking is on."""
    thinking = params.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") == "enabled"


def reply_data(message: Any) -> dict[str, Any]:
    """A 200's body (parsed JSON, or the SDK's object for it) as the reply's dict; `Unreadable` when it
    is no message.

    The checks are the ones the callers rely on (`content` a list of typed blocks, tool calls with a
    name and an object input), not a full schema, so a newer API's extra fields pass.
    """
    if isinstance(message, str | bytes):
        shown = message.decode(errors="replace") if isinstance(message, bytes) else message
        raise Unreadable(f"HTTP 200 but the body is not JSON: {clip(shown, 80)!r}")
    if hasattr(message, "model_dump") and not isinstance(message, dict):
        if getattr(message, "type", None) == "message" and not isinstance(getattr(message, "content", None), list):
            kind = type(getattr(message, "content", None)).__name__
            raise Unreadable(f"HTTP 200 but the message's content is a {kind}, not a list of blocks")
        message = message.model_dump(mode="json", exclude_none=True, warnings=False)
    if not isinstance(message, dict):
        raise Unreadable(f"HTTP 200 but the body is not a message (a JSON {type(message).__name__})")
    if message.get("type") != "message":
        keys = sorted(k for k, v in message.items() if v is not None)
        what = f"keys {', '.join(keys[:8])}" if keys else "none of its keys"
        raise Unreadable(f"HTTP 200 but the body is not a message (JSON with {what})")
    if not isinstance(message.get("content"), list):
        kind = type(message.get("content")).__name__
        raise Unreadable(f"HTTP 200 but the message's content is a {kind}, not a list of blocks")
    data = {k: v for k, v in message.items() if v is not None}
    for i, block in enumerate(data["content"]):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise Unreadable(f"HTTP 200 but content[{i}] of the message is not a content block")
        if block["type"] == "tool_use" and not (isinstance(block.get("name"), str)
                                                and isinstance(block.get("input"), dict)):
            raise Unreadable(f"HTTP 200 but content[{i}], a tool_use block, has no name or no object input")
    return data


class AnthropicProvider(SDKProvider):
    name = "anthropic"
    unnamed_url = "the Anthropic API"

    def __init__(self, model: str, *, key: str, base_url: str | None, timeout: float) -> None:
        import anthropic  # lazy: the CLI must start fast

        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        self.where = "the Anthropic API"
        self.caps = model_caps(model)
        self._sdk_mod = anthropic
        accepted = inspect.signature(anthropic.resources.messages.Messages.create).parameters
        self._sdk_params = frozenset(n for n in accepted if n not in ("self", "extra_body", "extra_headers"))
        self._sdk = anthropic.Anthropic(api_key=key, base_url=base_url, max_retries=0, timeout=timeout)

    def body(self, params: dict[str, Any]) -> dict[str, Any]:
        system = params.get("system") or []
        tools = params.get("tools")
        if params.get("cache_prefix", True):
            sys_blocks, tool_list = mark_prefix(system, tools)
        else:
            sys_blocks = [{"type": "text", "text": system}] if isinstance(system, str) else list(system)
            tool_list = list(tools) if tools else None
        body: dict[str, Any] = {"model": self.model, "max_tokens": params.get("max_tokens", 1024),
                                "messages": clean_messages(params["messages"])}
        if sys_blocks:
            body["system"] = [clean_block(b) for b in sys_blocks]
        extra = dict(params.get("extra") or {})
        if tool_list:
            body["tools"] = tool_list
            choice = params.get("tool_choice")
            if choice is not None:
                if choice.get("type") in ("any", "tool") and (forced_refused(extra) or not self.caps.forced_tool_choice):
                    choice = {"type": "auto"}
                body["tool_choice"] = choice
        temperature = params.get("temperature")
        if temperature is not None and self.caps.sampling:
            body["temperature"] = temperature
        body.update(extra)
        return body

    def send(self, body: dict[str, Any]) -> Reply:
        # Parameters this SDK version has no keyword for (`temperature` in 2.x) go in the body as-is.
        known = {k: v for k, v in body.items() if k in self._sdk_params}
        extra = {k: v for k, v in body.items() if k not in self._sdk_params}
        raw = self._sdk.messages.with_raw_response.create(**known, extra_body=extra or None)
        http = raw.http_response  # the httpx response: its body as received
        text = http.text
        data = reply_data(parse_body(text))
        request_id = http.headers.get("request-id") or getattr(raw, "request_id", None)
        return Reply(data=data, raw=text, status=http.status_code, request_id=request_id)

    def refused(self, status: int, cause: str, who: str) -> LLMRequestError | None:
        if status == 401:
            return LLMRequestError(f"{self.where} rejected ANTHROPIC_API_KEY ({cause}): check the key", status=status)
        return None
