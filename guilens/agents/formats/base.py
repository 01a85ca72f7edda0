"""What every text format shares: coordinates, the image size sent, and reading a reply into an action.

A format is the contract between guilens and one family of models: the system
prompt the model was trained or told to expect, how a step's user text is
worded, which coordinates it points with, how large a screenshot it should see,
and how its reply reads back into a guilens action in device pixels. Formats
know nothing of providers or memory strategies: an agent puts `system_prompt()`
and `user_text()` into whatever messages its provider takes, sends the
screenshot at `image_size()`, and hands the reply text to `parse()`.

Coordinates (`Coordinates`):
- `image`: absolute pixels of the screenshot *as sent* (UI-TARS-1.5, Qwen2.5-VL,
  and general models like GPT-4o); the action is scaled from the image to the device;
- `norm1000`: 0-1000 relative to the screen (UI-TARS 1.0, GUI Odyssey / CoM, Gemini);
- `norm999`: the 999x999 grid Qwen3-VL and ScenDroid's `mobile_use` prompt use.

Image size: Qwen2.5-VL-based models (UI-TARS-1.5 among them) cut the image into
28-pixel patches after a "smart resize" (each side a multiple of 28, the area
within a pixel budget). An image sent at exactly that size passes the server's
processor unchanged, so the pixels the model points at are the pixels of the
image guilens sent, and the scaling back to the device is exact. The budget
(`max_pixels`) must match the server's (vLLM's `--mm-processor-kwargs`
`max_pixels`); each format's default is its model's. `smart_resize` is written
here rather than taken from `qwen-vl-utils` because that package would pull in
video and network dependencies for fifteen lines of arithmetic.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from string import Template
from typing import Any, ClassVar, Literal

from guilens.actions import (
    LOCATED,
    Action,
    ActionError,
    CoordinateSpace,
    Swipe,
    scale_action,
    to_command,
)

Coordinates = Literal["image", "norm1000", "norm999"]
COORDINATES: tuple[Coordinates, ...] = ("image", "norm1000", "norm999")
FACTOR = 28
QWEN_MIN_PIXELS = 4 * 28 * 28
QWEN_MAX_PIXELS = 16384 * 28 * 28
"""Qwen2.5-VL's processor defaults (3,136 and 12,845,056 pixels); UI-TARS-1.5 uses the same budget."""

Section = tuple[str, Sequence[str]]
"""A titled block of lines a memory strategy adds to the step's text: ("Long-term memory", [...])."""


class FormatError(ValueError):
    """A format setting that cannot be used; the message names the setting and the value."""


def smart_resize(width: int, height: int, *, factor: int = FACTOR, min_pixels: int = QWEN_MIN_PIXELS,
                 max_pixels: int = QWEN_MAX_PIXELS) -> tuple[int, int]:
    """Qwen2.5-VL's resize, as (width, height): sides multiples of `factor`, area in the budget, aspect kept."""
    if width <= 0 or height <= 0:
        raise FormatError(f"image size {width}x{height} must be positive")
    if max(width, height) / min(width, height) > 200:
        raise FormatError(f"image size {width}x{height}: the aspect ratio is over 200")
    if max_pixels < factor * factor:
        raise FormatError(f"max_pixels={max_pixels} is below one {factor}x{factor} patch")
    h = max(factor, round(height / factor) * factor)
    w = max(factor, round(width / factor) * factor)
    if h * w > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        h = max(factor, math.floor(height / beta / factor) * factor)
        w = max(factor, math.floor(width / beta / factor) * factor)
    elif h * w < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h = math.ceil(height * beta / factor) * factor
        w = math.ceil(width * beta / factor) * factor
    return w, h


@dataclass(frozen=True)
class Parsed:
    """A reply read back: what the model thought, the action in device pixels, and its own summary."""

    thought: str
    action: Action
    description: str = ""
    """The model's one-line summary of the action, where the format has one (Qwen's `Action:` line)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Other fields the reply carried (the native tool's `action_result`, `ltm_update`)."""


_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")


def unfence(text: str) -> str:
    """The reply without a Markdown code fence around it (models add them unasked)."""
    return _FENCE.sub("", text.strip()).strip()


def json_object(body: str) -> dict[str, Any] | None:
    """The JSON object at the first `{` of a reply's (unfenced) text, None when it has no `{`;
    `json.JSONDecodeError` when the object is invalid or cut short. Text after it is ignored."""
    start = body.find("{")
    if start < 0:
        return None
    data: dict[str, Any] = json.JSONDecoder().raw_decode(body[start:])[0]
    return data


def one_line(text: str, limit: int = 160) -> str:
    """`text` fit for an error message: one line, cut to `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class TextFormat:
    """A family of models' prompt and reply format. Subclasses fill the class attributes and the
    `_read`/`system_prompt`/`user_text`/`action_text` methods."""

    name: ClassVar[str]
    title: ClassVar[str]
    default_coordinates: ClassVar[Coordinates]
    default_max_pixels: ClassVar[int] = QWEN_MAX_PIXELS
    min_pixels: ClassVar[int] = QWEN_MIN_PIXELS
    prompt_in_user_turn: ClassVar[bool] = False
    """Whether the model expects the whole prompt in its first user turn (UI-TARS, GUI Odyssey)
    rather than in the system message (Qwen's tools block, the native tool)."""
    image_first: ClassVar[bool] = False
    """Whether the screenshot comes before the step's text in the user turn (GUI Odyssey's `Picture 1`)."""
    ask: bool = True
    """Whether the prompt offers `ask_user` (ScenDroid's Active mode). The agent sets it per attempt from
    `AgentContext.ask`; off, a format leaves the action out of its prompt but still reads one a model
    writes anyway, so the runner can refuse it on the record. UI-TARS's action space never offers it."""

    def __init__(self, *, coordinates: str | None = None, max_pixels: int | None = None,
                 language: str = "English") -> None:
        coords = coordinates or self.default_coordinates
        if coords not in COORDINATES:
            raise FormatError(f"coordinates {coords!r} is not one of {', '.join(COORDINATES)}")
        if max_pixels is not None and max_pixels < FACTOR * FACTOR:
            raise FormatError(f"max_pixels={max_pixels} is below one {FACTOR}x{FACTOR} patch ({FACTOR * FACTOR})")
        self.coordinates: Coordinates = coords
        self.max_pixels = max_pixels or self.default_max_pixels
        self.language = language

    # --- what the model sees ------------------------------------------------------------------
    def image_size(self, screen: tuple[int, int]) -> tuple[int, int]:
        """The size to send a `screen`-sized screenshot at (see the module docstring)."""
        return smart_resize(screen[0], screen[1], min_pixels=self.min_pixels, max_pixels=self.max_pixels)

    def system_prompt(self, image_size: tuple[int, int]) -> str:
        raise NotImplementedError

    def user_text(self, instruction: str, history: Sequence[str] = (), memory: Sequence[Section] = ()) -> str:
        """The step's text: the instruction, then the history lines (oldest first), worded as the
        format's model expects; `memory` adds titled blocks (a CoM agent's STM and LTM)."""
        raise NotImplementedError

    def action_text(self, action: Action, screen: tuple[int, int], image_size: tuple[int, int]) -> str:
        """An action the way this format's model writes it, for history lines the model reads."""
        raise NotImplementedError

    # --- what the model said ------------------------------------------------------------------
    def parse(self, reply: str, screen: tuple[int, int], image_size: tuple[int, int]) -> tuple[str, Action]:
        """The thought and the action (device pixels) in a reply; `ActionError`, one line, otherwise.

        The error is written for the model: the agent sends it back so the model can fix its reply.
        """
        parsed = self.read(reply, screen, image_size)
        return parsed.thought, parsed.action

    def read(self, reply: str, screen: tuple[int, int], image_size: tuple[int, int]) -> Parsed:
        """Like `parse`, with the model's own action summary and any other fields."""
        if not isinstance(reply, str) or not reply.strip():
            raise ActionError(f"the reply is empty; {self.reply_hint()}")
        return self._read(reply.strip(), screen, image_size)

    def _read(self, reply: str, screen: tuple[int, int], image_size: tuple[int, int]) -> Parsed:
        raise NotImplementedError

    def reply_hint(self) -> str:
        """What a well-formed reply looks like, for error messages."""
        raise NotImplementedError

    # --- coordinates --------------------------------------------------------------------------
    def coordinate_note(self, image_size: tuple[int, int]) -> str:
        """One sentence saying what the coordinates are, for prompts of models not trained on one."""
        if self.coordinates == "image":
            return (f"Coordinates are pixels of the screenshot you are shown ({image_size[0]}x{image_size[1]}), "
                    "from its top left corner.")
        top = 1000 if self.coordinates == "norm1000" else 999
        return (f"Coordinates are relative, from (0, 0) at the top left to ({top}, {top}) at the bottom right "
                "of the screen, whatever the screenshot's size.")

    def in_space(self, parse: Callable[[Any, tuple[int, int], CoordinateSpace], Action], raw: Any,
                 screen: tuple[int, int], image_size: tuple[int, int]) -> Action:
        """Run a `guilens.actions` parser in this format's coordinates; the action in device pixels."""
        if self.coordinates == "image":
            return scale_action(parse(raw, image_size, "pixels"), image_size, screen)
        return parse(raw, screen, self.coordinates)

    def point(self, x: int, y: int, screen: tuple[int, int], image_size: tuple[int, int]) -> tuple[int, int]:
        """Device pixels in this format's coordinates (the inverse of parsing)."""
        w, h = screen
        if self.coordinates == "image":
            iw, ih = image_size
            return (max(0, min(iw - 1, round((x + 0.5) * iw / w - 0.5))),
                    max(0, min(ih - 1, round((y + 0.5) * ih / h - 0.5))))
        top = 1000 if self.coordinates == "norm1000" else 999
        return min(top, round(x * top / w)), min(top, round(y * top / h))

    def at(self, action: Action, screen: tuple[int, int], image_size: tuple[int, int]) -> tuple[int, int] | None:
        """Where a located action happens, in this format's coordinates (None for an element or no point)."""
        if isinstance(action, LOCATED) and action.x is not None and action.y is not None:
            return self.point(action.x, action.y, screen, image_size)
        return None

    def swipe_points(self, a: Swipe, screen: tuple[int, int],
                     image_size: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
        return self.point(a.x1, a.y1, screen, image_size), self.point(a.x2, a.y2, screen, image_size)

    @staticmethod
    def fallback_text(action: Action) -> str:
        """An action the format cannot write (an element not resolved yet), in guilens' command form."""
        return to_command(action)


def headed_text(mark: str, task: str, instruction: str, memory: Sequence[Section], past: str,
                history: Sequence[str], numbered: str) -> str:
    """A step's text as Markdown sections headed `mark` (`#`, `##`): `task` with the instruction, each
    memory block that has lines as a list, then `past` with the history lines, each after `numbered`
    (`{n}. `, `Step {n}: `), left out when there are none."""
    parts = [f"{mark} {task}\n{instruction}"]
    parts += [f"{mark} {title}\n" + "\n".join(f"- {ln}" for ln in lines) for title, lines in memory if lines]
    if history:
        parts.append(f"{mark} {past}\n" + "\n".join(numbered.format(n=n) + ln for n, ln in enumerate(history, 1)))
    return "\n\n".join(parts)


def fill(template: str, **values: str) -> str:
    """A prompt file with its `$name` placeholders filled; a missing value is a bug, so it raises."""
    return Template(template).substitute(**values)
