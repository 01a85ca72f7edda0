"""The `act` tool for providers with tool calling, in both providers' envelopes, and reading its calls.

`ACT_TOOL` (guilens.agents.prompts, the claude agent's) is shared here, not
copied: its `input_schema` is plain JSON Schema, so only the envelope differs
between Anthropic (`{"name", "description", "input_schema"}`) and OpenAI
(`{"type": "function", "function": {"name", "description", "parameters"}}`).
Its `action` property is `guilens.actions.tool_schema.ACTION_SCHEMA`, built from
the action union's own constants, so the tool always offers every action the
devices perform.

Coordinates are pixels of the screenshot sent (`image`), as for the claude
agent: models point far better in the image they look at than in a size they
are told about. The screenshot is scaled so its long side is at most 1568 px.

A server without tool calling still gets the tool's arguments as text: `parse`
reads a JSON object (fenced or not) from the reply the same way `parse_call`
reads a tool call's arguments.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from guilens.actions import Action, ActionError, action_from_dict, scale_action, to_command
from guilens.agents.formats.base import (
    FormatError,
    Parsed,
    Section,
    TextFormat,
    headed_text,
    json_object,
    one_line,
    unfence,
)
from guilens.agents.prompts import ACT_TOOL, act_system_prompt
from guilens.llm.images import fit_size


def act_parameters() -> dict[str, Any]:
    """The act tool's JSON Schema (action result, thought, action, description, LTM update), a copy."""
    return copy.deepcopy(ACT_TOOL["input_schema"])


def anthropic_tool() -> dict[str, Any]:
    return {"name": ACT_TOOL["name"], "description": ACT_TOOL["description"], "input_schema": act_parameters()}


def openai_tool() -> dict[str, Any]:
    return {"type": "function", "function": {"name": ACT_TOOL["name"], "description": ACT_TOOL["description"],
                                             "parameters": act_parameters()}}


def act_arguments(data: dict[str, Any]) -> dict[str, Any]:
    """A JSON object a reply wrote instead of an act call, as the call's arguments: a bare action
    object (`{"type": ...}`) becomes the `action`."""
    return {"action": data} if "action" not in data and "type" in data else data


def parse_call(arguments: dict[str, Any] | str, screen: tuple[int, int], image_size: tuple[int, int]) -> Parsed:
    """An act call's arguments (a dict, or the JSON string OpenAI sends) read into a `Parsed` in device pixels."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as err:
            raise ActionError(f"the act call's arguments are not JSON ({err.msg} at column {err.colno})") from None
    if not isinstance(arguments, dict):
        raise ActionError(f"the act call's arguments are a JSON {type(arguments).__name__}, not an object")
    raw = arguments.get("action")
    if raw is None:
        raise ActionError("the act call has no 'action'; give one action object with a 'type'")
    if isinstance(raw, str):  # some models send the nested object as a JSON string
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            raise ActionError(f"'action' must be an object like {{\"type\": \"tap\", ...}}, got {one_line(raw, 60)!r}") from None
    action: Action = scale_action(action_from_dict(raw), image_size, screen)
    extra = {k: v for k, v in arguments.items() if k not in ("action", "thought", "description")}
    return Parsed(thought=str(arguments.get("thought") or "").strip(), action=action,
                  description=str(arguments.get("description") or "").strip(), extra=extra)


class NativeFormat(TextFormat):
    name = "native"
    title = "native tool calling (the act tool)"
    default_coordinates = "image"
    max_side = 1568

    def __init__(self, *, coordinates: str | None = None, max_pixels: int | None = None,
                 language: str = "English") -> None:
        super().__init__(coordinates=coordinates, max_pixels=max_pixels, language=language)
        if self.coordinates != "image":
            raise FormatError(f"coordinates {self.coordinates!r}: the native act tool takes pixels of the "
                              "screenshot (image)")

    def image_size(self, screen: tuple[int, int]) -> tuple[int, int]:
        w, h = fit_size(screen[0], screen[1], self.max_side)
        if w * h > self.max_pixels:  # a smaller budget than the default was asked for
            k = (self.max_pixels / (w * h)) ** 0.5
            w, h = max(1, int(w * k)), max(1, int(h * k))
        return w, h

    def system_prompt(self, image_size: tuple[int, int]) -> str:
        """The claude agent's system prompt (Chain-of-Memory's): it describes the act tool, not Claude."""
        return act_system_prompt("com")

    def tool(self, provider: str) -> dict[str, Any]:
        """The act tool in `provider`'s envelope (`openai` or `anthropic`)."""
        if provider == "openai":
            return openai_tool()
        if provider == "anthropic":
            return anthropic_tool()
        raise FormatError(f"provider {provider!r} is not openai or anthropic")

    def user_text(self, instruction: str, history: Sequence[str] = (), memory: Sequence[Section] = ()) -> str:
        return headed_text("#", "Task", instruction, memory, "Previous actions", history, "{n}. ")

    def reply_hint(self) -> str:
        return 'call the act tool once, or reply with its arguments as one JSON object: {"thought": ..., "action": {"type": ...}, ...}'

    def _read(self, reply: str, screen: tuple[int, int], image_size: tuple[int, int]) -> Parsed:
        body = unfence(reply)
        try:
            data = json_object(body)
        except json.JSONDecodeError as err:
            raise ActionError(f"the JSON in the reply is invalid ({err.msg} at column {err.colno}); {self.reply_hint()}") from None
        if data is None:
            raise ActionError(f"no act call and no JSON object in the reply {one_line(body, 80)!r}; {self.reply_hint()}")
        return parse_call(act_arguments(data), screen, image_size)

    def action_text(self, action: Action, screen: tuple[int, int], image_size: tuple[int, int]) -> str:
        shown = scale_action(action, screen, image_size)
        return f"{to_command(shown)}"
