"""Reading actions in the forms other people's agents emit, into the guilens action union.

Besides our own JSON form, `parse_action` reads the three formats the papers'
agents emit, so other people's agents plug in without glue:
- GUI Odyssey / Chain-of-Memory strings (`CLICK: (x, y)`, `SCROLL: UP`, `TYPE: text`, ...);
- UI-TARS / AndroidLens calls (`click(start_box='(x,y)')`, `scroll(direction='down')`, ...),
  with the box variants models really write: `<|box_start|>(x,y)<|box_end|>`,
  `(x1,y1,x2,y2)`, `[x1, y1, x2, y2]`, `<point>x y</point>`;
- Qwen's `mobile_use` tool calls (`<tool_call>{"name": "mobile_use", "arguments": {...}}</tool_call>`).

Each reads its coordinates in a `CoordinateSpace` mapped onto the screen it is
given: `pixels` of that screen, `norm1000` (0-1000 relative), `norm999` (the
999x999 grid) or `unit` (0-1). A caller whose model points in the pixels of a
resized screenshot parses against the screenshot's size with `pixels` and
scales the action with `scale_action` (what `guilens.agents.formats` does).

Scroll directions: UI-TARS names the content's direction, GUI Odyssey the
finger's; both become a `Scroll` in the content's direction. Every failure,
whatever the input, is an `ActionError` that says in one line what was wrong.
"""

from __future__ import annotations

import ast
import functools
import json
import math
import re
from collections.abc import Callable
from typing import Any, Literal, ParamSpec, TypeVar

from pydantic import BaseModel, ValidationError

from guilens.actions.gesture import content_direction, direction
from guilens.actions.model import (
    Action,
    ActionError,
    Answer,
    AskUser,
    Finish,
    Key,
    KeyPress,
    LongPress,
    OpenApp,
    Scroll,
    Swipe,
    Tap,
    Type,
    Wait,
    action_from_dict,
    explain,
    float_or,
    is_finish_status,
)

CoordinateSpace = Literal["pixels", "norm1000", "norm999", "unit"]
FORMAT_SPACE: dict[str, CoordinateSpace] = {"com": "norm1000", "uitars": "norm1000", "mobile_use": "norm999"}
"""The space `parse_action` reads each foreign format in when the caller does not say."""
_SCALE: dict[str, float | None] = {"pixels": None, "norm1000": 1000.0, "norm999": 999.0, "unit": 1.0}
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _one_line(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """A value the action refuses (`wait(time='900')`) is an `ActionError` too, not a pydantic trace."""

    @functools.wraps(fn)
    def read(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return fn(*args, **kwargs)
        except ValidationError as err:
            raise ActionError(f"invalid action: {explain(err)}") from None

    return read


def _to_px(value: float, size: int, space: CoordinateSpace) -> int:
    scale = _SCALE[space]
    px = value if scale is None else value / scale * size
    return max(0, min(size - 1, round(px)))


def _point(x: float, y: float, screen: tuple[int, int], space: CoordinateSpace, raw: str) -> tuple[int, int]:
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ActionError(f"coordinates out of range in {raw[:80]!r}")
    if x < 0 or y < 0:
        raise ActionError(f"negative coordinates in {raw[:80]!r}")
    return _to_px(x, screen[0], space), _to_px(y, screen[1], space)


# --- GUI Odyssey / Chain-of-Memory --------------------------------------------------------------

_COM_POINT = re.compile(
    r"^(CLICK|LONG_PRESS)\s*:\s*[(\[]\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*[)\]]\s*$", re.I
)
_COM_SIMPLE: dict[str, Action] = {
    "PRESS_HOME": KeyPress(key="home"),
    "PRESS_BACK": KeyPress(key="back"),
    "PRESS_RECENT": KeyPress(key="recent"),
    "PRESS_ENTER": KeyPress(key="enter"),
    "COMPLETE": Finish(status="success"),
    "STOP": Finish(status="success"),
    "IMPOSSIBLE": Finish(status="failure"),
}


def _com(text: str, screen: tuple[int, int], space: CoordinateSpace) -> Action | None:
    """A GUI Odyssey command, or None when `text` is not one (so another format may read it)."""
    s = text.strip()
    m = _COM_POINT.match(s)
    if m:
        x, y = _point(float(m[2]), float(m[3]), screen, space, s)
        return Tap(x=x, y=y) if m[1].upper() == "CLICK" else LongPress(x=x, y=y)
    head, colon, rest = s.partition(":")
    head_u = head.strip().upper()
    if colon and head_u == "SCROLL":
        return Scroll(direction=content_direction(rest.strip()))  # GUI Odyssey names the finger's direction
    body = rest[1:] if rest.startswith(" ") else rest
    if colon and head_u in ("TYPE", "ANSWER", "ASK_USER"):
        if not body.strip():
            raise ActionError(f"{head_u}: needs text after the colon")
        if head_u == "TYPE":
            return Type(text=body)
        return Answer(text=body.strip()) if head_u == "ANSWER" else AskUser(question=body.strip())
    return _COM_SIMPLE.get(s.upper())


@_one_line
def parse_com(text: str, screen: tuple[int, int], space: CoordinateSpace = "norm1000") -> Action:
    """A GUI Odyssey / Chain-of-Memory action string; `ActionError` for anything else."""
    action = _com(text, screen, space)
    if action is None:
        raise ActionError(
            f"{text.strip()[:80]!r} is not a command: CLICK: (x, y), LONG_PRESS: (x, y), SCROLL: UP|DOWN|LEFT|RIGHT, "
            "TYPE: text, PRESS_BACK, PRESS_HOME, PRESS_RECENT, PRESS_ENTER, ANSWER: text, ASK_USER: question, "
            "COMPLETE or IMPOSSIBLE"
        )
    return action


# --- UI-TARS / AndroidLens ----------------------------------------------------------------------

_CALL = re.compile(r"^([a-z_]+)\s*\((.*)\)\s*$", re.S)
_TYPE_CALL = re.compile(r"^type\s*\(\s*content\s*=\s*(['\"])(.*)\1\s*\)\s*$", re.S)
_BOX_ALIASES = {"point": "start_box", "start_point": "start_box", "end_point": "end_box"}
_TARS_KEYS: dict[str, Key] = {"press_back": "back", "press_home": "home", "press_enter": "enter",
                              "press_menu": "menu", "press_recent": "recent", "press_delete": "delete"}


def _call_kwargs(args: str, raw: str) -> dict[str, Any]:
    if not args.strip():
        return {}
    try:
        tree = ast.parse(f"f({args})", mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # null bytes and absurd nesting too
        raise ActionError(f"cannot read the arguments of {raw[:80]!r}") from None
    call = tree.body
    if not isinstance(call, ast.Call) or call.args:
        raise ActionError(f"{raw[:80]!r}: arguments must be named, like start_box='(x,y)'")
    out: dict[str, Any] = {}
    for kw in call.keywords:
        if kw.arg is None or not isinstance(kw.value, ast.Constant):
            raise ActionError(f"{raw[:80]!r}: argument values must be literals")
        out[_BOX_ALIASES.get(kw.arg, kw.arg)] = kw.value.value
    return out


def _box_center(box: Any, screen: tuple[int, int], space: CoordinateSpace, raw: str) -> tuple[int, int]:
    """The centre of a UI-TARS box: `(x,y)`, `(x1,y1,x2,y2)`, `[x1, y1, x2, y2]`, `<point>x y</point>`,
    with or without `<|box_start|>`/`<|box_end|>` around it."""
    text = str(box)
    for tag in ("<|box_start|>", "<|box_end|>", "<point>", "</point>", "<bbox>", "</bbox>"):
        text = text.replace(tag, " ")
    nums = [float(n) for n in NUMBER.findall(text)]
    if len(nums) == 2:
        x, y = nums
    elif len(nums) == 4:
        x, y = (nums[0] + nums[2]) / 2, (nums[1] + nums[3]) / 2
    else:
        raise ActionError(f"{raw[:80]!r}: a box is (x,y) or (x1,y1,x2,y2), got {str(box)[:40]!r}")
    return _point(x, y, screen, space, raw)


def _uitars(text: str, screen: tuple[int, int], space: CoordinateSpace) -> Action | None:
    """A UI-TARS call, or None when `text` is not a call at all."""
    s = text.strip()
    if s.lower().startswith("action:"):
        s = s[7:].strip()
    m = _CALL.match(s)
    if not m:
        return None
    name = m[1].lower()
    if name == "type":
        typed = _TYPE_CALL.match(s)
        try:
            kw = _call_kwargs(m[2], s)
        except ActionError:
            if typed is None:
                raise
            kw = {"content": typed[2]}  # an unescaped quote inside the text, as UI-TARS often writes it
        content = str(kw.get("content", ""))
        if not content:
            raise ActionError(f"{s[:80]!r}: type needs non-empty content")
        return Type(text=content.replace("\\n", "\n").replace("\\'", "'").replace('\\"', '"'),
                    clear=bool(kw.get("clear", False) or kw.get("replace", False)))
    kw = _call_kwargs(m[2], s)
    if name in ("click", "left_single", "tap", "long_press"):
        if "start_box" not in kw:
            raise ActionError(f"{s[:80]!r}: {name} needs start_box")
        x, y = _box_center(kw["start_box"], screen, space, s)
        if name == "long_press":
            secs = float_or(kw.get("time"), 1.0)
            return LongPress(x=x, y=y, duration_ms=max(1, min(60_000, round(secs * 1000))))
        return Tap(x=x, y=y)
    if name == "scroll":
        where = _box_center(kw["start_box"], screen, space, s) if "start_box" in kw else None
        d = direction(kw.get("direction", ""))
        return Scroll(direction=d) if where is None else Scroll(direction=d, x=where[0], y=where[1])
    if name in ("drag", "swipe"):
        if "start_box" not in kw or "end_box" not in kw:
            raise ActionError(f"{s[:80]!r}: {name} needs start_box and end_box")
        x1, y1 = _box_center(kw["start_box"], screen, space, s)
        x2, y2 = _box_center(kw["end_box"], screen, space, s)
        return Swipe(x1=x1, y1=y1, x2=x2, y2=y2)
    if name in _TARS_KEYS:
        return KeyPress(key=_TARS_KEYS[name])
    if name == "wait":
        return Wait(seconds=float_or(kw.get("time"), 5.0) or 5.0)
    if name == "open_app":
        app = str(kw.get("app_name", kw.get("app", ""))).strip()
        if not app:
            raise ActionError(f"{s[:80]!r}: open_app needs app_name")
        return OpenApp(app=app)
    if name == "finished":
        content = str(kw.get("content", "")).replace("\\n", "\n").replace("\\'", "'").strip()
        return Answer(text=content) if content else Finish(status="success")
    if name == "call_user":
        return AskUser(question=str(kw.get("content", "")).strip() or "I need your help to go on.")
    raise ActionError(
        f"unknown UI-TARS action {name!r}: use click, long_press, type, scroll, open_app, drag, press_home, "
        "press_back, wait or finished"
    )


@_one_line
def parse_uitars(text: str, screen: tuple[int, int], space: CoordinateSpace = "norm1000") -> Action:
    """One UI-TARS call (`click(start_box='(x,y)')`, optionally after `Action:`); `ActionError` otherwise."""
    action = _uitars(text, screen, space)
    if action is None:
        raise ActionError(f"{text.strip()[:80]!r} is not an action call like click(start_box='(x,y)')")
    return action


# --- Qwen mobile_use ----------------------------------------------------------------------------

_BUTTONS: dict[str, Key] = {"back": "back", "home": "home", "menu": "menu", "enter": "enter", "recent": "recent",
                            "app_switch": "recent", "delete": "delete", "del": "delete", "backspace": "delete"}


@_one_line
def parse_mobile_use(data: dict[str, Any], screen: tuple[int, int], space: CoordinateSpace = "norm999") -> Action:
    """A `mobile_use` call's arguments (or the whole `{"name": ..., "arguments": ...}` call)."""
    if isinstance(data.get("arguments"), str):
        try:
            data = {**data, "arguments": json.loads(data["arguments"])}
        except json.JSONDecodeError as err:
            raise ActionError(f"mobile_use arguments are not JSON: {err.msg} at column {err.colno}") from None
    if "arguments" in data and isinstance(data.get("arguments"), dict):
        data = data["arguments"]
    act = str(data.get("action", "")).strip().lower()

    def coord(key: str) -> tuple[int, int]:
        c = data.get(key)
        if not isinstance(c, list | tuple) or len(c) != 2 or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in c
        ):
            raise ActionError(f"mobile_use {act}: '{key}' must be [x, y], got {str(c)[:40]}")
        try:
            x, y = float(c[0]), float(c[1])
        except OverflowError:
            raise ActionError(f"mobile_use {act}: '{key}' is out of range") from None
        return _point(x, y, screen, space, f"{key}={str(c)[:40]}")

    def text(key: str = "text") -> str:
        t = data.get(key)
        if not isinstance(t, str) or not t:
            raise ActionError(f"mobile_use {act}: '{key}' must be a non-empty string")
        return t

    if act in ("click", "tap"):
        x, y = coord("coordinate")
        return Tap(x=x, y=y)
    if act == "long_press":
        x, y = coord("coordinate")
        secs = float_or(data.get("time"), 1.0)
        return LongPress(x=x, y=y, duration_ms=max(1, min(60_000, round(secs * 1000))))
    if act == "swipe":
        x1, y1 = coord("coordinate")
        x2, y2 = coord("coordinate2")
        return Swipe(x1=x1, y1=y1, x2=x2, y2=y2)
    if act == "type":
        return Type(text=text(), clear=bool(data.get("clear", False)))
    if act in ("system_button", "key"):
        raw = data.get("button", data.get("text", ""))
        button = str(raw).strip().lower().removeprefix("keycode_")
        if button not in _BUTTONS:
            raise ActionError(f"mobile_use {act}: button {raw!r} is not Back, Home, Menu, Enter or Delete")
        return KeyPress(key=_BUTTONS[button])
    if act == "open":
        return OpenApp(app=text().strip() or text())
    if act == "wait":
        return Wait(seconds=float_or(data.get("time"), 2.0) or 2.0)
    if act == "answer":
        return Answer(text=text().strip() or text())
    if act == "ask_user":
        return AskUser(question=text().strip() or text())
    if act == "terminate":
        status = str(data.get("status", "success")).lower()
        if status == "fail":
            status = "failure"
        if not is_finish_status(status):
            raise ActionError(f"mobile_use terminate: status {status!r} is not success or failure")
        return Finish(status=status)
    raise ActionError(f"unknown mobile_use action {act!r}" if act else "mobile_use call without an 'action'")


# --- any of them ------------------------------------------------------------------------------

TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)


@_one_line
def parse_action(
    raw: Any,
    screen: tuple[int, int] = (1080, 2400),
    *,
    space: CoordinateSpace | None = None,
) -> Action:
    """Read an action in any supported form; raise `ActionError` for anything else.

    `space` overrides the coordinate space a foreign format is read in (CoM and
    UI-TARS default to [0,1000], `mobile_use` to its 999x999 grid); our own JSON
    form is always device pixels.
    """
    if isinstance(raw, BaseModel) and getattr(raw, "type", None):
        return action_from_dict(raw.model_dump())
    if isinstance(raw, dict):
        if "type" in raw:
            return action_from_dict(raw)
        if "action" in raw or raw.get("name") == "mobile_use":
            return parse_mobile_use(raw, screen, space or FORMAT_SPACE["mobile_use"])
        raise ActionError("an action object needs 'type' (guilens) or 'action' (mobile_use)")
    if not isinstance(raw, str):
        raise ActionError(f"cannot read an action from {type(raw).__name__}")
    s = raw.strip()
    if not s:
        raise ActionError("empty action")
    m = TOOL_CALL.search(s)
    if m:
        s = m[1]
    if s.startswith("{"):
        try:
            data = json.loads(s)
        except json.JSONDecodeError as err:
            raise ActionError(f"invalid JSON action: {err.msg} at column {err.colno}") from None
        return parse_action(data, screen, space=space)
    com = _com(s, screen, space or FORMAT_SPACE["com"])
    if com is not None:
        return com
    tars = _uitars(s, screen, space or FORMAT_SPACE["uitars"])
    if tars is not None:
        return tars
    raise ActionError(f"unrecognised action {s[:80]!r}")
