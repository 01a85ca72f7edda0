"""The short command form a person types (headless human agent, the TUI's `:` line) and guilens
prints (step descriptions, the trace): `tap 540 1200`, `type --clear "text"`, `scroll up #12`.

`to_command` and `parse_command` are inverses: every action prints as a command
that reads back to the same action.
"""

from __future__ import annotations

import json
import shlex

from pydantic import ValidationError

from guilens.actions.model import (
    KEYS,
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
    explain,
    float_or,
    is_direction,
    is_finish_status,
    is_key,
)
from guilens.actions.parsers import NUMBER

COMMAND_HELP = (
    "tap X Y | tap \"Text\" | tap #N | long X Y | swipe X1 Y1 X2 Y2 | "
    "scroll up|down|left|right [#N | X Y | \"Text\"] | type [--clear] TEXT | "
    "back | home | enter | delete | menu | recent | key KEY | open APP | wait S | ask QUESTION | answer TEXT | "
    "finish [success|failure]"
)


def _place(verb: str, rest: str) -> dict[str, object]:
    """Where a tap, long press or scroll happens: `#N`, `X Y` or `"text"` (fields of the action)."""
    if rest.startswith("#") and rest[1:].isdigit():
        return {"element": int(rest[1:])}
    if rest.startswith('"') and _text(rest) != rest:  # a quoted target, as `to_command` writes it
        return {"target": _text(rest)}
    try:
        parts = shlex.split(rest)
    except ValueError as err:
        raise ActionError(f"{verb}: {err}") from None
    if len(parts) == 2 and all(NUMBER.fullmatch(p) for p in parts):
        x, y = (round(float(p)) for p in parts)
        if x < 0 or y < 0:
            raise ActionError(f"{verb}: coordinates must not be negative")
        return {"x": x, "y": y}
    if len(parts) == 1:
        return {"target": parts[0]}
    raise ActionError(f"{verb} takes X Y, #N or \"text\"; got {rest!r}")


def _text(rest: str) -> str:
    """A command's text: as typed, or unquoted when the whole of it is quoted."""
    if len(rest) >= 2 and rest[0] == rest[-1] == '"':
        try:
            value = json.loads(rest)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, str):
            return value
    if len(rest) >= 2 and rest[0] == rest[-1] and rest[0] in "\"'":
        return rest[1:-1]
    return rest


def _type(rest: str) -> Type:
    clear = False
    if rest == "--clear" or rest.startswith("--clear "):
        clear, rest = True, rest[len("--clear"):].strip()
    if rest.startswith("-- "):  # the end of options: text that starts with a dash follows
        rest = rest[3:]
    if not rest and not clear:
        raise ActionError("type needs text (type --clear TEXT replaces what the field holds)")
    return Type(text=_text(rest), clear=clear)


def parse_command(line: str, screen: tuple[int, int] = (1080, 2400)) -> Action:
    """Read the short command form a person types (headless human agent, the TUI's `:` line)."""
    try:
        return _parse_command(line)
    except ValidationError as err:  # a value the action refuses (`wait -1`): one line, like any typo
        verb = line.strip().partition(" ")[0].lower()
        raise ActionError(f"{verb}: {explain(err)}") from None


def _parse_command(line: str) -> Action:
    s = line.strip()
    if not s:
        raise ActionError(f"empty command; commands: {COMMAND_HELP}")
    verb, _, rest = s.partition(" ")
    verb = verb.lower()
    rest = rest.strip()
    if verb in ("tap", "long", "long_press", "press"):
        cls = Tap if verb == "tap" else LongPress
        return cls(**_place(verb, rest))  # type: ignore[arg-type]
    if verb == "swipe":
        nums = rest.split()
        if len(nums) != 4 or not all(n.isdigit() for n in nums):
            raise ActionError(f"swipe takes four whole numbers X1 Y1 X2 Y2; got {rest!r}")
        x1, y1, x2, y2 = map(int, nums)
        return Swipe(x1=x1, y1=y1, x2=x2, y2=y2)
    if verb == "scroll":
        way, _, where = rest.partition(" ")
        way = way.lower()
        if not is_direction(way):
            raise ActionError(f"scroll takes up, down, left or right, then optionally #N, X Y or \"text\"; got {rest!r}")
        place = _place("scroll", where.strip()) if where.strip() else {}
        return Scroll(direction=way, **place)  # type: ignore[arg-type]
    if verb == "key":
        key = rest.lower()
        if not is_key(key):
            raise ActionError(f"key takes one of {', '.join(KEYS)}; got {rest!r}")
        return KeyPress(key=key)
    if is_key(verb):
        return KeyPress(key=verb)
    if verb == "type":
        return _type(rest)
    needs_text = {"open": "app", "ask": "question", "answer": "text"}
    if verb in needs_text:
        if not rest:
            raise ActionError(f"{verb} needs {needs_text[verb]}")
        text = _text(rest)
        if verb == "open":
            return OpenApp(app=text)
        if verb == "ask":
            return AskUser(question=text)
        return Answer(text=text)
    if verb == "wait":
        return Wait(seconds=float_or(rest, 1.0))
    if verb == "finish":
        status = rest.lower() or "success"
        if not is_finish_status(status):
            raise ActionError("finish takes success or failure")
        return Finish(status=status)
    raise ActionError(f"unknown command {verb!r}; commands: {COMMAND_HELP}")


def _where(action: Tap | LongPress | Scroll) -> str:
    if action.resolved:
        return f"{action.x} {action.y}"
    if action.element is not None:
        return f"#{action.element}"
    return json.dumps(action.target) if action.target is not None else ""


def _shown(text: str) -> str:
    """Text as a command carries it: bare, or JSON-quoted when bare would read back differently."""
    bare = text.strip() == text and text and text[0] not in "\"'-" and text[-1] not in "\"'"
    return text if bare else json.dumps(text, ensure_ascii=False)


def to_command(action: Action) -> str:
    """The command form of an action: short, readable, and parsed back by `parse_command`."""
    match action:
        case Tap() | LongPress():
            return f"{'tap' if isinstance(action, Tap) else 'long'} {_where(action)}"
        case Scroll():
            return f"scroll {action.direction} {_where(action)}".rstrip()
        case Swipe():
            return f"swipe {action.x1} {action.y1} {action.x2} {action.y2}"
        case Type():
            if action.clear:
                return f"type --clear {_shown(action.text)}" if action.text else "type --clear"
            return f"type {_shown(action.text)}"
        case KeyPress():
            return action.key
        case OpenApp():
            return f"open {_shown(action.app)}"
        case Wait():
            return f"wait {action.seconds:g}"
        case AskUser():
            return f"ask {_shown(action.question)}"
        case Answer():
            return f"answer {_shown(action.text)}"
        case Finish():
            return f"finish {action.status}"
    raise ActionError(f"not an action: {action!r}")
