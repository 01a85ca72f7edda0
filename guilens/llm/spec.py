"""Model specs (`openai:qwen2.5-vl-7b`, `anthropic:claude-sonnet-5-5`, or a bare Claude name) and base URLs.

One function reads a spec wherever a command takes a model (`--model`,
`--user-model`, `--judge-model`, `--describe-model`, the settings), so an
unknown provider is the same one line everywhere. A bare name means Anthropic,
as it always has. Only a prefix that looks like a provider name (letters,
digits, `-`, `_`; no dots) is read as one: cloud model ids such as
`us.anthropic.claude-sonnet-4-5-v1:0` carry a colon of their own.

Base URLs are checked here too (scheme and host), and classed as local or
remote: an OpenAI-compatible server on loopback or a private network (a vLLM on
the same box or the lab's GPU machine) needs no key, a remote one does.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from guilens.config import ConfigError

PROVIDERS = ("anthropic", "openai")
_PREFIX = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*):(.*)$")
_LOCAL_SUFFIXES = (".local", ".lan", ".internal", ".localhost", ".home.arpa")


@dataclass(frozen=True)
class ModelSpec:
    provider: str
    """`anthropic` or `openai` (any OpenAI-compatible chat-completions server)."""
    model: str
    """The model name the provider is sent."""

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}"


def parse_model(spec: str, *, option: str = "--model") -> ModelSpec:
    """`openai:MODEL`, `anthropic:MODEL` or a bare (Anthropic) model name; `ConfigError` naming `option`."""
    text = (spec or "").strip()
    if not text:
        raise ConfigError(f"{option} is empty: give a model, e.g. openai:qwen2.5-vl-7b or anthropic:claude-sonnet-5-5")
    m = _PREFIX.match(text)
    if m is None:
        return ModelSpec("anthropic", text)
    provider, model = m.group(1).lower(), m.group(2).strip()
    if provider not in PROVIDERS:
        raise ConfigError(f"{option} {text!r}: unknown provider {m.group(1)!r}; write anthropic:MODEL or openai:MODEL")
    if not model:
        raise ConfigError(f"{option} {text!r}: no model after {provider}:")
    return ModelSpec(provider, model)


def check_base_url(url: str, *, option: str = "--base-url") -> str:
    """`url` without a trailing slash, if it is an http(s) URL with a host; else `ConfigError` naming `option`."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port  # raises ValueError on a bad port
    except ValueError as err:
        raise ConfigError(f"{option} {url!r}: not a URL ({err})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{option} {url!r}: give an http:// or https:// URL with a host, e.g. http://localhost:8000/v1")
    del port
    return urlunsplit(parts._replace(path=parts.path.rstrip("/"))) if parts.path.endswith("/") else url.strip()


def is_local(url: str | None) -> bool:
    """Whether `url` points at this machine or a private network (no key needed there)."""
    if not url:
        return False
    host = (urlsplit(url).hostname or "").lower()
    if not host:
        return False
    if host == "localhost" or host.endswith(_LOCAL_SUFFIXES) or "." not in host and ":" not in host:
        return True  # a single-label name resolves on the local network (`gpu-box`)
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private or ip.is_link_local


def safe_url(url: str | None) -> str | None:
    """`url` without user:password or query (a key some proxies take there never reaches a record)."""
    if not url:
        return url
    parts = urlsplit(url)
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
