"""A loopback HTTP server that plays the Anthropic Messages API, for tests.

It is a real HTTP server on 127.0.0.1 (random port, its own thread), so the real
`anthropic` SDK drives it through its base URL: retries, timeouts, headers and
JSON parsing are all exercised for real. Nothing leaves the machine.

Scripting answers
-----------------
Replies come from a queue (`push`) first, then from a callable (`handler`),
which gets the request body (a `Request`: a dict with helpers) and returns a reply.
A reply is a message dict (build it with `text`, `tool_use` or `message`; a bare
string is taken as `text(string)`), an
`ApiError` (`error(429, ..., retry_after=0.01)`) or a `Hang` (`hang(5)`). With
neither left, the server answers HTTP 400 "no scripted reply", which the client
does not retry, and notes it in `api.problems`.

    from tests import fakeapi
    from tests.fakeapi import text, tool_use

    fake_api = fakeapi.fake_api            # the pytest fixture (assigned, so ruff sees no F811)

    def test_judge(fake_api):              # env is set: ANTHROPIC_API_KEY, GUILENS_API_BASE_URL, cache dir
        fake_api.push(tool_use("verdict", {"decision": 1, "reason": "saved"}))
        fake_api.handler = lambda req: text("Success" if "Save" in req.text() else "Uncertain")
        ...                                # code under test calls LLMClient(...).create(...)
        req = fake_api.requests[0]         # every request received, faults included
        assert req["model"] == "claude-sonnet-4-6" and req.images()[0].size == (706, 1568)
        assert req.cache_breakpoints() == ["system[0]"]
        fake_api.assert_clean()            # no unscripted request, no handler crash

Outside pytest: `with FakeAnthropic() as api:` and point the client at `api.url`.

Faults
------
`FakeAnthropic(faults=Faults(rate=0.3, seed=1))` answers a seeded random 30% of
requests with a fault instead of consulting the script: 429 with `retry-after`,
500, 529 (overloaded), or a hang longer than the client timeout (`hang_s`).
More kinds, for `Faults(kinds=ALL_FAULTS)` or `fail_next`:
- `truncated`: HTTP 200 whose JSON body is cut short (`content-length` agrees:
  the HTTP message is whole, its JSON is not);
- `dropped`: HTTP 200 that announces the whole body, sends half and closes;
- `invalid`: HTTP 200 whose body is no message (an HTML page, JSON that is not a
  message, a message whose content is not a list), in turn;
- `badtool`: a well-formed message with no tool call, to a request that offers
  tools (the model "forgot" the tool); a request without tools gets no such
  fault: it is served as if no fault had been drawn, and not counted.
`api.fail_next("429", "hang", "500")` scripts faults for the next requests exactly.
A faulted request does not use up a scripted reply. `api.injected` lists the
faults served, in order, as `(request index, kind)`.

What the server checks
----------------------
Like the real API it answers 401 without a key (`x-api-key` or `Authorization: Bearer`), and 400 for a malformed body
(no model, bad `max_tokens`, empty or non-alternating messages, unknown block
types, undecodable images) and for the parameters the newest models refuse
(`temperature` on Opus 4.7+ and 5.x; a forced `tool_choice` with manual extended
thinking, `thinking: {"type": "enabled"}`).

Usage
-----
A scripted message without `usage` gets one estimated from the request (text:
4 characters a token; images: width x height / 750), with the prompt cache
emulated: the prefix up to the last `cache_control` breakpoint is a cache write
the first time the server sees it and a cache read afterwards.
"""

from __future__ import annotations

import base64
import io
import itertools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

import pytest

from tests import fakehttp
from tests.fakehttp import Hang, RawReply, Reply

FAKE_KEY = "sk-ant-test-not-a-real-key"


@dataclass
class ApiError(fakehttp.ApiError):
    status: int
    message: str
    type: str = ""
    retry_after: float | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        kinds = {
            400: "invalid_request_error",
            401: "authentication_error",
            403: "permission_error",
            404: "not_found_error",
            413: "request_too_large",
            429: "rate_limit_error",
            500: "api_error",
            529: "overloaded_error",
        }
        return {
            "type": "error",
            "error": {"type": self.type or kinds.get(self.status, "api_error"), "message": self.message},
        }

    def http_headers(self) -> dict[str, str]:
        return {**self.headers, **super().http_headers()}


# --- building replies ------------------------------------------------------------------------

_ids = itertools.count(1)


def usage(
    input_tokens: int = 100, output_tokens: int = 20, cache_read: int = 0, cache_write: int = 0
) -> dict[str, int]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_read_input_tokens": cache_read,
        "cache_creation_input_tokens": cache_write,
    }


def message(
    *blocks: dict[str, Any], stop_reason: str | None = None, usage: dict[str, int] | None = None
) -> dict[str, Any]:
    """A Messages API response; `model`, `id` and (when omitted) `usage` are filled in by the server."""
    if stop_reason is None:
        stop_reason = "tool_use" if any(b.get("type") == "tool_use" for b in blocks) else "end_turn"
    out: dict[str, Any] = {
        "type": "message",
        "role": "assistant",
        "content": list(blocks),
        "stop_reason": stop_reason,
        "stop_sequence": None,
    }
    if usage is not None:
        out["usage"] = usage
    return out


def text(s: str, *, stop_reason: str | None = None, usage: dict[str, int] | None = None) -> dict[str, Any]:
    return message({"type": "text", "text": s}, stop_reason=stop_reason, usage=usage)


def tool_use(
    name: str,
    input: dict[str, Any],
    *,
    preamble: str | None = None,
    id: str | None = None,
    usage: dict[str, int] | None = None,
) -> dict[str, Any]:
    """A reply calling tool `name` with `input`, optionally after some text."""
    blocks: list[dict[str, Any]] = []
    if preamble:
        blocks.append({"type": "text", "text": preamble})
    blocks.append(
        {"type": "tool_use", "id": id or f"toolu_fake_{next(_ids):04d}", "name": name, "input": input}
    )
    return message(*blocks, usage=usage)


def error(status: int, message: str = "", *, type: str = "", retry_after: float | None = None) -> ApiError:
    return ApiError(status, message or f"fake error {status}", type, retry_after)


def hang(seconds: float) -> Hang:
    return Hang(seconds)


# --- requests as received --------------------------------------------------------------------


class Request(fakehttp.Request):
    """A request body as received, plus what the server did with it and helpers to inspect it."""

    def _blocks(self) -> Iterator[tuple[str, dict[str, Any]]]:
        system = self.get("system")
        if isinstance(system, str):
            yield "system", {"type": "text", "text": system}
        elif isinstance(system, list):
            for i, b in enumerate(system):
                yield f"system[{i}]", b
        for mi, msg in enumerate(self.get("messages") or []):
            content = msg.get("content")
            if isinstance(content, str):
                yield f"messages[{mi}]", {"type": "text", "text": content}
                continue
            for bi, b in enumerate(content or []):
                yield f"messages[{mi}].content[{bi}]", b
                if b.get("type") == "tool_result" and isinstance(b.get("content"), list):
                    for ci, c in enumerate(b["content"]):
                        yield f"messages[{mi}].content[{bi}].content[{ci}]", c

    def text(self) -> str:
        """Every text the request carries: system, messages, tool results (not images)."""
        parts: list[str] = []
        for _, b in self._blocks():
            if b.get("type") == "text":
                parts.append(str(b.get("text", "")))
            elif b.get("type") == "tool_result" and isinstance(b.get("content"), str):
                parts.append(b["content"])
        return "\n".join(parts)

    def system_text(self) -> str:
        return "\n".join(str(b.get("text", "")) for where, b in self._blocks() if where.startswith("system"))

    def last_user_text(self) -> str:
        msgs = self.get("messages") or []
        if not msgs:
            return ""
        last = Request({"messages": [msgs[-1]]})
        return last.text()

    def images(self) -> list[Any]:
        """The images sent, decoded (PIL images), in order."""
        from PIL import Image

        out = []
        for _, b in self._blocks():
            if b.get("type") == "image" and b.get("source", {}).get("type") == "base64":
                out.append(Image.open(io.BytesIO(base64.b64decode(b["source"]["data"]))))
        return out

    def cache_breakpoints(self) -> list[str]:
        """Where `cache_control` markers are: `tools[2]`, `system[0]`, `messages[1].content[0]`."""
        found = [f"tools[{i}]" for i, t in enumerate(self.get("tools") or []) if "cache_control" in t]
        found += [where for where, b in self._blocks() if "cache_control" in b]
        return found

    def tool_names(self) -> list[str]:
        return [t.get("name", "") for t in self.get("tools") or []]


# --- the server ------------------------------------------------------------------------------


ALL_FAULTS = ("429", "500", "529", "hang", "truncated", "dropped", "invalid", "badtool")
"""Every fault kind the server can inject (the default `Faults.kinds` is the first four)."""


@dataclass
class Faults(fakehttp.Faults):
    """Fault injection: a seeded random fraction `rate` of requests fail with one of `kinds`."""

    kinds: tuple[str, ...] = ("429", "500", "529", "hang")


_NO_SAMPLING = (
    "claude-opus-4-7",
    "claude-opus-4-8",
    "claude-opus-5",
    "claude-sonnet-5",
    "claude-haiku-5",
    "claude-fable",
    "claude-mythos",
)
_BLOCK_TYPES = {"text", "image", "tool_use", "tool_result", "thinking", "redacted_thinking", "document"}


class FakeAnthropic(fakehttp.FakeServer):
    label = "fake API"
    endpoint = "/v1/messages"
    thread_name = "fakeapi"
    all_faults = ALL_FAULTS
    tool_fault = "badtool"
    rate_limit_message = "Number of request tokens has exceeded your rate limit"
    server_error_message = "Internal server error"
    secret_headers = ("x-api-key", "authorization")
    request_id_header = "request-id"
    request_id_prefix = "req_fake_"
    request_type = Request

    requests: list[Request]

    def __init__(
        self,
        replies: list[Reply] | None = None,
        *,
        handler: Callable[[Request], Reply] | None = None,
        faults: Faults | None = None,
        strict: bool = True,
    ) -> None:
        super().__init__(replies, handler, faults or Faults(), strict)
        self._seen_prefixes: set[str] = set()

    def env(self) -> dict[str, str]:
        """Environment for a client (or a `guilens` subprocess) that should talk to this server."""
        return {"ANTHROPIC_API_KEY": FAKE_KEY, "GUILENS_API_BASE_URL": self.url}

    def _error(self, status: int, message: str, retry_after: float | None = None) -> ApiError:
        return error(status, message, retry_after=retry_after)

    def _text(self, s: str) -> dict[str, Any]:
        return text(s)

    def _auth_error(self, headers: Message) -> str | None:
        if headers.get("x-api-key") or (headers.get("authorization") or "").startswith("Bearer "):
            return None
        return "x-api-key or Authorization: Bearer header is required"

    def _check(self, req: Request) -> str | None:
        return _invalid(req)

    def _fault(self, req: Request, fault: str) -> Reply:
        """A 200 that is broken the way `fault` says (see the module docstring), or an error or a hang."""
        if fault == "529":
            return error(529, "Overloaded")
        if fault == "badtool":
            return text("I would tap the button now.")
        if fault not in ("truncated", "dropped", "invalid"):
            return super()._fault(req, fault)
        whole = json.dumps(self._complete(req, text("a reply that never arrives whole"))).encode()
        if fault == "truncated":
            return RawReply(whole[: len(whole) // 2])
        if fault == "dropped":
            return RawReply(whole[: len(whole) // 2], announce=len(whole))
        self._invalid_turn += 1
        turn = self._invalid_turn % 3
        if turn == 1:
            return RawReply(b"<html><body>502 Bad Gateway</body></html>", content_type="text/html")
        if turn == 2:
            return RawReply(b'{"unexpected": true}')
        body = self._complete(req, text("x"))
        body["content"] = "not a list of blocks"
        return RawReply(json.dumps(body).encode())

    def _complete(self, req: Request, reply: dict[str, Any]) -> dict[str, Any]:
        out = json.loads(json.dumps(reply))
        out.setdefault("id", f"msg_fake_{next(_ids):06d}")
        out.setdefault("type", "message")
        out.setdefault("role", "assistant")
        out.setdefault("model", req.get("model", "claude-fake"))
        out.setdefault("stop_sequence", None)
        out.setdefault("stop_reason", "end_turn")
        if "usage" not in out:
            with self._lock:
                out["usage"] = self._estimate_usage(req, out)
        return out

    def _estimate_usage(self, req: Request, reply: dict[str, Any]) -> dict[str, int]:
        parts: list[tuple[Any, bool]] = []  # (piece, is a breakpoint)
        for t in req.get("tools") or []:
            parts.append((t, "cache_control" in t))
        system = req.get("system")
        for b in [{"type": "text", "text": system}] if isinstance(system, str) else (system or []):
            parts.append((b, "cache_control" in b))
        for m in req.get("messages") or []:
            content = m.get("content")
            for b in [{"type": "text", "text": content}] if isinstance(content, str) else (content or []):
                parts.append((b, "cache_control" in b))
        last_bp = max((i for i, (_, bp) in enumerate(parts) if bp), default=-1)
        prefix = sum(_tokens(p) for p, _ in parts[: last_bp + 1])
        rest = sum(_tokens(p) for p, _ in parts[last_bp + 1 :])
        read = write = 0
        if last_bp >= 0:
            key = json.dumps([req.get("model"), [p for p, _ in parts[: last_bp + 1]]], sort_keys=True)
            if key in self._seen_prefixes:
                read = prefix
            else:
                self._seen_prefixes.add(key)
                write = prefix
        else:
            rest += prefix
        out_tokens = max(1, len(json.dumps(reply.get("content", []))) // 4)
        return usage(input_tokens=max(1, rest), output_tokens=out_tokens, cache_read=read, cache_write=write)


def _tokens(block: Any) -> int:
    if isinstance(block, dict) and block.get("type") == "image":
        try:
            from PIL import Image

            img = Image.open(io.BytesIO(base64.b64decode(block["source"]["data"])))
            return max(1, img.width * img.height // 750)
        except Exception:
            return 1
    return max(1, len(json.dumps(block)) // 4)


def _invalid(req: Request) -> str | None:
    """What the real API would refuse in this body, or None."""
    model = req.get("model")
    if not isinstance(model, str) or not model:
        return "model: Field required"
    mt = req.get("max_tokens")
    if not isinstance(mt, int) or mt < 1:
        return "max_tokens: must be a positive integer"
    msgs = req.get("messages")
    if not isinstance(msgs, list) or not msgs:
        return "messages: at least one message is required"
    if msgs[0].get("role") != "user":
        return 'messages: first message must use the "user" role'
    for i, (a, b) in enumerate(itertools.pairwise(msgs)):
        if a.get("role") == b.get("role"):
            return f'messages: roles must alternate between "user" and "assistant" (messages.{i + 1})'
    for where, b in req._blocks():
        kind = b.get("type")
        if kind not in _BLOCK_TYPES:
            return f"{where}.type: unknown content block type {kind!r}"
        if kind == "text" and not b.get("text"):
            return f"{where}: text content blocks must be non-empty"
        if kind == "image":
            src = b.get("source") or {}
            try:
                from PIL import Image

                img = Image.open(io.BytesIO(base64.b64decode(src.get("data", ""), validate=True)))
                fmt = (img.format or "").lower()
            except Exception:
                return f"{where}.source: image data is not a valid base64 image"
            if src.get("media_type") != f"image/{fmt}":
                return f"{where}.source.media_type: {src.get('media_type')} does not match the data ({fmt})"
            if max(img.size) > 8000:
                return f"{where}: image dimensions exceed max allowed size: 8000 pixels"
    for i, t in enumerate(req.get("tools") or []):
        if not t.get("name") or "input_schema" not in t:
            return f"tools.{i}: a custom tool needs name and input_schema"
    if "temperature" in req and model.startswith(_NO_SAMPLING):
        return "`temperature` is deprecated for this model."
    choice = (req.get("tool_choice") or {}).get("type")
    thinking = req.get("thinking") if isinstance(req.get("thinking"), dict) else {}
    if choice in ("any", "tool") and thinking.get("type") == "enabled":
        return "Thinking may not be enabled when tool_choice forces tool use."
    if choice and not req.get("tools"):
        return "tool_choice may only be specified while providing tools"
    return None


@pytest.fixture
def fake_api(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Iterator[FakeAnthropic]:
    """A started server, with the environment pointing guilens at it (key, base URL, a fresh cache dir)."""
    yield from fakehttp.serve_in_env(FakeAnthropic(), monkeypatch, tmp_path, "ANTHROPIC_BASE_URL")
