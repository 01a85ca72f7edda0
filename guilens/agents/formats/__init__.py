"""The papers' and models' prompt-and-reply formats, independent of any provider.

`get_format("uitars")` gives a format object; an LLM agent of any provider asks
it for the system prompt, the step's user text, the screenshot size and the
coordinate convention, and hands it the reply to `parse` into a guilens action
in device pixels (an `ActionError` it can send back to the model otherwise):

    fmt = get_format("qwen", coordinates="norm999")
    img = fmt.image_size(obs.size)
    system, user = fmt.system_prompt(img), fmt.user_text(instruction, history)
    thought, action = fmt.parse(reply_text, obs.size, img)

Formats: `native` (the act tool, for providers with tool calling), `uitars`
(UI-TARS mobile), `qwen` (Qwen2.5-VL `mobile_use`), `odyssey` (GUI Odyssey /
Chain-of-Memory). Each module says where its prompt comes from and why its
defaults are what they are.
"""

from __future__ import annotations

from typing import Any

from guilens.agents.formats.base import (
    COORDINATES,
    Coordinates,
    FormatError,
    Parsed,
    Section,
    TextFormat,
    smart_resize,
)
from guilens.agents.formats.native import (
    NativeFormat,
    act_parameters,
    anthropic_tool,
    openai_tool,
    parse_call,
)
from guilens.agents.formats.odyssey import OdysseyFormat
from guilens.agents.formats.qwen import QwenFormat, mobile_use_tool
from guilens.agents.formats.uitars import UITarsFormat

FORMATS: dict[str, type[TextFormat]] = {
    cls.name: cls for cls in (NativeFormat, UITarsFormat, QwenFormat, OdysseyFormat)
}


def format_names() -> list[str]:
    return sorted(FORMATS)


def get_format(name: str, **settings: Any) -> TextFormat:
    """The format called `name`, configured with `settings` (`coordinates`, `max_pixels`, `language`,
    and `coordinate_note` for uitars); `FormatError` naming the bad name or setting otherwise."""
    cls = FORMATS.get(name.strip().lower()) if isinstance(name, str) else None
    if cls is None:
        raise FormatError(f"format {name!r} is not one of {', '.join(format_names())}")
    try:
        return cls(**settings)
    except TypeError as err:  # a setting this format does not take
        raise FormatError(f"format {cls.name}: {err}".replace("__init__() ", "")) from None


__all__ = [
    "COORDINATES", "FORMATS", "Coordinates", "FormatError", "NativeFormat", "OdysseyFormat", "Parsed",
    "QwenFormat", "Section", "TextFormat", "UITarsFormat", "act_parameters", "anthropic_tool", "format_names",
    "get_format", "mobile_use_tool", "openai_tool", "parse_call", "smart_resize",
]
