"""The action union: the pydantic models, their JSON form, and the checks every action passes.

Coordinates are device pixels. An action may instead point at an element of the
UI tree (`element`: its number in the actionable-element list, or `target`: a
text, content-desc or resource-id); the runner resolves it to the element's
centre and records both, so a replay shows where the finger really landed.

Schema history (the episode's `SCHEMA_VERSION` follows it): version 3 added
`type.clear`, the `delete` key and the `scroll` action. Every action of the
older versions is still valid as it was written, so old episodes read unchanged.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal, TypeGuard

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

KEYS = ("back", "home", "enter", "delete", "menu", "recent")
Key = Literal["back", "home", "enter", "delete", "menu", "recent"]
DIRECTIONS = ("up", "down", "left", "right")
Direction = Literal["up", "down", "left", "right"]
FINISH_STATUSES = ("success", "failure")
FinishStatus = Literal["success", "failure"]
OPPOSITE: dict[str, Direction] = {"up": "down", "down": "up", "left": "right", "right": "left"}
"""A finger's direction and the content's direction are opposites: the finger moves up to scroll down."""


def is_key(value: str) -> TypeGuard[Key]:
    """`value in KEYS`, in a form the type checker narrows `str` to `Key` by (it does not for `in`)."""
    return value in KEYS


def is_direction(value: str) -> TypeGuard[Direction]:
    """`value in DIRECTIONS`, narrowing `str` to `Direction` for the type checker."""
    return value in DIRECTIONS


def is_finish_status(value: str) -> TypeGuard[FinishStatus]:
    """`value in FINISH_STATUSES`, narrowing `str` to `FinishStatus` for the type checker."""
    return value in FINISH_STATUSES


class ActionError(ValueError):
    """An action that cannot be used; the message names the field or the input, in one line."""


class _Base(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def describe(self) -> str:
        """A short human-readable form, used when the agent gives no description."""
        from guilens.actions.command import to_command  # the command form builds on the models

        return to_command(self)  # type: ignore[arg-type]


class _Located(_Base):
    """An action that may happen at a point: pixels, or an element the runner resolves to pixels."""

    x: int | None = Field(default=None, ge=0, description="Device pixels from the left edge.")
    y: int | None = Field(default=None, ge=0, description="Device pixels from the top edge.")
    element: int | None = Field(default=None, ge=0, description="Number in the actionable-element list.")
    target: str | None = Field(default=None, min_length=1, description="Text, content-desc or resource-id.")

    @model_validator(mode="after")
    def _xy_together(self) -> _Located:
        if (self.x is None) != (self.y is None):
            raise ValueError("x and y go together: give both or neither")
        return self

    @property
    def resolved(self) -> bool:
        """Whether the point is known in pixels (an element or target still needs the UI tree)."""
        return self.x is not None and self.y is not None

    @property
    def names_element(self) -> bool:
        """Whether it points at an element the runner must resolve before a device can act."""
        return not self.resolved and (self.element is not None or self.target is not None)


class _Pointed(_Located):
    """An action that needs a point: one of pixels, an element number or a target text."""

    @model_validator(mode="after")
    def _one_way_to_point(self) -> _Pointed:
        if not self.resolved and self.element is None and self.target is None:
            raise ValueError("give x and y, an element number, or a target text")
        return self


class Tap(_Pointed):
    type: Literal["tap"] = "tap"


class LongPress(_Pointed):
    type: Literal["long_press"] = "long_press"
    duration_ms: int = Field(default=800, ge=1, le=60_000)


class Swipe(_Base):
    """A finger moving from (x1, y1) to (x2, y2): the raw gesture. To look further down a list, `Scroll`."""

    type: Literal["swipe"] = "swipe"
    x1: int = Field(ge=0)
    y1: int = Field(ge=0)
    x2: int = Field(ge=0)
    y2: int = Field(ge=0)
    duration_ms: int = Field(default=300, ge=1, le=60_000)


class Scroll(_Located):
    """Scroll the content so that what lies in `direction` comes into view.

    `direction` is the content's direction, as a person says it: `down` shows what
    is below, so the finger moves *up* the screen; `right` shows what is to the
    right, the finger moving left. It is the direction UI-TARS' `scroll(direction=)`
    names; GUI Odyssey's `SCROLL: UP` names the finger's and reads as `down` here.

    With no point it scrolls the screen's main list. With a point (x/y, an element
    number or a target text, as `Tap` takes them) it scrolls the scrollable
    container under that point, the one a finger put down there would move.
    """

    type: Literal["scroll"] = "scroll"
    direction: Direction = Field(description="Where the content moves into view: down shows what is below.")


class Type(_Base):
    """Type into the focused field; with `clear`, empty the field first, so the text replaces what it held."""

    type: Literal["type"] = "type"
    text: str = Field(description="What to type; may be empty only with clear (to just empty the field).")
    clear: bool = Field(default=False, description="Empty the focused field before typing.")

    @model_validator(mode="after")
    def _something_to_do(self) -> Type:
        if not self.text and not self.clear:
            raise ValueError("text is empty: say what to type, or give clear: true to only empty the field")
        return self


class KeyPress(_Base):
    """A key: `back`, `home`, `enter`, `menu`, `recent`, or `delete`, which deletes the character
    before the cursor (Android's KEYCODE_DEL, 67: the keyboard's backspace)."""

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
    status: FinishStatus = "success"


Action = Annotated[
    Tap | LongPress | Swipe | Scroll | Type | KeyPress | OpenApp | Wait | AskUser | Answer | Finish,
    Field(discriminator="type"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)
ACTION_TYPES = ("tap", "long_press", "swipe", "scroll", "type", "key", "open_app", "wait", "ask_user", "answer", "finish")
TERMINAL_TYPES = frozenset({"finish", "answer"})
LOCATED = (Tap, LongPress, Scroll)
"""The actions that may point at an element (`element`/`target`) for the runner to resolve to pixels."""


def explain(err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"] if p not in ("function-after",))
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "union_tag_invalid":
            msg = f"unknown action type {e.get('input', {}).get('type')!r}; expected one of {', '.join(ACTION_TYPES)}"
            loc = "type"
        elif e["type"] == "union_tag_not_found":
            msg = f"missing 'type'; expected one of {', '.join(ACTION_TYPES)}"
            loc = "type"
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def action_from_dict(data: dict[str, Any]) -> Action:
    """Validate our own JSON form (`{"type": "tap", "x": 540, "y": 1200}`)."""
    if not isinstance(data, dict):
        raise ActionError(f"an action is a JSON object, not {type(data).__name__}")
    try:
        return ACTION_ADAPTER.validate_python(data)
    except ValidationError as err:
        raise ActionError(f"invalid {data.get('type', 'action')} action: {explain(err)}") from None


def check_on_screen(action: Action, width: int, height: int) -> None:
    """Reject coordinates outside a `width` x `height` screen, naming the field."""
    fields: list[tuple[str, int | None, int]] = []
    if isinstance(action, LOCATED):
        fields = [("x", action.x, width), ("y", action.y, height)]
    elif isinstance(action, Swipe):
        fields = [("x1", action.x1, width), ("y1", action.y1, height), ("x2", action.x2, width), ("y2", action.y2, height)]
    for name, value, limit in fields:
        if value is not None and value >= limit:
            raise ActionError(
                f"{action.type}.{name}={value} is off the {width}x{height} screen (must be below {limit})"
            )


def scale_action(action: Action, src: tuple[int, int], dst: tuple[int, int]) -> Action:
    """The same action on a `dst`-sized screen, for coordinates given on a `src`-sized image.

    Pixel centre maps to pixel centre and the result is clamped to `dst`, so a
    model that points at the middle of an icon in a downscaled screenshot hits
    the middle of that icon on the device. Element and target actions pass as
    they are: the runner resolves them on the device's own tree.
    """
    if src == dst:
        return action
    (sw, sh), (dw, dh) = src, dst

    def px(v: int, s: int, d: int) -> int:
        return max(0, min(d - 1, round((v + 0.5) * d / s - 0.5)))

    if isinstance(action, Swipe):
        return action.model_copy(update={"x1": px(action.x1, sw, dw), "y1": px(action.y1, sh, dh),
                                          "x2": px(action.x2, sw, dw), "y2": px(action.y2, sh, dh)})
    if isinstance(action, LOCATED) and action.x is not None and action.y is not None:
        return action.model_copy(update={"x": px(action.x, sw, dw), "y": px(action.y, sh, dh)})
    return action


def float_or(value: Any, default: float) -> float:
    """A number from a model's or a person's text, or `default` when none was given."""
    if value in (None, ""):
        return default
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ActionError(f"{value!r} is not a number") from None
    if not math.isfinite(number):
        raise ActionError(f"{value!r} is not a number")
    return number
