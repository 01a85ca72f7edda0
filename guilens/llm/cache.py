"""What a call returns, and the on-disk cache that can return it again for nothing.

The cache is content-addressed: the key hashes the whole request body as sent
(model, system, messages with their images, tools, parameters), so a changed
screenshot or prompt is a miss and an unchanged one is a hit. The API key is not
part of the body and never reaches a cache file.
"""

from __future__ import annotations

import contextlib
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


@dataclass
class CacheEntry:
    """One cached response file, as pruning sees it: where, how big, when it was stored (its mtime)."""

    path: Path
    size: int
    stored_at: float


@dataclass
class PruneResult:
    """What a prune removed (or, in a dry run, would remove), and what is left."""

    removed: list[CacheEntry] = field(default_factory=list)
    kept: int = 0
    kept_bytes: int = 0

    @property
    def removed_bytes(self) -> int:
        return sum(e.size for e in self.removed)


class ResponseCache:
    """Responses on disk, one JSON file per request hash. Safe for several threads and processes:
    files are written to a private temp name and renamed into place.

    `max_bytes` caps the cache (the `cache_max_mb` setting): a write that takes it past the cap removes
    the oldest entries down to 90% of it. The size is counted once, on the first write, then kept up to
    date by each write, so a capped cache costs one directory scan per process plus one per trim.
    """

    TRIM_TO = 0.9
    """A trim goes below the cap by this factor, so the next writes do not each trigger one."""

    def __init__(self, directory: Path, *, max_bytes: int | None = None) -> None:
        self.dir = Path(directory) / f"responses-v{CACHE_FORMAT}"
        self.max_bytes = max_bytes
        self._size: int | None = None
        self._lock = threading.Lock()

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
        data = json.dumps(entry, ensure_ascii=False).encode("utf-8")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        if self.max_bytes is not None:
            self._account(len(data))

    def _account(self, written: int) -> None:
        """Keep the cache under `max_bytes` after a write (see the class docstring)."""
        assert self.max_bytes is not None
        with self._lock:
            if self._size is None:
                self._size = sum(e.size for e in self.entries())
            else:
                self._size += written
            if self._size <= self.max_bytes:
                return
            result = self.prune(max_bytes=int(self.max_bytes * self.TRIM_TO))
            self._size = result.kept_bytes
        log.info("response cache over %d bytes: removed %d oldest entries (%d bytes)",
                 self.max_bytes, len(result.removed), result.removed_bytes)

    def entries(self) -> list[CacheEntry]:
        """Every response file, oldest first. Files another process removes meanwhile are skipped."""
        found: list[CacheEntry] = []
        if not self.dir.is_dir():
            return found
        for path in self.dir.glob("??/*.json"):
            try:
                st = path.stat()
            except FileNotFoundError:
                continue
            found.append(CacheEntry(path, st.st_size, st.st_mtime))
        found.sort(key=lambda e: (e.stored_at, e.path.name))
        return found

    def prune(self, *, older_than_s: float | None = None, max_bytes: int | None = None,
              dry_run: bool = False, now: float | None = None) -> PruneResult:
        """Remove the entries stored more than `older_than_s` seconds ago, then the oldest ones until
        the rest fits in `max_bytes`. `dry_run`: only say what would go. Stale temp files of writers
        that died (over an hour old) go too, uncounted."""
        now = time.time() if now is None else now
        entries = self.entries()
        result = PruneResult()
        keep: list[CacheEntry] = []
        for e in entries:
            (result.removed if older_than_s is not None and now - e.stored_at > older_than_s else keep).append(e)
        total = sum(e.size for e in keep)
        while max_bytes is not None and keep and total > max_bytes:
            e = keep.pop(0)
            total -= e.size
            result.removed.append(e)
        result.kept, result.kept_bytes = len(keep), total
        if dry_run:
            return result
        for e in result.removed:
            e.path.unlink(missing_ok=True)
        for tmp in self.dir.glob("??/.*.tmp") if self.dir.is_dir() else []:
            try:
                if now - tmp.stat().st_mtime > 3600:
                    tmp.unlink(missing_ok=True)
            except FileNotFoundError:
                continue
        for sub in {e.path.parent for e in result.removed}:
            with contextlib.suppress(OSError):  # only when now empty
                sub.rmdir()
        return result
