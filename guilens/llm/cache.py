"""What a call returns, and the on-disk cache that can return it again for nothing.

The cache is content-addressed: the key hashes the whole request body as sent
(model, system, messages with their images, tools, parameters), so a changed
screenshot or prompt is a miss and an unchanged one is a hit. The API key is not
part of the body and never reaches a cache file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guilens.episode import Usage
from guilens.episode_model import LLMCall
from guilens.llm.prices import PRICES, model_key, to_usage

log = logging.getLogger(__name__)

CACHE_FORMAT = 1
"""Bump to invalidate every cached response (the key and the directory name include it)."""


@dataclass
class ToolCall:
    id: str
    name: str
    input: dict[str, Any]
    error: str | None = None
    """Why the call's arguments could not be read (an OpenAI-compatible server passes on whatever the
    model wrote, which may not be JSON); `input` is then empty. A reply to repair, not a crash."""


@dataclass
class LLMResponse:
    text: str
    tool_calls: list[ToolCall]
    usage: Usage
    cached: bool
    stop_reason: str | None
    model: str
    content: list[dict[str, Any]] = field(default_factory=list)
    """The raw content blocks, thinking blocks included: send them back as-is to continue a turn."""
    retries: int = 0
    latency_s: float = 0.0
    request_id: str | None = None
    call: LLMCall | None = None
    """The call as sent and received (request with image references, raw reply, retries, tokens, cost):
    callers put it on the step (`AgentStep.llm_calls`) so the episode shows what the model saw and said."""


def response_from(data: dict[str, Any], *, requested_model: str, cached: bool, claude: bool = True) -> LLMResponse:
    """`data` (a reply in the Messages API shape) as an `LLMResponse`. `claude`: price it with the Claude
    table; otherwise the usage carries tokens only and the client prices it."""
    content = list(data.get("content") or [])
    model = str(data.get("model") or requested_model)
    priced = model if model_key(model) in PRICES else requested_model
    if cached:
        usage = Usage()
    elif claude:
        usage = to_usage(priced, data.get("usage") or {})
    else:
        usage = Usage(input_tokens=_tokens(data, "input_tokens"), output_tokens=_tokens(data, "output_tokens"),
                      cache_read_tokens=_tokens(data, "cache_read_input_tokens"))
    return LLMResponse(
        text="".join(b.get("text", "") for b in content if b.get("type") == "text"),
        tool_calls=[
            ToolCall(id=str(b.get("id", "")), name=str(b.get("name", "")), input=dict(b.get("input") or {}),
                     error=b.get("_error") if isinstance(b.get("_error"), str) else None)
            for b in content
            if b.get("type") == "tool_use"
        ],
        usage=usage,
        cached=cached,
        stop_reason=data.get("stop_reason"),
        model=model,
        content=content,
    )


def _tokens(data: dict[str, Any], name: str) -> int:
    u = data.get("usage")
    value = u.get(name) if isinstance(u, dict) else 0
    return int(value) if isinstance(value, int | float) else 0


class ResponseCache:
    """Responses on disk, one JSON file per request hash. Safe for several threads and processes:
    files are written to a private temp name and renamed into place."""

    def __init__(self, directory: Path) -> None:
        self.dir = Path(directory) / f"responses-v{CACHE_FORMAT}"

    @staticmethod
    def key(params: dict[str, Any]) -> str:
        blob = json.dumps(params, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
        return hashlib.sha256(f"{CACHE_FORMAT}\n{blob}".encode()).hexdigest()

    def path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        path = self.path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            return dict(entry["response"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            log.warning("ignoring unreadable cache entry %s", path)
            return None

    def put(self, key: str, response: dict[str, Any], *, role: str) -> None:
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = {"format": CACHE_FORMAT, "role": role, "stored_at": time.time(), "response": response}
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(entry, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
