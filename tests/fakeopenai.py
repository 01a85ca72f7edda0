"""A loopback HTTP server that plays the OpenAI chat-completions API (as vLLM, SGLang, llama.cpp serve it).

It is a real HTTP server on 127.0.0.1 (random port, its own thread), so the
real `openai` SDK drives it through its base URL (`.url`, ending in `/v1`):
retries, timeouts, headers and JSON parsing are all exercised for real.

Scripting answers
-----------------
Replies come from a queue (`push`) first, then from a callable (`handler`),
which gets the request (a `Request`: the body as a dict, `.raw` the bytes as
received, and helpers) and returns a reply: a completion dict (build it with
`text`, `tool_call`, `raw_args` or `completion`; a bare string is `text(s)`),
an `ApiError` (`error(429, retry_after=0.01)`), a `Hang` (`hang(5)`) or a
`RawReply` (bytes as they are). With neither left, the server answers 400
"no scripted reply" and notes it in `problems`.

    from tests import fakeopenai
    from tests.fakeopenai import text, tool_call

    fake_openai = fakeopenai.fake_openai     # the pytest fixture

    def test_it(fake_openai):                # env set: OPENAI_API_KEY, GUILENS_OPENAI_BASE_URL, cache dir
        fake_openai.push(tool_call("act", {"action": {"type": "home"}}))
        fake_openai.handler = lambda req: text("Success" if "Save" in req.text() else "Uncertain")
        ...                                  # code under test: make_client("openai:qwen", ...).create(...)
        req = fake_openai.requests[0]
        assert req.image_count() == 1 and req["tool_choice"]["function"]["name"] == "act"
        fake_openai.assert_clean()

Outside pytest: `with FakeOpenAI() as api:` and point the client at `api.url`.

Faults
------
`FakeOpenAI(faults=Faults(rate=0.3, seed=1))` answers a seeded random 30% of
requests with a fault instead of the script; `Faults(kinds=ALL_FAULTS)` draws
from every kind, `fail_next("429", "badargs")` scripts the next ones:
- `429` (with `retry-after`), `500`, `503`;
- `hang`: no answer for `hang_s` (make it longer than the client's timeout);
- `truncated`: HTTP 200 whose JSON body is cut short (content-length agrees);
- `invalid`: HTTP 200 whose body is no completion (an HTML page, JSON with no
  `choices`), in turn;
- `badargs`: a completion whose tool call's arguments are not JSON, to a
  request that offers tools (a request without tools is served as usual, and
  the fault is not counted).
A faulted request does not use up a scripted reply. `injected` lists the
faults served, in order, as `(request index, kind)`.

What the server checks (strict, the default)
--------------------------------------------
401 without `Authorization: Bearer <key>` when `key` is set (None: any or no
key, as a local vLLM); 400 for a body the real API refuses: no model or
messages, an unknown role, a content part of an unknown type, an image that is
not a decodable data URL (or an http URL), a `tool` message that does not
answer a preceding assistant tool call, `tool_choice` without `tools`, or a
forced function that is not among the tools.

Usage is estimated when a scripted reply has none: text 4 characters a token,
images width x height / 750.
"""

from __future__ import annotations

import base64
import io
import itertools
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.message import Message
from typing import Any

import pytest

from tests import fakehttp
from tests.fakehttp import Hang, RawReply, Reply

FAKE_OPENAI_KEY = "sk-openai-test-not-a-real-key"


@dataclass
class ApiError(fakehttp.ApiError):
    status: int
    message: str
    retry_after: float | None = None

    def body(self) -> dict[str, Any]:
        kinds = {400: "invalid_request_error", 401: "invalid_api_key", 404: "not_found_error",
                 429: "rate_limit_exceeded", 500: "server_error", 503: "service_unavailable"}
        return {"error": {"message": self.message, "type": kinds.get(self.status, "server_error"), "param": None,
                          "code": None}}


_ids = itertools.count(1)


# --- building replies ------------------------------------------------------------------------


def completion(content: str | None = None, tool_calls: list[dict[str, Any]] | None = None, *,
               finish_reason: str | None = None, usage: dict[str, int] | None = None) -> dict[str, Any]:
    """A chat completion; `id`, `model`, `created` and (when omitted) `usage` are filled in by the server."""
    msg: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        msg["tool_calls"] = tool_calls
    if finish_reason is None:
        finish_reason = "tool_calls" if tool_calls else "stop"
    out: dict[str, Any] = {"object": "chat.completion",
                           "choices": [{"index": 0, "message": msg, "finish_reason": finish_reason}]}
    if usage is not None:
        out["usage"] = usage
    return out


def text(s: str, *, finish_reason: str | None = None, usage: dict[str, int] | None = None) -> dict[str, Any]:
    return completion(s, finish_reason=finish_reason, usage=usage)


def _call(name: str, arguments: str, id: str | None = None) -> dict[str, Any]:
    return {"id": id or f"call_fake_{next(_ids):04d}", "type": "function",
            "function": {"name": name, "arguments": arguments}}


def tool_call(name: str, args: dict[str, Any], *, content: str | None = None, id: str | None = None,
              usage: dict[str, int] | None = None) -> dict[str, Any]:
    """A reply calling function `name` with `args` (sent as a JSON string, as the API does)."""
    return completion(content, [_call(name, json.dumps(args), id)], usage=usage)


def raw_args(name: str, arguments: str, *, id: str | None = None) -> dict[str, Any]:
    """A reply calling `name` with `arguments` exactly as given (e.g. not JSON)."""
    return completion(None, [_call(name, arguments, id)])


def usage(prompt_tokens: int = 100, completion_tokens: int = 20, cached: int = 0) -> dict[str, Any]:
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens, "prompt_tokens_details": {"cached_tokens": cached}}


def error(status: int, message: str = "", *, retry_after: float | None = None) -> ApiError:
    return ApiError(status, message or f"fake error {status}", retry_after)


def hang(seconds: float) -> Hang:
    return Hang(seconds)


# --- requests as received --------------------------------------------------------------------


class Request(fakehttp.Request):
    """A request body as received (`raw`: the bytes), plus what the server did with it, and helpers."""

    def parts(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every content part (`messages[i].content[j]`, or a whole string content as a text part)."""
        for mi, msg in enumerate(self.get("messages") or []):
            content = msg.get("content")
            if isinstance(content, str):
                yield f"messages[{mi}]", {"type": "text", "text": content}
            elif isinstance(content, list):
                for pi, p in enumerate(content):
                    yield f"messages[{mi}].content[{pi}]", p

    def texts(self) -> list[str]:
        return [str(p.get("text", "")) for _, p in self.parts() if p.get("type") == "text"]

    def text(self) -> str:
        """Every text the request carries (system, user, assistant, tool messages), not images."""
        return "\n".join(self.texts())

    def system_text(self) -> str:
        return "\n".join(str(m.get("content") or "") for m in self.get("messages") or [] if m.get("role") == "system")

    def last_user_text(self) -> str:
        users = [m for m in self.get("messages") or [] if m.get("role") == "user"]
        return Request({"messages": users[-1:]}).text() if users else ""

    def image_urls(self) -> list[str]:
        return [str((p.get("image_url") or {}).get("url", "")) for _, p in self.parts() if p.get("type") == "image_url"]

    def image_count(self) -> int:
        return len(self.image_urls())

    def images(self) -> list[Any]:
        """The images sent, decoded (PIL images), in order."""
        from PIL import Image

        return [Image.open(io.BytesIO(base64.b64decode(u.split(";base64,", 1)[1]))) for u in self.image_urls()
                if u.startswith("data:")]

    def tool_names(self) -> list[str]:
        return [str((t.get("function") or {}).get("name", "")) for t in self.get("tools") or []]


# --- the server ------------------------------------------------------------------------------

ALL_FAULTS = ("429", "500", "503", "hang", "truncated", "invalid", "badargs")


@dataclass
class Faults(fakehttp.Faults):
    kinds: tuple[str, ...] = ("429", "500", "503", "hang")


_PART_TYPES = {"text", "image_url", "input_audio", "file"}
_ROLES = {"system", "developer", "user", "assistant", "tool"}


class FakeOpenAI(fakehttp.FakeServer):
    label = "fake OpenAI"
    endpoint = "/v1/chat/completions"
    url_path = "/v1"
    thread_name = "fakeopenai"
    all_faults = ALL_FAULTS
    tool_fault = "badargs"
    rate_limit_message = "Rate limit reached for requests"
    server_error_message = "The server had an error while processing your request"
    secret_headers = ("authorization", "api-key")
    request_id_header = "x-request-id"
    request_id_prefix = "req_fakeoai_"
    request_type = Request

    requests: list[Request]

    def __init__(self, replies: list[Reply] | None = None, *, handler: Callable[[Request], Reply] | None = None,
                 faults: Faults | None = None, strict: bool = True, key: str | None = FAKE_OPENAI_KEY) -> None:
        super().__init__(replies, handler, faults or Faults(), strict)
        self.key = key
        """The key the server wants as `Authorization: Bearer`; None: any, or none (a local server)."""

    def env(self) -> dict[str, str]:
        """Environment for a client (or a `guilens` subprocess) that should talk to this server."""
        out = {"GUILENS_OPENAI_BASE_URL": self.url}
        if self.key:
            out["OPENAI_API_KEY"] = self.key
        return out

    def _error(self, status: int, message: str, retry_after: float | None = None) -> ApiError:
        return error(status, message, retry_after=retry_after)

    def _text(self, s: str) -> dict[str, Any]:
        return text(s)

    def _auth_error(self, headers: Message) -> str | None:
        if self.key is not None and (headers.get("authorization") or "") != f"Bearer {self.key}":
            return "Incorrect API key provided"
        return None

    def _check(self, req: Request) -> str | None:
        return _invalid(req)

    def _fault(self, req: Request, fault: str) -> Reply:
        if fault == "badargs":
            name = str(((req.get("tools") or [{}])[0].get("function") or {}).get("name", "act"))
            return raw_args(name, '{"action": {"type": "tap", "x": 10,')
        if fault == "truncated":
            whole = json.dumps(self._complete(req, text("a reply that never arrives whole"))).encode()
            return RawReply(whole[: len(whole) // 2])
        if fault != "invalid":
            return super()._fault(req, fault)
        self._invalid_turn += 1
        if self._invalid_turn % 2:
            return RawReply(b"<html><body>502 Bad Gateway</body></html>", content_type="text/html")
        return RawReply(b'{"object": "chat.completion", "unexpected": true}')

    def _complete(self, req: Request, reply: dict[str, Any]) -> dict[str, Any]:
        out = json.loads(json.dumps(reply))
        out.setdefault("id", f"chatcmpl-fake{next(_ids):06d}")
        out.setdefault("object", "chat.completion")
        out.setdefault("created", int(time.time()))
        out.setdefault("model", req.get("model", "fake-model"))
        if "usage" not in out:
            prompt = sum(_tokens(p) for _, p in req.parts()) + len(json.dumps(req.get("tools") or [])) // 4
            done = max(1, len(json.dumps(out.get("choices", []))) // 4)
            out["usage"] = usage(prompt_tokens=max(1, prompt), completion_tokens=done)
        return out


def _tokens(part: dict[str, Any]) -> int:
    if part.get("type") == "image_url":
        try:
            from PIL import Image

            url = str((part.get("image_url") or {}).get("url", ""))
            img = Image.open(io.BytesIO(base64.b64decode(url.split(";base64,", 1)[1])))
            return max(1, img.width * img.height // 750)
        except Exception:
            return 1
    return max(1, len(str(part.get("text", ""))) // 4)


def _invalid(req: Request) -> str | None:
    """What the real API would refuse in this body, or None."""
    if not isinstance(req.get("model"), str) or not req["model"]:
        return "you must provide a model parameter"
    msgs = req.get("messages")
    if not isinstance(msgs, list) or not msgs:
        return "'messages' must be a non-empty array"
    open_calls: set[str] = set()
    for i, m in enumerate(msgs):
        role = m.get("role")
        if role not in _ROLES:
            return f"messages[{i}].role: {role!r} is not one of {sorted(_ROLES)}"
        if role == "assistant":
            open_calls = {str(c.get("id")) for c in m.get("tool_calls") or []}
            if m.get("content") is None and not m.get("tool_calls"):
                return f"messages[{i}]: an assistant message needs content or tool_calls"
        elif role == "tool":
            if m.get("tool_call_id") not in open_calls:
                return (f"messages[{i}]: messages with role 'tool' must be a response to a preceding message "
                        "with 'tool_calls'")
        else:
            open_calls = set()
        content = m.get("content")
        for j, p in enumerate(content if isinstance(content, list) else []):
            if p.get("type") not in _PART_TYPES:
                return f"messages[{i}].content[{j}].type: unknown content part type {p.get('type')!r}"
            if p.get("type") == "image_url":
                url = str((p.get("image_url") or {}).get("url", ""))
                if url.startswith("data:"):
                    try:
                        from PIL import Image

                        Image.open(io.BytesIO(base64.b64decode(url.split(";base64,", 1)[1], validate=True)))
                    except Exception:
                        return f"messages[{i}].content[{j}].image_url: the data URL is not a decodable image"
                elif not url.startswith(("http://", "https://")):
                    return f"messages[{i}].content[{j}].image_url.url: not a URL"
    tools = req.get("tools") or []
    names = set()
    for i, t in enumerate(tools):
        fn = t.get("function") or {}
        if t.get("type") != "function" or not fn.get("name"):
            return f"tools[{i}]: a function tool needs type 'function' and function.name"
        names.add(fn["name"])
    choice = req.get("tool_choice")
    if choice is not None and not tools:
        return "'tool_choice' is only allowed when 'tools' are specified"
    if isinstance(choice, dict):
        forced = (choice.get("function") or {}).get("name")
        if forced not in names:
            return f"tool_choice: function {forced!r} is not among the tools"
    return None


@pytest.fixture
def fake_openai(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Iterator[FakeOpenAI]:
    """A started server, with the environment pointing guilens's openai provider at it."""
    yield from fakehttp.serve_in_env(FakeOpenAI(), monkeypatch, tmp_path, "OPENAI_BASE_URL")
