"""GUI Odyssey / Chain-of-Memory command strings: `CLICK: (x, y)`, `SCROLL: UP`, `TYPE: text`, ...

The user text is OdysseyAgent's: `I'm looking for guidance on how to {instruction}`,
`Previous Actions: 1. ...` (`None` on the first step), `Provide the command-style
action directly.`, with the screenshot first (its `Picture 1`). Chain-of-Memory
replaces the action list with short- and long-term memory, which a memory
strategy passes as `memory` blocks. OdysseyAgent was fine-tuned and needs no
system prompt; the zero-shot models CoM evaluates (Qwen2-VL-72B, InternVL2.5)
do, so prompts/odyssey_mobile.md describes the action space and the coordinates.

The action set is GUI Odyssey's (CLICK, LONG_PRESS, SCROLL, TYPE, PRESS_BACK,
PRESS_HOME, PRESS_RECENT, COMPLETE, IMPOSSIBLE) plus PRESS_ENTER, and ANSWER and
ASK_USER, which GUI Odyssey lacks and guilens tasks need. `SCROLL` names the
finger's direction, as GUI Odyssey's data derives it: `SCROLL: UP` is a
`scroll down`. Coordinates are normalised to [0, 1000] (`norm1000`), so the
image size does not change the parsing; the default sends about one megapixel
in 28-pixel patches (the Qwen2-VL models CoM evaluates), enough to read a
phone's small text at about 1,300 image tokens.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from guilens.actions import (
    OPPOSITE,
    Action,
    ActionError,
    Answer,
    AskUser,
    Finish,
    KeyPress,
    LongPress,
    Scroll,
    Tap,
    Type,
    parse_com,
)
from guilens.agents.formats.base import Parsed, Section, TextFormat, fill, one_line, unfence
from guilens.agents.prompts import load_prompt

_ACTION = re.compile(r"(?:^|\n)\s*Action\s*:\s*", re.I)
_THOUGHT = re.compile(r"^\s*Thought\s*:\s*", re.I)


class OdysseyFormat(TextFormat):
    name = "odyssey"
    title = "GUI Odyssey / Chain-of-Memory (CLICK: (x, y) commands)"
    default_coordinates = "norm1000"
    default_max_pixels = 1280 * 28 * 28
    prompt_in_user_turn = False
    image_first = True

    def system_prompt(self, image_size: tuple[int, int]) -> str:
        asking = "- ASK_USER: question asks the user for information only they have (a name, a time, a choice).\n"
        return fill(load_prompt("odyssey_mobile"), coordinates=self.coordinate_note(image_size),
                    asking=asking if self.ask else "")

    def user_text(self, instruction: str, history: Sequence[str] = (), memory: Sequence[Section] = ()) -> str:
        lines = [f"I'm looking for guidance on how to {instruction}"]
        for title, items in memory:
            lines.append(f"{title}: " + ("\n".join(f"{n}. {x}" for n, x in enumerate(items, 1)) or "None"))
        if history or not memory:
            lines.append("Previous Actions: " + ("\n".join(f"{n}. {x}" for n, x in enumerate(history, 1)) or "None"))
        lines.append("Provide the command-style action directly.")
        return "\n".join(lines)

    def reply_hint(self) -> str:
        return "answer with one command such as CLICK: (500, 320), SCROLL: UP, TYPE: text or COMPLETE"

    def _read(self, reply: str, screen: tuple[int, int], image_size: tuple[int, int]) -> Parsed:
        text = unfence(reply)
        marks = list(_ACTION.finditer(text))
        if marks:
            after = text[marks[-1].end():].strip().splitlines()
            candidates = [(text[: marks[-1].start()], after[0] if after else "")]
        else:
            lines = [ln for ln in text.splitlines() if ln.strip()]
            # The whole reply is the command; or, when the model reasoned first, its last line is.
            candidates = [("", text), ("\n".join(lines[:-1]), lines[-1] if lines else "")]
        problem = ""
        for head, command in candidates:
            try:
                action = self.in_space(parse_com, command.strip().strip("`").strip(), screen, image_size)
            except ActionError as err:
                if " is not a command" not in str(err):
                    problem = problem or str(err)  # a command, but a bad one: say what is wrong with it
                continue
            return Parsed(thought=_THOUGHT.sub("", head.strip()).strip(), action=action)
        if problem:
            raise ActionError(f"{problem}; {self.reply_hint()}")
        raise ActionError(f"no command in the reply {one_line(text, 80)!r}; {self.reply_hint()}")

    def action_text(self, action: Action, screen: tuple[int, int], image_size: tuple[int, int]) -> str:
        match action:
            case Tap(x=int() as x, y=int() as y):
                px, py = self.point(x, y, screen, image_size)
                return f"CLICK: ({px}, {py})"
            case LongPress(x=int() as x, y=int() as y):
                px, py = self.point(x, y, screen, image_size)
                return f"LONG_PRESS: ({px}, {py})"
            case Scroll():
                return f"SCROLL: {OPPOSITE[action.direction].upper()}"  # the finger's direction
            case Type(clear=False):
                return f"TYPE: {action.text}"
            case KeyPress(key="back" | "home" | "recent" | "enter"):
                return f"PRESS_{action.key.upper()}"
            case Answer():
                return f"ANSWER: {action.text}"
            case AskUser():
                return f"ASK_USER: {action.question}"
            case Finish():
                return "COMPLETE" if action.status == "success" else "IMPOSSIBLE"
        return self.fallback_text(action)
