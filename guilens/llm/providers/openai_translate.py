"""Canonical (Messages API) requests to OpenAI chat completions and back, as pure functions.

Requests:
- `system` (a string or text blocks) becomes one `system` message, its blocks
  joined by a blank line (several OpenAI-compatible chat templates take only a
  string there);
- text blocks become `text` parts, images `image_url` parts holding a data URL;
- an assistant turn's `tool_use` blocks become its `tool_calls` (the arguments
  as received when the model's were not valid JSON, so the model sees its own
  reply), its text the `content`, thinking blocks are dropped;
- `tool_result` blocks become `tool` messages right after that assistant turn
  (as the API requires), and the rest of the user turn follows as a `user`
  message; an image in a tool result goes there too, since a `tool` message
  carries text only;
- tools become `{"type": "function", "function": {name, description,
  parameters}}`; tool choice `tool` is forced as `{"type": "function",
  "function": {"name": ...}}`, `any` as `required`;
- `cache_control` markers are Anthropic's and are dropped.

Replies: the first choice's message becomes content blocks: a `text` block, a
`tool_use` block per tool call (arguments parsed from JSON). Arguments that are
not a JSON object are a reply the model can be told about, not a crash: the
block gets an empty `input`, the arguments as received (`_arguments`) and what
is wrong (`_error`), and `ToolCall.error` carries it to the caller.
`finish_reason` maps to `stop_reason` (`length` -> `max_tokens`, `tool_calls`
-> `tool_use`), and usage to Anthropic's names (cached prompt tokens as cache
reads, the rest as input).
"""

from __future__ import annotations

import json
from typing import Any

from guilens.llm.errors import Unreadable, clip

_STOP = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use", "function_call": "tool_use",
         "content_filter": "refusal"}


def image_url(block: dict[str, Any]) -> str:
    src = block.get("source") or {}
    if src.get("type") == "url":
        return str(src.get("url", ""))
    return f"data:{src.get('media_type', 'image/png')};base64,{src.get('data', '')}"


def _part(block: dict[str, Any]) -> dict[str, Any] | None:
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": str(block.get("text", ""))}
    if kind == "image":
        return {"type": "image_url", "image_url": {"url": image_url(block)}}
    return None


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def system_text(system: str | list[dict[str, Any]] | None) -> str:
    if not system:
        return ""
    if isinstance(system, str):
        return system
    return "\n\n".join(str(b.get("text", "")) for b in system if b.get("type") == "text" and b.get("text"))


def _assistant(content: Any) -> dict[str, Any]:
    if isinstance(content, str):
        return {"role": "assistant", "content": content}
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for b in content or []:
        kind = b.get("type")
        if kind == "text" and b.get("text"):
            texts.append(str(b["text"]))
        elif kind == "tool_use":
            args = b.get("_arguments")
            if not isinstance(args, str):
                args = json.dumps(b.get("input") or {}, ensure_ascii=False)
            calls.append({"id": str(b.get("id", "")), "type": "function",
                          "function": {"name": str(b.get("name", "")), "arguments": args}})
    msg: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts) if texts else None}
    if calls:
        msg["tool_calls"] = calls
    return msg


def _user(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"role": "user", "content": content}]
    out: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for b in content or []:
        if b.get("type") == "tool_result":
            inner = b.get("content")
            text = _text_of(inner)
            if b.get("is_error") and not text:
                text = "error"
            out.append({"role": "tool", "tool_call_id": str(b.get("tool_use_id", "")), "content": text})
            if isinstance(inner, list):
                parts += [p for p in (_part(c) for c in inner if c.get("type") == "image") if p]
            continue
        part = _part(b)
        if part is not None:
            parts.append(part)
    if parts:
        out.append({"role": "user", "content": parts})
    return out


def to_openai(params: dict[str, Any], model: str) -> dict[str, Any]:
    """The chat-completions body for a canonical request (`params`: system, messages, tools, ...)."""
    messages: list[dict[str, Any]] = []
    sys = system_text(params.get("system"))
    if sys:
        messages.append({"role": "system", "content": sys})
    for m in params["messages"]:
        if m.get("role") == "assistant":
            messages.append(_assistant(m.get("content")))
        else:
            messages += _user(m.get("content"))
    body: dict[str, Any] = {"model": model, "messages": messages, "max_tokens": params.get("max_tokens", 1024)}
    tools = params.get("tools")
    if tools:
        body["tools"] = [{"type": "function", "function": {
            "name": t["name"], **({"description": t["description"]} if t.get("description") else {}),
            "parameters": t.get("input_schema") or {"type": "object", "properties": {}}}} for t in tools]
        choice = params.get("tool_choice")
        if choice is not None:
            kind = choice.get("type")
            if kind == "tool":
                body["tool_choice"] = {"type": "function", "function": {"name": choice["name"]}}
            elif kind == "any":
                body["tool_choice"] = "required"
            elif kind in ("auto", "none"):
                body["tool_choice"] = kind
    if params.get("temperature") is not None:
        body["temperature"] = params["temperature"]
    body.update(params.get("extra") or {})
    return body


def _tool_use(call: Any, i: int) -> dict[str, Any]:
    if not isinstance(call, dict):
        raise Unreadable(f"HTTP 200 but tool_calls[{i}] is not an object")
    fn = call.get("function")
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
        raise Unreadable(f"HTTP 200 but tool_calls[{i}] has no function name")
    args = fn.get("arguments")
    block: dict[str, Any] = {"type": "tool_use", "id": str(call.get("id") or f"call_{i}"), "name": fn["name"]}
    if isinstance(args, dict):  # some servers send the object itself
        block["input"] = args
        return block
    try:
        value = json.loads(args) if isinstance(args, str) and args.strip() else {}
    except ValueError as err:
        block.update(input={}, _arguments=args, _error=f"the {fn['name']} call's arguments are not valid JSON "
                                                       f"({clip(str(err), 80)}): {clip(str(args), 120)!r}")
        return block
    if not isinstance(value, dict):
        block.update(input={}, _arguments=args,
                     _error=f"the {fn['name']} call's arguments are a JSON {type(value).__name__}, not an object")
        return block
    block["input"] = value
    return block


def from_openai(body: Any) -> dict[str, Any]:
    """A chat-completions reply (parsed JSON) in the canonical shape; `Unreadable` when it is none."""
    if not isinstance(body, dict):
        raise Unreadable(f"HTTP 200 but the body is not a chat completion (a JSON {type(body).__name__})")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        keys = sorted(k for k, v in body.items() if v is not None)
        raise Unreadable("HTTP 200 but the body is not a chat completion (no choices; "
                         f"JSON with {'keys ' + ', '.join(keys[:8]) if keys else 'none of its keys'})")
    msg = choices[0].get("message")
    if not isinstance(msg, dict):
        raise Unreadable("HTTP 200 but choices[0] has no message")
    content: list[dict[str, Any]] = []
    reasoning = msg.get("reasoning_content") or msg.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        content.append({"type": "thinking", "thinking": reasoning})
    text = msg.get("content")
    if isinstance(text, list):  # a few servers answer in parts
        text = "".join(str(p.get("text", "")) for p in text if isinstance(p, dict))
    if text is not None and not isinstance(text, str):
        raise Unreadable(f"HTTP 200 but the message's content is a {type(text).__name__}, not text")
    if text:
        content.append({"type": "text", "text": text})
    calls = msg.get("tool_calls") or []
    if not isinstance(calls, list):
        raise Unreadable("HTTP 200 but the message's tool_calls is not a list")
    content += [_tool_use(c, i) for i, c in enumerate(calls)]
    finish = choices[0].get("finish_reason")
    raw_usage = body.get("usage")
    u: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
    prompt = int(u.get("prompt_tokens") or 0)
    raw_details = u.get("prompt_tokens_details")
    details: dict[str, Any] = raw_details if isinstance(raw_details, dict) else {}
    cached = min(prompt, int(details.get("cached_tokens") or 0))
    return {
        "type": "message",
        "role": "assistant",
        "model": body.get("model"),
        "id": body.get("id"),
        "content": content,
        "stop_reason": _STOP.get(str(finish), finish) if finish is not None else None,
        "usage": {"input_tokens": prompt - cached, "output_tokens": int(u.get("completion_tokens") or 0),
                  "cache_read_input_tokens": cached},
    }
