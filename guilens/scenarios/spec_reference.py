"""Reference-solution steps, as scenario files write them.

A reference is what an expert would do, written against element texts and
ids, never pixels, so it survives layout changes and reads like a recipe:

    reference:
      - open: notes
      - tap: New note
      - tap: {id: title}
      - type: "Groceries"
      - ask: {question: "Which brand?", slot: brand}
      - tap: "{brand}"
      - remember: {app: shop, content: "ASICS Gel 89.99"}
      - swipe: up
      - back
      - finish

Every step except `remember` is one agent step; `golden_steps` is the number
of steps the reference takes at L0. `{name}` in a value is filled from the
user's slots (at L0 from the task, at L1/L2 from what the user answered) or
from a value an earlier task of a sequence produced.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator

Level = Literal["L0", "L1", "L2"]
LEVELS: tuple[Level, ...] = ("L0", "L1", "L2")
BARE_STEPS = ("back", "home", "enter", "menu", "recent", "delete", "finish")
STEP_KINDS = (
    "open", "tap", "long_press", "type", "swipe", "key", "wait", "ask", "answer", "remember", "finish",
)
Direction = Literal["up", "down", "left", "right"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SelectorSpec(_Strict):
    """An element by exactly one of id, text or content-desc; `index` picks among several matches."""

    id: str | None = None
    text: str | None = None
    desc: str | None = None
    index: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _one_kind(self) -> SelectorSpec:
        given = [k for k in ("id", "text", "desc") if getattr(self, k)]
        if len(given) != 1:
            raise ValueError("a selector names exactly one of id, text or desc")
        return self

    def as_text(self) -> str:
        """The `find_nodes` selector string (`id:save`)."""
        kind = "id" if self.id else "text" if self.text else "desc"
        return f"{kind}:{getattr(self, kind)}"


Selector = Annotated[str, Field(min_length=1)] | SelectorSpec


def selector_text(sel: Selector) -> str:
    return sel if isinstance(sel, str) else sel.as_text()


def selector_index(sel: Selector) -> int:
    return 0 if isinstance(sel, str) else sel.index


class _Step(_Strict):
    why: str = ""
    """Why the expert does this: shown as the oracle agent's thought."""


class OpenStep(_Step):
    open: str = Field(min_length=1)


class TapStep(_Step):
    tap: Selector


class LongPressStep(_Step):
    long_press: Selector


class TypeStep(_Step):
    type: str
    """Typed into the focused field (tap the field first)."""
    clear: bool = False
    """Empty the field first, so the text replaces what it held (`type: ""` with `clear` just empties it)."""

    @model_validator(mode="after")
    def _something_to_type(self) -> TypeStep:
        if not self.type and not self.clear:
            raise ValueError("type needs some text (or clear: true to empty the field)")
        return self


class SwipeSpec(_Strict):
    direction: Direction
    within: Selector | None = None
    """Swipe inside this element (a list, a picker) instead of the middle of the screen."""
    distance: float = Field(default=0.3, gt=0, le=0.9)
    """How far the finger moves, as a share of the screen (or element) height or width."""


class SwipeStep(_Step):
    """The finger's direction: `swipe: up` moves the content up, revealing what is below."""

    swipe: Direction | SwipeSpec

    @property
    def spec(self) -> SwipeSpec:
        return self.swipe if isinstance(self.swipe, SwipeSpec) else SwipeSpec(direction=self.swipe)


class KeyStep(_Step):
    key: Literal["back", "home", "enter", "menu", "recent", "delete"]


class WaitStep(_Step):
    wait: float = Field(gt=0, le=600)


class AskSpec(_Strict):
    question: str = Field(min_length=1)
    slot: str | None = None
    """The user slot the answer fills; `{slot}` in later steps takes the answer."""
    levels: list[Level] | None = None
    """Levels at which the expert asks. Default: L1 and L2 when a slot is named
    (at L0 the instruction gives it), every level otherwise."""

    def asked_at(self, level: str) -> bool:
        levels = self.levels if self.levels is not None else (["L1", "L2"] if self.slot else list(LEVELS))
        return level in levels


class AskStep(_Step):
    ask: AskSpec | Annotated[str, Field(min_length=1)]

    @property
    def spec(self) -> AskSpec:
        return self.ask if isinstance(self.ask, AskSpec) else AskSpec(question=self.ask)


class AnswerStep(_Step):
    answer: str = Field(min_length=1)


class RememberSpec(_Strict):
    app: str = Field(min_length=1)
    content: str = Field(min_length=1)


class RememberStep(_Strict):
    """Not an action: what the oracle puts in its long-term memory at this point."""

    remember: RememberSpec


class FinishStep(_Step):
    finish: Literal["success", "failure"] = "success"


class BareStep(_Strict):
    """`back`, `home`, `enter`, `menu`, `recent`, `delete` or `finish`, written as a bare word."""

    bare: Literal["back", "home", "enter", "menu", "recent", "delete", "finish"]


def _step_kind(v: Any) -> str | None:
    if isinstance(v, BaseModel):
        for kind, cls in STEP_MODELS.items():
            if type(v) is cls:
                return kind
        return None
    if isinstance(v, str):
        return "bare" if v in BARE_STEPS else None
    if isinstance(v, dict):
        kinds = [k for k in (*STEP_KINDS, "bare") if k in v]
        if len(kinds) == 1:
            return kinds[0]
    return None


def _bare_in(v: Any) -> Any:
    return {"bare": v} if isinstance(v, str) else v


RefStep = Annotated[
    Annotated[OpenStep, Tag("open")]
    | Annotated[TapStep, Tag("tap")]
    | Annotated[LongPressStep, Tag("long_press")]
    | Annotated[TypeStep, Tag("type")]
    | Annotated[SwipeStep, Tag("swipe")]
    | Annotated[KeyStep, Tag("key")]
    | Annotated[WaitStep, Tag("wait")]
    | Annotated[AskStep, Tag("ask")]
    | Annotated[AnswerStep, Tag("answer")]
    | Annotated[RememberStep, Tag("remember")]
    | Annotated[FinishStep, Tag("finish")]
    | Annotated[BareStep, Tag("bare")],
    Discriminator(
        _step_kind,
        custom_error_type="step_kind",
        custom_error_message=(
            "a reference step is one of the words " + ", ".join(BARE_STEPS)
            + " or a mapping with exactly one of the keys " + ", ".join(STEP_KINDS)
        ),
    ),
]

STEP_MODELS: dict[str, type[BaseModel]] = {
    "open": OpenStep,
    "tap": TapStep,
    "long_press": LongPressStep,
    "type": TypeStep,
    "swipe": SwipeStep,
    "key": KeyStep,
    "wait": WaitStep,
    "ask": AskStep,
    "answer": AnswerStep,
    "remember": RememberStep,
    "finish": FinishStep,
    "bare": BareStep,
}


def normalize_steps(raw: Any) -> Any:
    """Turn bare words into `{bare: word}` so the discriminated union can read them."""
    if isinstance(raw, list):
        return [_bare_in(s) for s in raw]
    return raw


def step_runs_at(step: BaseModel, level: str) -> bool:
    """Whether the step is one agent step at `level` (`remember` never is; an `ask` only where it asks)."""
    if isinstance(step, RememberStep):
        return False
    if isinstance(step, AskStep):
        return step.spec.asked_at(level)
    return True


def count_steps(steps: list[Any], level: str = "L0") -> int:
    """How many agent steps the reference takes at `level`: the task's golden steps at L0."""
    return sum(1 for s in steps if step_runs_at(s, level))


def step_to_data(step: BaseModel) -> Any:
    if isinstance(step, BareStep):
        return step.bare
    data = step.model_dump(exclude_defaults=True, mode="json")
    why = data.pop("why", None)
    return {**data, "why": why} if why else data  # the kind key first, as files write it
