"""What the loopback API servers of the tests share (`fakeapi`: Anthropic, `fakeopenai`: OpenAI).

A `FakeServer` is a real HTTP server on 127.0.0.1 (random port, its own thread) that records every
request, injects faults (scripted with `fail_next`, or a seeded random fraction), checks the body
(`strict`), and answers from a queue of scripted replies, then from a `handler`. A subclass says
what its API is: the endpoint, the key check, the body check, the faults beyond `429`/`hang`/5xx,
how an error and a message look, and how a scripted reply is completed (ids, usage).
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Self

import pytest


class ApiError:
    """An HTTP error reply; each API's dataclass says its fields and body."""

    status: int
    retry_after: float | None

    def body(self) -> dict[str, Any]:
        raise NotImplementedError

    def http_headers(self) -> dict[str, str]:
        return {"retry-after": f"{self.retry_after:g}"} if self.retry_after is not None else {}


@dataclass
class Hang:
    seconds: float


@dataclass
class RawReply:
    """An HTTP 200 answered byte for byte: `body` as given, `announce` as its content-length."""

    body: bytes
    content_type: str = "application/json"
    announce: int | None = None
    """A content-length larger than the body: the server sends the body and closes the connection."""


Reply = dict[str, Any] | str | ApiError | Hang | RawReply


@dataclass
class Faults:
    """Fault injection: a seeded random fraction `rate` of requests fail with one of `kinds`."""

    rate: float = 0.0
    kinds: tuple[str, ...] = ()
    retry_after: float = 0.01
    """Seconds the 429 asks the client to wait (sent as `retry-after`)."""
    hang_s: float = 3.0
    """How long a hang lasts; make it longer than the client's timeout."""
    seed: int = 0


class Request(dict[str, Any]):
    """A request body as received (`raw`: the bytes), plus what the server did with it."""

    index: int
    raw: bytes
    path: str
    headers: dict[str, str]
    outcome: str
    received_at: float


class FakeServer:
    label: ClassVar[str]
    """How problems and the server's own refusals name it: "fake API"."""
    endpoint: ClassVar[str]
    url_path: ClassVar[str] = ""
    thread_name: ClassVar[str]
    all_faults: ClassVar[tuple[str, ...]]
    tool_fault: ClassVar[str]
    """The fault that only a request offering tools can get (others are served as usual, not counted)."""
    rate_limit_message: ClassVar[str]
    server_error_message: ClassVar[str]
    secret_headers: ClassVar[tuple[str, ...]]
    request_id_header: ClassVar[str]
    request_id_prefix: ClassVar[str]
    request_type: ClassVar[type[Request]] = Request

    def __init__(self, replies: list[Reply] | None, handler: Callable[[Any], Reply] | None, faults: Faults,
                 strict: bool) -> None:
        self.queue: list[Reply] = list(replies or [])
        self.handler = handler
        self.faults = faults
        self.strict = strict
        self.requests: list[Any] = []
        self.problems: list[str] = []
        """Unscripted requests and handler crashes: `assert_clean` fails on any."""
        self.injected: list[tuple[int, str]] = []
        """Faults served, in order: (request index, kind)."""
        self._forced: list[str] = []
        self._invalid_turn = 0
        self._lock = threading.RLock()  # a handler may push replies
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None

    # -- what each API says --
    def _error(self, status: int, message: str, retry_after: float | None = None) -> ApiError:
        raise NotImplementedError

    def _text(self, s: str) -> dict[str, Any]:
        raise NotImplementedError

    def _auth_error(self, headers: Message) -> str | None:
        raise NotImplementedError

    def _check(self, req: Any) -> str | None:
        """What the real API would refuse in this body, or None."""
        raise NotImplementedError

    def _complete(self, req: Any, reply: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _fault(self, req: Any, fault: str) -> Reply:
        """The reply for `hang`, `429` and the 5xx kinds; a subclass answers its other kinds first."""
        if fault == "hang":
            return Hang(self.faults.hang_s)
        if fault == "429":
            return self._error(429, self.rate_limit_message, retry_after=self.faults.retry_after)
        return self._error(int(fault), self.server_error_message)

    @property
    def faults(self) -> Faults:
        return self._faults

    @faults.setter
    def faults(self, faults: Faults) -> None:
        """Setting a plan restarts its random sequence, so a test's faults do not depend on earlier requests."""
        self._faults = faults
        self._rng = random.Random(faults.seed)

    # -- life cycle --
    def start(self) -> Self:
        fake = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                fake._serve(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        threading.Thread(target=self._server.serve_forever, args=(0.02,), name=self.thread_name, daemon=True).start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def url(self) -> str:
        assert self._server is not None, "start the server first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}{self.url_path}"

    def env(self) -> dict[str, str]:
        """Environment for a client (or a `guilens` subprocess) that should talk to this server."""
        raise NotImplementedError

    # -- scripting --
    def push(self, *replies: Reply) -> None:
        with self._lock:
            self.queue.extend(replies)

    def fail_next(self, *kinds: str) -> None:
        """Fault the next requests, in order, with kinds of `all_faults` (ahead of the random ones)."""
        unknown = [k for k in kinds if k not in self.all_faults]
        assert not unknown, f"unknown fault kinds {unknown}; choose from {self.all_faults}"
        with self._lock:
            self._forced.extend(kinds)

    @property
    def served(self) -> list[Any]:
        """Requests answered with a reply of the API (not faulted, not refused)."""
        return [r for r in self.requests if r.outcome == "ok"]

    def assert_clean(self) -> None:
        assert not self.problems, f"{self.label} problems:\n" + "\n".join(self.problems)

    # -- serving --
    def _serve(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("content-length") or 0)
        raw = h.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        req = self.request_type(body if isinstance(body, dict) else {})
        req.raw, req.path, req.received_at, req.outcome = raw, h.path, time.time(), ""
        req.headers = {k.lower(): ("<redacted>" if k.lower() in self.secret_headers else v)
                       for k, v in h.headers.items()}
        with self._lock:
            req.index = len(self.requests)
            self.requests.append(req)
            reply = self._decide(req, h)
            if isinstance(reply, str):
                reply = self._text(reply)
            elif not isinstance(reply, dict | ApiError | Hang | RawReply):
                self.problems.append(f"request #{req.index}: the script gave {type(reply).__name__}, not a reply")
                reply = self._error(400, f"{self.label}: scripted reply is a {type(reply).__name__}")
        if isinstance(reply, Hang):
            req.outcome = req.outcome or "hang"
            self._stop.wait(reply.seconds)
            h.close_connection = True
            return
        if isinstance(reply, RawReply):
            req.outcome = req.outcome or "raw"
            self._send(h, 200, reply.body, reply.content_type, {}, announce=reply.announce)
            return
        if isinstance(reply, ApiError):
            req.outcome = req.outcome or f"error:{reply.status}"
            self._send(h, reply.status, json.dumps(reply.body()).encode(), "application/json", reply.http_headers())
            return
        req.outcome = req.outcome or "ok"  # or the tool fault, served as a well-formed reply
        self._send(h, 200, json.dumps(self._complete(req, reply)).encode(), "application/json", {})

    def _decide(self, req: Any, h: BaseHTTPRequestHandler) -> Reply:
        if h.path.rstrip("/") != self.endpoint:
            return self._error(404, f"{self.label} serves POST {self.endpoint} only, not {h.path}")
        refused = self._auth_error(h.headers)
        if refused:
            return self._error(401, refused)
        fault = self._forced.pop(0) if self._forced else None
        if fault is None and self.faults.rate and self._rng.random() < self.faults.rate:
            fault = self._rng.choice(self.faults.kinds)
        if fault == self.tool_fault and not req.get("tools"):
            fault = None  # nothing to get wrong: served as usual, not counted
        if fault is not None:
            req.outcome = fault
            self.injected.append((req.index, fault))
            return self._fault(req, fault)
        if self.strict:
            problem = self._check(req)
            if problem:
                return self._error(400, problem)
        if self.queue:
            return self.queue.pop(0)
        if self.handler is not None:
            try:
                return self.handler(req)
            except Exception as err:  # a test's handler crashed: say so in the response and the record
                self.problems.append(f"request #{req.index}: handler raised {err!r}")
                return self._error(400, f"{self.label} handler raised {err!r}")
        self.problems.append(f"request #{req.index}: no scripted reply left")
        return self._error(400, f"{self.label}: no scripted reply left for request #{req.index}")

    def _send(self, h: BaseHTTPRequestHandler, status: int, data: bytes, ctype: str, headers: dict[str, str],
              announce: int | None = None) -> None:
        try:
            h.send_response(status)
            h.send_header("content-type", ctype)
            h.send_header("content-length", str(announce or len(data)))
            h.send_header(self.request_id_header, f"{self.request_id_prefix}{len(self.requests):04d}")
            for k, v in headers.items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(data)
            h.wfile.flush()
        except OSError:  # the client gave up (timeout) and closed the connection
            h.close_connection = True
        if announce:
            h.close_connection = True


def serve_in_env(api: FakeServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Any, unset: str) -> Iterator[Any]:
    """The body of a fixture: `api` started, the environment pointing guilens at it (its `env()`, `unset`
    removed, a fresh cache dir, no config file), closed afterwards."""
    api.start()
    for name, value in api.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv(unset, raising=False)
    monkeypatch.setenv("GUILENS_CACHE_DIR", str(tmp_path / "llm-cache"))
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "no-config.toml"))
    try:
        yield api
    finally:
        api.close()
