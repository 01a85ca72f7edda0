"""The built-in `openai` agent: any model behind an OpenAI-compatible chat-completions server.

vLLM, SGLang, llama.cpp, LM Studio and OpenAI itself speak the same API; the
models researchers run there (UI-TARS, Qwen2.5-VL and their successors,
GPT-4o-class models) each expect their own prompt and reply format, so the
format is an option (`--format`): `native` tool calls of the act tool (a server
with tool calling), or `uitars`, `qwen`, `odyssey` text formats read by the
papers' parsers. The screenshot is sent at the format's size (`--max-pixels`,
which must match the server's for Qwen2.5-VL-based models: see
guilens.agents.formats.base).

The step loop, memory strategies and repairs are the shared LLM agent's
(`guilens.agents.llm_agent`). The default memory follows the format: `com` with
the native act tool (its fields carry the memory at no extra call), and
`action-thought` with a text format (the history every one of those models was
trained to read; Chain-of-Memory there costs a second call per step).

The key comes from `OPENAI_API_KEY`, optional for a server on this machine or
a private network.
"""

from __future__ import annotations

from typing import Any

from guilens.agents.formats import FormatError, NativeFormat, get_format
from guilens.agents.llm_agent import LLMAgent
from guilens.config import ConfigError, Settings, load_settings


class OpenAIAgent(LLMAgent):
    """An LLM agent on an OpenAI-compatible server; see the module docstring."""

    name = "openai"

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        model: str | None = None,
        client: Any = None,
        base_url: str | None = None,
        format: str | None = None,
        memory: str | None = None,
        max_pixels: int | None = None,
        history_images: int | None = None,
        screen_info: bool | None = None,
        set_of_marks: bool = True,
        stm_size: int | None = None,
        cache: bool = False,
        max_fix_attempts: int = 2,
        max_tokens: int = 2048,
        max_elements: int = 120,
        request_extra: dict[str, Any] | None = None,
    ) -> None:
        settings = settings if settings is not None else load_settings()
        name = served_model(model or settings.openai_model)
        if client is None:
            from guilens.llm import make_client

            client = make_client(f"openai:{name}", role="agent", base_url=base_url or settings.agent_base_url,
                                 settings=settings, cache=cache)
        fmt_name = format or settings.agent_format
        try:
            fmt = get_format(fmt_name, max_pixels=max_pixels or settings.max_pixels)
        except FormatError as err:
            raise ConfigError(f"--format {fmt_name}: {err}") from None
        if isinstance(fmt, NativeFormat) and not getattr(client, "supports_tools", True):
            raise ConfigError("--format native needs tool calling, and the server is set to have none "
                              "(the openai_tool_calls setting): use --format uitars, qwen or odyssey")
        super().__init__(settings, model=name, client=client, fmt=fmt, memory=memory, set_of_marks=set_of_marks,
                         stm_size=stm_size, history_images=history_images, screen_info=screen_info,
                         max_fix_attempts=max_fix_attempts, max_tokens=max_tokens, max_elements=max_elements,
                         request_extra=request_extra)


def served_model(model: str | None) -> str:
    """The model name to send the server, from `--model` (`NAME` or `openai:NAME`)."""
    text = (model or "").strip()
    if not text:
        raise ConfigError("--agent openai needs --model: the name the server serves (vLLM: the model it was "
                          "started with, e.g. Qwen/Qwen2.5-VL-7B-Instruct), or the openai_model setting")
    provider, sep, rest = text.partition(":")
    if sep and provider.lower() == "anthropic":
        raise ConfigError(f"--model {text!r}: --agent openai talks to an OpenAI-compatible server; "
                          "for a Claude model use --agent claude")
    return rest.strip() if sep and provider.lower() == "openai" else text
