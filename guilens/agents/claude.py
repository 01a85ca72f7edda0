"""The built-in `claude` agent: Chain-of-Memory on the Anthropic Messages API with tool use.

Each step is one fresh request, not a growing chat: CoM feeds the decision the
current screenshot and text memory only (no vision history), which keeps the
per-step cost flat however long the episode runs. The request carries the task
and lessons (a per-attempt system block), STM (the last N action results, in the
model's own words), LTM (app-tagged facts), the question-and-answer history, the
previous action and its fate, an optional set-of-marks element list, and the
screenshot scaled so its long side is at most 1568 px.

The model answers with one `act` tool call that both reports what its previous
action did (the new STM entry, CoM's "action result") and chooses the next action,
so the one-step lag of CoM costs no extra call. Coordinates are asked for in the
pixels of the screenshot the model sees and scaled to device pixels here: models
point far better in the image they look at than in a size they are told about.

The system prompt and tool schema never change, the task block changes once per
attempt: both end in a prompt-cache breakpoint, so every step after the first
reads them from the cache.

All of that is the shared LLM agent (`guilens.agents.llm_agent`) with the
native format and the `com` memory; `--memory` and `--format` change them for
ablations, as for the openai agent. What is Claude's here is the client (the
Anthropic provider) and the defaults.
"""

from __future__ import annotations

from typing import Any

from guilens.agents.formats import FormatError, NativeFormat, get_format
from guilens.agents.llm_agent import LLMAgent
from guilens.config import ConfigError, Settings, load_settings
from guilens.llm import LLMClient

MAX_SIDE = 1568


class ClaudeAgent(LLMAgent):
    """Chain-of-Memory agent on Claude. Constructing it without `ANTHROPIC_API_KEY` raises `MissingAPIKey`."""

    name = "claude"

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        model: str | None = None,
        client: LLMClient | None = None,
        set_of_marks: bool = True,
        stm_size: int | None = None,
        cache: bool = False,
        max_fix_attempts: int = 2,
        max_tokens: int = 4096,
        max_elements: int = 120,
        max_side: int = MAX_SIDE,
        request_extra: dict[str, Any] | None = None,
        format: str | None = None,
        memory: str | None = None,
        history_images: int | None = None,
        screen_info: bool | None = None,
    ) -> None:
        settings = settings if settings is not None else load_settings()
        model = model or settings.model
        fmt = _format(format or settings.agent_format, settings)
        if isinstance(fmt, NativeFormat):
            fmt.max_side = max_side
        self.max_side = max_side
        client = client or LLMClient(model, role="agent", cache=cache, settings=settings,
                                     base_url=settings.agent_base_url)
        super().__init__(settings, model=model, client=client, fmt=fmt, memory=memory, set_of_marks=set_of_marks,
                         stm_size=stm_size, history_images=history_images, screen_info=screen_info,
                         max_fix_attempts=max_fix_attempts, max_tokens=max_tokens, max_elements=max_elements,
                         request_extra=request_extra)


def _format(name: str, settings: Settings) -> Any:
    """The format `--format` names, with `--max-pixels`; one line naming the option when it is wrong."""
    try:
        return get_format(name, max_pixels=settings.max_pixels)
    except FormatError as err:
        raise ConfigError(f"--format {name}: {err}") from None
