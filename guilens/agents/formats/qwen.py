"""Qwen2.5-VL's `mobile_use` function calling, as text: a tools block in the system prompt and
`<tool_call>{"name": "mobile_use", "arguments": {...}}</tool_call>` in the reply.

The tool is the one the Qwen2.5-VL mobile-agent cookbook defines (click,
long_press, swipe, type, key, system_button, open, wait, terminate), plus the two
ScenDroid's agents add and guilens tasks need: `answer` and `ask_user`. Its
description states the screen's resolution, which is what tells the model its
coordinate space: the smart-resized image's size for `image` coordinates
(Qwen2.5-VL, the default), 999x999 for `norm999` (Qwen3-VL, as ScenDroid
prompts it) or 1000x1000 for `norm1000`. The system prompt wraps it the way
Qwen's chat template renders tools (prompts/qwen_mobile_use.md), so a server
without tool calling gets the very prompt one with it would build.

The reply is `Thought:` (one sentence), `Action:` (a short imperative, kept as
the step's description) and the tool call, the order ScenDroid's prompt asks for;
a reply with the tool call alone reads too. The user text is the cookbook's:
`The user query: ...` then `Task progress (You have done the following operation
on the current device): Step 1: ...; Step 2: ...; .`
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from guilens.actions import (
    Action,
    ActionError,
    Answer,
    AskUser,
    Finish,
    KeyPress,
    LongPress,
    OpenApp,
    Swipe,
    Tap,
    Type,
    Wait,
    parse_mobile_use,
)
from guilens.actions.parsers import TOOL_CALL
from guilens.agents.formats.base import Parsed, Section, TextFormat, fill, one_line, unfence
from guilens.agents.prompts import load_prompt

_ACTIONS = ("key", "click", "long_press", "swipe", "type", "system_button", "open", "wait", "terminate",
            "answer", "ask_user")


def mobile_use_tool(resolution: tuple[int, int], *, ask: bool = True) -> dict[str, Any]:
    """The `mobile_use` function, in the JSON form Qwen's chat template puts in `<tools>`; `ask=False`
    leaves `ask_user` out (ScenDroid's Passive mode: its agents are then offered the operations only)."""
    w, h = resolution
    description = (
        "Use a touchscreen to interact with a mobile device, and take screenshots.\n"
        "* This is an interface to a mobile device with touchscreen. You can perform actions like clicking, "
        "typing, swiping, etc.\n"
        "* Some applications may take time to start or process actions, so you may need to wait and take "
        "successive screenshots to see the results of your actions.\n"
        f"* The screen's resolution is {w}x{h}.\n"
        "* Make sure to click any buttons, links, icons, etc with the cursor tip in the center of the element. "
        "Don't click boxes on their edges unless asked."
    )
    actions_help = (
        "The action to perform. The available actions are:\n"
        "* `key`: Perform a key event on the mobile device.\n"
        "    - This supports adb's `keyevent` syntax.\n"
        '    - Examples: "back", "home", "enter", "del" (deletes the character before the cursor).\n'
        "* `click`: Click the point on the screen with coordinate (x, y).\n"
        "* `long_press`: Press the point on the screen with coordinate (x, y) for specified seconds.\n"
        "* `swipe`: Swipe from the starting point with coordinate (x, y) to the end point with coordinates2 (x2, y2).\n"
        "* `type`: Input the specified text into the activated input box.\n"
        "* `system_button`: Press the system button.\n"
        "* `open`: Open an app on the device.\n"
        "* `wait`: Wait specified seconds for the change to happen.\n"
        "* `terminate`: Terminate the current task and report its completion status.\n"
        "* `answer`: Give the answer the task asks for; this ends the task."
    ) + ("\n* `ask_user`: Ask the user a question, for information only the user has." if ask else "")
    point = "(x, y): The x (pixels from the left edge) and y (pixels from the top edge) coordinates"
    return {
        "type": "function",
        "function": {
            "name": "mobile_use",
            "description": description,
            "parameters": {
                "properties": {
                    "action": {"description": actions_help, "enum": [a for a in _ACTIONS if ask or a != "ask_user"],
                               "type": "string"},
                    "coordinate": {
                        "description": f"{point} to move the mouse to. Required only by `action=click`, "
                        "`action=long_press`, and `action=swipe`.",
                        "type": "array",
                    },
                    "coordinate2": {
                        "description": f"{point} to move the mouse to. Required only by `action=swipe`.",
                        "type": "array",
                    },
                    "text": {
                        "description": "Required only by `action=key`, `action=type`, `action=open`, "
                        + ("`action=answer` and `action=ask_user`." if ask else "and `action=answer`."),
                        "type": "string",
                    },
                    "time": {
                        "description": "The seconds to wait. Required only by `action=long_press` and `action=wait`.",
                        "type": "number",
                    },
                    "button": {
                        "description": "Back means returning to the previous interface, Home means returning to "
                        "the desktop, Menu means opening the application background menu, and Enter means "
                        "pressing the enter. Required only by `action=system_button`",
                        "enum": ["Back", "Home", "Menu", "Enter"],
                        "type": "string",
                    },
                    "status": {
                        "description": "The status of the task. Required only by `action=terminate`.",
                        "type": "string",
                        "enum": ["success", "failure"],
                    },
                },
                "required": ["action"],
                "type": "object",
            },
        },
    }


_THOUGHT = re.compile(r"^\s*Thought\s*:\s*", re.I)
_SUMMARY = re.compile(r"^\s*Action\s*:\s*(.*)$", re.I | re.M)


class QwenFormat(TextFormat):
    name = "qwen"
    title = "Qwen2.5-VL mobile_use (<tool_call> JSON)"
    default_coordinates = "image"

    def resolution(self, image_size: tuple[int, int]) -> tuple[int, int]:
        """The screen size the tool tells the model: the image's, or the grid it points on."""
        if self.coordinates == "image":
            return image_size
        return (999, 999) if self.coordinates == "norm999" else (1000, 1000)

    def system_prompt(self, image_size: tuple[int, int]) -> str:
        tool = json.dumps(mobile_use_tool(self.resolution(image_size), ask=self.ask), ensure_ascii=False)
        notes = "" if self.language == "English" else f"\n- Write the Thought and Action parts in {self.language}."
        asking = "`ask_user` only for information that only the user has, " if self.ask else ""
        return fill(load_prompt("qwen_mobile_use"), tools=tool, notes=notes, asking=asking)

    def user_text(self, instruction: str, history: Sequence[str] = (), memory: Sequence[Section] = ()) -> str:
        steps = "".join(f"Step {n}: {ln}; " for n, ln in enumerate(history, 1)) or "None"
        text = (f"The user query: {instruction}\n"
                f"Task progress (You have done the following operation on the current device): {steps}.")
        for title, lines in memory:
            if lines:
                text += f"\n{title}: " + " ".join(f"{n}. {ln}" for n, ln in enumerate(lines, 1))
        return text

    def reply_hint(self) -> str:
        return ('answer with Thought: ..., Action: ..., then <tool_call>{"name": "mobile_use", '
                '"arguments": {"action": "click", "coordinate": [x, y]}}</tool_call>')

    def _read(self, reply: str, screen: tuple[int, int], image_size: tuple[int, int]) -> Parsed:
        m = TOOL_CALL.search(reply)
        if m:
            head, body = reply[: m.start()], m[1]
        elif "<tool_call>" in reply:
            head, _, body = reply.partition("<tool_call>")  # cut off before its closing tag
            body = body.strip()
        else:
            start = reply.find("{")
            if start < 0:
                raise ActionError(f"no <tool_call> in the reply {one_line(reply, 80)!r}; {self.reply_hint()}")
            head, body = reply[:start], reply[start:]
        body = unfence(body)
        try:
            call, end = json.JSONDecoder().raw_decode(body)
        except json.JSONDecodeError as err:
            raise ActionError(f"the tool call is not JSON ({err.msg} at column {err.colno}); {self.reply_hint()}") from None
        if body[end:].strip():
            raise ActionError(f"the tool call holds more than one JSON object; {self.reply_hint()}")
        if not isinstance(call, dict):
            raise ActionError(f"the tool call is a JSON {type(call).__name__}, not an object; {self.reply_hint()}")
        name = call.get("name", "mobile_use")
        if name != "mobile_use":
            raise ActionError(f"the tool call names {name!r}; the only tool is mobile_use")
        if "arguments" not in call and "action" not in call:
            raise ActionError(f"the tool call has no 'arguments'; {self.reply_hint()}")
        action = self.in_space(parse_mobile_use, call, screen, image_size)
        summary = _SUMMARY.search(head)
        thought_part = head[: summary.start()] if summary else head
        thought = _THOUGHT.sub("", thought_part.strip()).strip()
        return Parsed(thought=thought, action=action, description=summary[1].strip() if summary else "")

    def action_text(self, action: Action, screen: tuple[int, int], image_size: tuple[int, int]) -> str:
        def xy(x: int, y: int) -> list[int]:
            return list(self.point(x, y, screen, image_size))

        args: dict[str, Any] | None = None
        match action:
            case Tap(x=int() as x, y=int() as y):
                args = {"action": "click", "coordinate": xy(x, y)}
            case LongPress(x=int() as x, y=int() as y):
                args = {"action": "long_press", "coordinate": xy(x, y), "time": action.duration_ms / 1000}
            case Swipe():
                args = {"action": "swipe", "coordinate": xy(action.x1, action.y1),
                        "coordinate2": xy(action.x2, action.y2)}
            case Type(clear=False):
                args = {"action": "type", "text": action.text}
            case KeyPress(key="back" | "home" | "menu" | "enter"):
                args = {"action": "system_button", "button": action.key.capitalize()}
            case KeyPress(key="delete"):
                args = {"action": "key", "text": "del"}
            case OpenApp():
                args = {"action": "open", "text": action.app}
            case Wait():
                args = {"action": "wait", "time": action.seconds}
            case Answer():
                args = {"action": "answer", "text": action.text}
            case AskUser():
                args = {"action": "ask_user", "text": action.question}
            case Finish():
                args = {"action": "terminate", "status": action.status}
        if args is None:
            return self.fallback_text(action)
        return json.dumps(args, ensure_ascii=False)
