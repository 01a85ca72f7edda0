"""One client for every model call guilens makes: the agent, the llm user, the judge, on any provider.

Why one client: the callers need the same things and none should get them
subtly different: bounded retries that honour `retry-after` and leave a record
(`Usage.retries`: each failed try and its cause), tokens turned into dollars
with one price table (and the `prices` setting over it), a content-addressed
response cache (the judge re-reads unchanged episodes for free), prompt caching
of the unchanging prefix, a record of every call as sent and received
(`LLMResponse.call`, an `LLMCall`), and error messages a person can act on.
The SDKs are imported lazily so `guilens --help` stays fast, and API keys are
read from the environment and handed to the SDKs only: they never reach a cache
file, a record, a log line or a message.

A model spec picks the provider: `anthropic:MODEL` (or a bare Claude name) for
the Messages API, `openai:MODEL` for OpenAI and every server that speaks its
chat-completions API (vLLM, SGLang, llama.cpp, LM Studio). Callers always
speak the Messages API's shape; the OpenAI provider translates both ways.

The parts: `spec` (model specs, base URLs), `client` (`LLMClient`,
`make_client`), `retry` (the one retry loop), `providers` (anthropic, openai,
the translation), `record` (the call record), `errors`, `cache`, `prices`,
`images`.
"""

from __future__ import annotations

from guilens.llm.cache import CACHE_FORMAT, LLMResponse, ResponseCache, ToolCall, response_from
from guilens.llm.client import LLMClient, make_client, mark_prefix, reply_data
from guilens.llm.errors import LLMError, LLMRequestError, LLMUnavailable, MissingAPIKey, summary
from guilens.llm.images import fit_size, image_block
from guilens.llm.prices import (
    LONG_PROMPT,
    PRICES,
    ModelCaps,
    cost_usd,
    model_caps,
    model_key,
    priced,
    to_usage,
)
from guilens.llm.spec import PROVIDERS, ModelSpec, parse_model

__all__ = [
    "CACHE_FORMAT",
    "LONG_PROMPT",
    "PRICES",
    "PROVIDERS",
    "LLMClient",
    "LLMError",
    "LLMRequestError",
    "LLMResponse",
    "LLMUnavailable",
    "MissingAPIKey",
    "ModelCaps",
    "ModelSpec",
    "ResponseCache",
    "ToolCall",
    "cost_usd",
    "fit_size",
    "image_block",
    "make_client",
    "mark_prefix",
    "model_caps",
    "model_key",
    "parse_model",
    "priced",
    "reply_data",
    "response_from",
    "summary",
    "to_usage",
]
