"""The action union every agent, device, recorder and screen speaks.

Coordinates are device pixels. An action may instead point at an element of the
UI tree (`element`: its number in the actionable-element list, or `target`: a
text, content-desc or resource-id); the runner resolves it to the element's
centre and records both, so a replay shows where the tap really landed.

Besides our own JSON form, `parse_action` reads the three formats the papers'
agents emit (GUI Odyssey / Chain-of-Memory strings, AndroidLens / UI-TARS calls,
ScenDroid's `mobile_use` JSON), so other people's agents plug in without glue.
Every failure, whatever the input, is an `ActionError` that says what was wrong.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

KEYS = ("back", "home", "enter", "menu", "recent")
Key = Literal["back", "home", "enter", "menu", "recent"]


class ActionError(ValueError):
    """An action that cannot be used; the message names the field or the input."""


class _Base(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def describe(self) -> str:
        """A short human-readable form, used when the agent gives no description."""
        return to_command(self)  # type: ignore[arg-type]


class _Pointed(_Base):
    """An action at a point: pixels, or an element the runner resolves to pixels."""

    x: int | None = Field(default=None, ge=0, description="Device pixels from the left edge.")
    y: int | None = Field(default=None, ge=0, description="Device pixels from the top edge.")
    element: int | None = Field(default=None, ge=0, description="Number in the actionable-element list.")
    target: str | None = Field(default=None, min_length=1, description="Text, content-desc or resource-id.")

    @model_validator(mode="after")
    def _one_way_to_point(self) -> _Pointed:
        has_xy = self.x is not None or self.y is not None
        if has_xy and (self.x is None or self.y is None):
            raise ValueError("x and y go together: give both or neither")
        if not has_xy and self.element is None and self.target is None:
            raise ValueError("give x and y, an element number, or a target text")
        return self

    @property
    def resolved(self) -> bool:
        return self.x is not None and self.y is not None


class Tap(_Pointed):
    type: Literal["tap"] = "tap"


class LongPress(_Pointed):
    type: Literal["long_press"] = "long_press"
    duration_ms: int = Field(default=800, ge=1, le=60_000)


class Swipe(_Base):
    type: Literal["swipe"] = "swipe"
    x1: int = Field(ge=0)
    y1: int = Field(ge=0)
    x2: int = Field(ge=0)
    y2: int = Field(ge=0)
    duration_ms: int = Field(default=300, ge=1, le=60_000)


class Type(_Base):
    type: Literal["type"] = "type"
    text: str = Field(min_length=1)


class KeyPress(_Base):
    type: Literal["key"] = "key"
    key: Key


class OpenApp(_Base):
    type: Literal["open_app"] = "open_app"
    app: str = Field(min_length=1, description="Package name or launcher label.")


class Wait(_Base):
    type: Literal["wait"] = "wait"
    seconds: float = Field(default=1.0, gt=0, le=600)


class AskUser(_Base):
    type: Literal["ask_user"] = "ask_user"
    question: str = Field(min_length=1)


class Answer(_Base):
    type: Literal["answer"] = "answer"
    text: str = Field(min_length=1)


class Finish(_Base):
    type: Literal["finish"] = "finish"
    status: Literal["success", "failure"] = "success"


Action = Annotated[
    Tap | LongPress | Swipe | Type | KeyPress | OpenApp | Wait | AskUser | Answer | Finish,
    Field(discriminator="type"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)
TERMINAL_TYPES = frozenset({"finish", "answer"})


def _explain(err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"] if p not in ("function-after",))
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "union_tag_invalid":
            msg = f"unknown action type {e.get('input', {}).get('type')!r}; expected one of {_TYPES}"  # type: ignore[union-attr]
            loc = "type"
        elif e["type"] == "union_tag_not_found":
            msg = f"missing 'type'; expected one of {_TYPES}"
            loc = "type"
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


_TYPES = "tap, long_press, swipe, type, key, open_app, wait, ask_user, answer, finish"


def action_from_dict(data: dict[str, Any]) -> Action:
    """Validate our own JSON form (`{"type": "tap", "x": 540, "y": 1200}`)."""
    if not isinstance(data, dict):
        raise ActionError(f"an action is a JSON object, not {type(data).__name__}")
    try:
        return ACTION_ADAPTER.validate_python(data)
    except ValidationError as err:
        raise ActionError(f"invalid {data.get('type', 'action')} action: {_explain(err)}") from None


def check_on_screen(action: Action, width: int, height: int) -> None:
    """Reject coordinates outside a `width` x `height` screen, naming the field."""
    fields: list[tuple[str, int | None, int]] = []
    if isinstance(action, Tap | LongPress):
        fields = [("x", action.x, width), ("y", action.y, height)]
    elif isinstance(action, Swipe):
        fields = [("x1", action.x1, width), ("y1", action.y1, height), ("x2", action.x2, width), ("y2", action.y2, height)]
    for name, value, limit in fields:
        if value is not None and value >= limit:
            raise ActionError(
                f"{action.type}.{name}={value} is off the {width}x{height} screen (must be below {limit})"
            )


# --- foreign formats -------------------------------------------------------------------------

CoordinateSpace = Literal["pixels", "norm1000", "norm999", "unit"]
_FORMAT_SPACE: dict[str, CoordinateSpace] = {"com": "norm1000", "uitars": "norm1000", "mobile_use": "norm999"}


def _to_px(value: float, size: int, space: CoordinateSpace) -> int:
    scale = {"pixels": None, "norm1000": 1000.0, "norm999": 999.0, "unit": 1.0}[space]
    px = value if scale is None else value / scale * size
    return max(0, min(size - 1, round(px)))


def _point(x: float, y: float, screen: tuple[int, int], space: CoordinateSpace) -> tuple[int, int]:
    return _to_px(x, screen[0], space), _to_px(y, screen[1], space)


def _scroll_swipe(direction: str, screen: tuple[int, int], origin: tuple[int, int] | None, finger: bool) -> Swipe:
    """A swipe for a scroll. `finger`: the direction is the finger's (CoM); else the view's (UI-TARS)."""
    w, h = screen
    d = direction.strip().lower()
    if d not in ("up", "down", "left", "right"):
        raise ActionError(f"scroll direction {direction!r} is not up, down, left or right")
    if not finger:
        d = {"up": "down", "down": "up", "left": "right", "right": "left"}[d]
    cx, cy = origin or (w // 2, h // 2)
    dx, dy = {"up": (0, -h * 0.3), "down": (0, h * 0.3), "left": (-w * 0.35, 0), "right": (w * 0.35, 0)}[d]
    x2 = max(0, min(w - 1, round(cx + dx)))
    y2 = max(0, min(h - 1, round(cy + dy)))
    return Swipe(x1=cx, y1=cy, x2=x2, y2=y2, duration_ms=400)


_COM_POINT = re.compile(r"^(CLICK|LONG_PRESS)\s*:\s*\(\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)\s*\)\s*$", re.I)


def _parse_com(text: str, screen: tuple[int, int], space: CoordinateSpace) -> Action | None:
    s = text.strip()
    m = _COM_POINT.match(s)
    if m:
        x, y = _point(float(m[2]), float(m[3]), screen, space)
        _nonneg(float(m[2]), float(m[3]), s)
        return Tap(x=x, y=y) if m[1].upper() == "CLICK" else LongPress(x=x, y=y)
    head, _, rest = s.partition(":")
    head_u = head.strip().upper()
    if head_u == "SCROLL" and _:
        return _scroll_swipe(rest, screen, None, finger=True)
    if head_u == "TYPE" and _:
        body = rest[1:] if rest.startswith(" ") else rest
        if not body:
            raise ActionError("TYPE: needs text after the colon")
        return Type(text=body)
    simple: dict[str, Action] = {
        "PRESS_HOME": KeyPress(key="home"),
        "PRESS_BACK": KeyPress(key="back"),
        "PRESS_RECENT": KeyPress(key="recent"),
        "PRESS_ENTER": KeyPress(key="enter"),
        "COMPLETE": Finish(status="success"),
        "STOP": Finish(status="success"),
        "IMPOSSIBLE": Finish(status="failure"),
    }
    return simple.get(s.upper())


def _nonneg(x: float, y: float, raw: str) -> None:
    if x < 0 or y < 0:
        raise ActionError(f"negative coordinates in {raw!r}")


_CALL = re.compile(r"^([a-z_]+)\s*\((.*)\)\s*$", re.S)
_NUMS = re.compile(r"-?\d+(?:\.\d+)?")


def _call_kwargs(args: str, raw: str) -> dict[str, Any]:
    if not args.strip():
        return {}
    try:
        tree = ast.parse(f"f({args})", mode="eval")
    except SyntaxError:
        raise ActionError(f"cannot read the arguments of {raw!r}") from None
    call = tree.body
    if not isinstance(call, ast.Call) or call.args:
        raise ActionError(f"{raw!r}: arguments must be named, like start_box='(x,y)'")
    out: dict[str, Any] = {}
    for kw in call.keywords:
        if kw.arg is None or not isinstance(kw.value, ast.Constant):
            raise ActionError(f"{raw!r}: argument values must be literals")
        out[kw.arg] = kw.value.value
    return out


def _box_center(box: Any, screen: tuple[int, int], space: CoordinateSpace, raw: str) -> tuple[int, int]:
    nums = [float(n) for n in _NUMS.findall(str(box).replace("<|box_start|>", "").replace("<|box_end|>", ""))]
    if len(nums) == 2:
        x, y = nums
    elif len(nums) == 4:
        x, y = (nums[0] + nums[2]) / 2, (nums[1] + nums[3]) / 2
    else:
        raise ActionError(f"{raw!r}: a box is (x,y) or (x1,y1,x2,y2), got {box!r}")
    _nonneg(x, y, raw)
    return _point(x, y, screen, space)


def _parse_uitars(text: str, screen: tuple[int, int], space: CoordinateSpace) -> Action | None:
    s = text.strip()
    if s.lower().startswith("action:"):
        s = s[7:].strip()
    m = _CALL.match(s)
    if not m:
        return None
    name, kw = m[1].lower(), _call_kwargs(m[2], s)
    if name in ("click", "left_single", "long_press"):
        if "start_box" not in kw:
            raise ActionError(f"{s!r}: {name} needs start_box")
        x, y = _box_center(kw["start_box"], screen, space, s)
        if name == "long_press":
            secs = _float_or(kw.get("time"), 1.0)
            return LongPress(x=x, y=y, duration_ms=max(1, min(60_000, round(secs * 1000))))
        return Tap(x=x, y=y)
    if name == "type":
        content = str(kw.get("content", ""))
        if not content:
            raise ActionError(f"{s!r}: type needs non-empty content")
        return Type(text=content.replace("\\n", "\n").replace("\\'", "'"))
    if name == "scroll":
        origin = _box_center(kw["start_box"], screen, space, s) if "start_box" in kw else None
        return _scroll_swipe(str(kw.get("direction", "")), screen, origin, finger=False)
    if name == "drag":
        if "start_box" not in kw or "end_box" not in kw:
            raise ActionError(f"{s!r}: drag needs start_box and end_box")
        x1, y1 = _box_center(kw["start_box"], screen, space, s)
        x2, y2 = _box_center(kw["end_box"], screen, space, s)
        return Swipe(x1=x1, y1=y1, x2=x2, y2=y2)
    keys = {"press_back": "back", "press_home": "home", "press_enter": "enter", "press_menu": "menu"}
    if name in keys:
        return KeyPress(key=keys[name])  # type: ignore[arg-type]
    if name == "wait":
        return Wait(seconds=_float_or(kw.get("time"), 5.0) or 5.0)
    if name == "open_app":
        app = str(kw.get("app_name", kw.get("app", "")))
        if not app:
            raise ActionError(f"{s!r}: open_app needs app_name")
        return OpenApp(app=app)
    if name == "finished":
        content = str(kw.get("content", "")).strip()
        return Answer(text=content) if content else Finish(status="success")
    if name == "call_user":
        return AskUser(question=str(kw.get("content", "")).strip() or "I need your help to go on.")
    raise ActionError(f"unknown UI-TARS action {name!r}")


def _float_or(value: Any, default: float) -> float:
    if value in (None, ""):
        return default
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ActionError(f"{value!r} is not a number") from None


_BUTTONS = {"back": "back", "home": "home", "menu": "menu", "enter": "enter", "recent": "recent"}


def _parse_mobile_use(data: dict[str, Any], screen: tuple[int, int], space: CoordinateSpace) -> Action:
    if "arguments" in data and isinstance(data.get("arguments"), dict):
        data = data["arguments"]
    act = str(data.get("action", "")).lower()

    def coord(key: str) -> tuple[int, int]:
        c = data.get(key)
        if not isinstance(c, list | tuple) or len(c) != 2 or not all(isinstance(v, int | float) for v in c):
            raise ActionError(f"mobile_use {act}: '{key}' must be [x, y], got {c!r}")
        _nonneg(float(c[0]), float(c[1]), f"{key}={c}")
        return _point(float(c[0]), float(c[1]), screen, space)

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
        secs = _float_or(data.get("time"), 1.0)
        return LongPress(x=x, y=y, duration_ms=max(1, min(60_000, round(secs * 1000))))
    if act == "swipe":
        x1, y1 = coord("coordinate")
        x2, y2 = coord("coordinate2")
        return Swipe(x1=x1, y1=y1, x2=x2, y2=y2)
    if act == "type":
        return Type(text=text())
    if act in ("system_button", "key"):
        button = str(data.get("button", data.get("text", ""))).lower()
        if button not in _BUTTONS:
            raise ActionError(f"mobile_use {act}: button {button!r} is not Back, Home, Menu or Enter")
        return KeyPress(key=_BUTTONS[button])  # type: ignore[arg-type]
    if act == "open":
        return OpenApp(app=text())
    if act == "wait":
        return Wait(seconds=_float_or(data.get("time"), 2.0) or 2.0)
    if act == "answer":
        return Answer(text=text())
    if act == "ask_user":
        return AskUser(question=text())
    if act == "terminate":
        status = str(data.get("status", "success")).lower()
        if status not in ("success", "failure"):
            raise ActionError(f"mobile_use terminate: status {status!r} is not success or failure")
        return Finish(status=status)  # type: ignore[arg-type]
    raise ActionError(f"unknown mobile_use action {act!r}")


_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)


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
            return _parse_mobile_use(raw, screen, space or _FORMAT_SPACE["mobile_use"])
        raise ActionError("an action object needs 'type' (guilens) or 'action' (mobile_use)")
    if not isinstance(raw, str):
        raise ActionError(f"cannot read an action from {type(raw).__name__}")
    s = raw.strip()
    if not s:
        raise ActionError("empty action")
    m = _TOOL_CALL.search(s)
    if m:
        s = m[1]
    if s.startswith("{"):
        try:
            data = json.loads(s)
        except json.JSONDecodeError as err:
            raise ActionError(f"invalid JSON action: {err.msg} at column {err.colno}") from None
        return parse_action(data, screen, space=space)
    com = _parse_com(s, screen, space or _FORMAT_SPACE["com"])
    if com is not None:
        return com
    tars = _parse_uitars(s, screen, space or _FORMAT_SPACE["uitars"])
    if tars is not None:
        return tars
    raise ActionError(f"unrecognised action {s[:80]!r}")


# --- the command form people type ------------------------------------------------------------

COMMAND_HELP = (
    "tap X Y | tap \"Text\" | tap #N | long X Y | swipe X1 Y1 X2 Y2 | scroll up|down|left|right | "
    "type TEXT | back | home | enter | menu | recent | open APP | wait S | ask QUESTION | answer TEXT | "
    "finish [success|failure]"
)


def parse_command(line: str, screen: tuple[int, int] = (1080, 2400)) -> Action:
    """Read the short command form a person types (headless human agent, the TUI's `:` line)."""
    s = line.strip()
    if not s:
        raise ActionError(f"empty command; commands: {COMMAND_HELP}")
    verb, _, rest = s.partition(" ")
    verb = verb.lower()
    rest = rest.strip()
    if verb in ("tap", "long", "long_press", "press"):
        cls = Tap if verb == "tap" else LongPress
        if rest.startswith("#") and rest[1:].isdigit():
            return cls(element=int(rest[1:]))
        try:
            parts = shlex.split(rest)
        except ValueError as err:
            raise ActionError(f"{verb}: {err}") from None
        if len(parts) == 2 and all(_NUMS.fullmatch(p) for p in parts):
            x, y = (round(float(p)) for p in parts)
            if x < 0 or y < 0:
                raise ActionError(f"{verb}: coordinates must not be negative")
            return cls(x=x, y=y)
        if len(parts) == 1:
            return cls(target=parts[0])
        raise ActionError(f"{verb} takes X Y, #N or \"text\"; got {rest!r}")
    if verb == "swipe":
        nums = rest.split()
        if len(nums) != 4 or not all(n.isdigit() for n in nums):
            raise ActionError(f"swipe takes four whole numbers X1 Y1 X2 Y2; got {rest!r}")
        x1, y1, x2, y2 = map(int, nums)
        return Swipe(x1=x1, y1=y1, x2=x2, y2=y2)
    if verb == "scroll":
        return _scroll_swipe(rest, screen, None, finger=False)
    if verb in KEYS:
        return KeyPress(key=verb)  # type: ignore[arg-type]
    needs_text = {"type": "text", "open": "app", "ask": "question", "answer": "text"}
    if verb in needs_text:
        if not rest:
            raise ActionError(f"{verb} needs {needs_text[verb]}")
        text = rest[1:-1] if len(rest) >= 2 and rest[0] == rest[-1] and rest[0] in "\"'" else rest
        if verb == "type":
            return Type(text=text)
        if verb == "open":
            return OpenApp(app=text)
        if verb == "ask":
            return AskUser(question=text)
        return Answer(text=text)
    if verb == "wait":
        return Wait(seconds=_float_or(rest, 1.0))
    if verb == "finish":
        status = rest.lower() or "success"
        if status not in ("success", "failure"):
            raise ActionError("finish takes success or failure")
        return Finish(status=status)  # type: ignore[arg-type]
    raise ActionError(f"unknown command {verb!r}; commands: {COMMAND_HELP}")


def to_command(action: Action) -> str:
    """The command form of an action: short, readable, and parsed back by `parse_command`."""
    match action:
        case Tap() | LongPress():
            verb = "tap" if isinstance(action, Tap) else "long"
            if action.resolved:
                return f"{verb} {action.x} {action.y}"
            if action.element is not None:
                return f"{verb} #{action.element}"
            return f"{verb} {json.dumps(action.target)}"
        case Swipe():
            return f"swipe {action.x1} {action.y1} {action.x2} {action.y2}"
        case Type():
            return f"type {action.text}"
        case KeyPress():
            return action.key
        case OpenApp():
            return f"open {action.app}"
        case Wait():
            return f"wait {action.seconds:g}"
        case AskUser():
            return f"ask {action.question}"
        case Answer():
            return f"answer {action.text}"
        case Finish():
            return f"finish {action.status}"
    raise ActionError(f"not an action: {action!r}")
