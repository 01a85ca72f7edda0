"""UI-TARS's mobile format: `Thought: ...` then `Action: click(start_box='(x,y)')`.

The prompt is UI-TARS-1.5's mobile prompt (the action space of click,
long_press, type, scroll, open_app, drag, press_home, press_back, wait and
finished), which AndroidLens also gives general models that have no prompt of
their own (prompts/uitars_mobile.md). Its model gets the whole of it in the first
user turn, with the instruction at the end under `## User Instruction`.

Coordinates: UI-TARS-1.5 points in pixels of the image it was sent (`image`,
the default), UI-TARS 1.0 and Gemini on a 0-1000 grid (`norm1000`). Boxes come
as `<|box_start|>(x,y)<|box_end|>`, `(x1,y1,x2,y2)` (its centre), `[x1, y1, x2, y2]`
or `<point>x y</point>`; `actions.parse_uitars` reads them all.

A `finished(content=...)` with content is an `answer` (the content is what the
task asked for); `call_user(content=...)`, which some UI-TARS versions write,
becomes `ask_user`. The text of `type(content='...')` often holds an unescaped
quote; it is read anyway. History lines (text memory) go under `## Action History`
after the instruction, so everything before them stays a cacheable prefix.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from guilens.actions import (
    Action,
    ActionError,
    Answer,
    AskUser,
    Finish,
    KeyPress,
    LongPress,
    OpenApp,
    Scroll,
    Swipe,
    Tap,
    Type,
    Wait,
    parse_uitars,
)
from guilens.agents.formats.base import Parsed, Section, TextFormat, fill, headed_text, one_line
from guilens.agents.prompts import load_prompt

_LABELS = re.compile(r"^(?:Thought|Reflection|Action_Summary)\s*:\s*", re.I | re.M)
_ACTION = re.compile(r"(?:^|\n)\s*Action\s*:\s*", re.I)


def _quote(text: str) -> str:
    """A Python string literal as UI-TARS writes one: single quotes, escapes for quotes and newlines."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


class UITarsFormat(TextFormat):
    name = "uitars"
    title = "UI-TARS mobile (Thought / Action calls)"
    default_coordinates = "image"
    prompt_in_user_turn = True

    def __init__(self, *, coordinates: str | None = None, max_pixels: int | None = None,
                 language: str = "English", coordinate_note: bool = False) -> None:
        super().__init__(coordinates=coordinates, max_pixels=max_pixels, language=language)
        self.explain_coordinates = coordinate_note
        """Add a sentence on the coordinates to the notes: for general models, not UI-TARS itself,
        which was trained on the prompt as it is."""

    def system_prompt(self, image_size: tuple[int, int]) -> str:
        notes = f"\n- {self.coordinate_note(image_size)}" if self.explain_coordinates else ""
        return fill(load_prompt("uitars_mobile"), language=self.language, notes=notes)

    def user_text(self, instruction: str, history: Sequence[str] = (), memory: Sequence[Section] = ()) -> str:
        return headed_text("##", "User Instruction", instruction, memory, "Action History", history, "Step {n}: ")

    def reply_hint(self) -> str:
        return "answer with Thought: ... then Action: one call such as click(start_box='(x,y)')"

    def _read(self, reply: str, screen: tuple[int, int], image_size: tuple[int, int]) -> Parsed:
        marks = list(_ACTION.finditer(reply))
        if marks:
            head, call = reply[: marks[-1].start()], reply[marks[-1].end():]
        elif re.match(r"^[a-z_]+\s*\(", reply):
            head, call = "", reply  # the call alone, without the labels
        else:
            raise ActionError(f"no 'Action:' in the reply {one_line(reply, 80)!r}; {self.reply_hint()}")
        call = call.strip().strip("`").strip()
        # One action per step: a reply with several calls (separated by a blank line) acts on the first.
        call = re.split(r"\)\s*\n\s*\n", call, maxsplit=1)[0]
        if call and not call.endswith(")"):
            call += ")"
        if not call.strip(")"):
            raise ActionError(f"'Action:' is empty; {self.reply_hint()}")
        action = self.in_space(parse_uitars, call, screen, image_size)
        thought = _LABELS.sub("", head).strip()
        return Parsed(thought=thought, action=action)

    def action_text(self, action: Action, screen: tuple[int, int], image_size: tuple[int, int]) -> str:
        def box(x: int, y: int) -> str:
            px, py = self.point(x, y, screen, image_size)
            return f"'<|box_start|>({px},{py})<|box_end|>'"

        match action:
            case Tap(x=int() as x, y=int() as y):
                return f"click(start_box={box(x, y)})"
            case LongPress(x=int() as x, y=int() as y):
                return f"long_press(start_box={box(x, y)}, time='{action.duration_ms / 1000:g}')"
            case Scroll(x=int() as x, y=int() as y):
                return f"scroll(start_box={box(x, y)}, direction='{action.direction}')"
            case Scroll() if action.element is None and action.target is None:
                return f"scroll(direction='{action.direction}')"
            case Swipe():
                return f"drag(start_box={box(action.x1, action.y1)}, end_box={box(action.x2, action.y2)})"
            case Type(clear=False):
                return f"type(content={_quote(action.text)})"
            case KeyPress(key="home" | "back" | "enter" | "menu" | "recent" | "delete"):
                return f"press_{action.key}()"
            case OpenApp():
                return f"open_app(app_name={_quote(action.app)})"
            case Wait():
                return "wait()"
            case Answer():
                return f"finished(content={_quote(action.text)})"
            case Finish(status="success"):
                return "finished()"
            case AskUser():
                return f"call_user(content={_quote(action.question)})"
        return self.fallback_text(action)
