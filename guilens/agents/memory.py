"""Short-term memory designs of the built-in LLM agents (`--memory`), for the ablations the papers run.

MemGUI-Bench sorts the agents it tests by how they carry a task's history
from step to step, and finds the choice matters as much as the model:
- `none`: only the instruction and the current screen (CogAgent);
- `actions`: a rule-built list of the earlier actions (SeeAct's selected element
  and action strings), here in the format's own wording (`format.action_text`),
  so a UI-TARS model reads `click(start_box=...)` and an Odyssey one `CLICK: (x, y)`;
- `action-thought`: each earlier action with the thought that chose it
  (UI-Venus, GUI-Owl, AppAgent);
- `multiturn`: the task as one chat, earlier replies as assistant turns and
  the last N screenshots kept (UI-TARS-1.5's 5-turn window; M3A's multi-turn
  variant, which gained 57% relative SR on MemGUI-Bench);
- `com`: Chain-of-Memory: short-term memory as the last N *results* of actions
  in words (a FIFO, N = 4), long-term memory as app-tagged facts, replaced
  within an app and appended across apps (Algorithm 1 of the CoM paper).

A strategy keeps what it needs and says what it kept (`memory()`), which the
runner records on each step and the memory pane shows. It does not build
requests: the agent asks it for history lines, memory blocks or earlier chat
turns and puts them where its format expects them.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from guilens.config import ConfigError
from guilens.episode import LTMEntry, Memory

STRATEGIES = ("none", "actions", "action-thought", "multiturn", "com")
DEFAULT_HISTORY_IMAGES = 5
"""UI-TARS-1.5's window in MemGUI-Bench (\"multi-turn, last 5 turns\"): screenshots per request, current included."""


class StrategyError(ConfigError):
    """An unknown strategy name; the message names the option and the choices."""


@dataclass
class Turn:
    """One earlier step as the strategies keep it."""

    index: int
    action_text: str
    """The action in the format's own wording."""
    thought: str = ""
    user: list[dict[str, Any]] = field(default_factory=list)
    """The step's user content as sent (text and image blocks): multiturn replays it."""
    reply: list[dict[str, Any]] = field(default_factory=list)
    """The accepted reply's content blocks (text, or the tool_use of the act call)."""
    result: str = ""
    """What the device reported the action did."""


class Strategy:
    """No history (`none`); the base the others extend."""

    name: ClassVar[str] = "none"
    chat: ClassVar[bool] = False
    """Whether earlier steps go back as chat turns (multiturn) rather than as text in the step's turn."""
    uses_results: ClassVar[bool] = False
    """Whether it keeps the results of actions in words (com), which someone has to write."""

    def __init__(self, *, stm_size: int = 4, history_images: int = DEFAULT_HISTORY_IMAGES) -> None:
        self.stm_size = stm_size
        self.history_images = history_images
        self.turns: list[Turn] = []
        self.ltm: list[LTMEntry] = []

    def reset(self, ltm: Sequence[LTMEntry] = ()) -> None:
        self.turns = []
        self.ltm = [LTMEntry.model_validate(e.model_dump()) for e in ltm]

    def history(self) -> list[str]:
        """The lines of earlier steps the step's text carries, oldest first."""
        return []

    def record(self, turn: Turn) -> None:
        """What this step did, once its action is chosen."""
        self.turns.append(turn)

    def memory(self, *, lessons: Sequence[str] = (), history: Sequence[str] = (), images: Sequence[int] = (),
               screen_info: str = "") -> Memory:
        """What the step's record and the memory pane show."""
        return Memory(strategy=self.name, lessons=list(lessons), history=list(history), images=list(images),
                      screen_info=screen_info)


class ActionHistory(Strategy):
    """`actions`: one line per earlier step, the action as the format writes it."""

    name = "actions"

    def history(self) -> list[str]:
        return [t.action_text for t in self.turns]


class ActionThoughtHistory(Strategy):
    """`action-thought`: one line per earlier step, its thought and then its action."""

    name = "action-thought"

    def history(self) -> list[str]:
        return [f"Thought: {_flat(t.thought)} Action: {t.action_text}" if t.thought else t.action_text
                for t in self.turns]


class MultiTurn(Strategy):
    """`multiturn`: earlier steps as chat turns; screenshots only for the last `history_images` steps."""

    name = "multiturn"
    chat = True

    def kept_images(self, current: int) -> list[int]:
        """The steps whose screenshots a request at step `current` carries, current last."""
        earlier = [t.index for t in self.turns][-(self.history_images - 1):] if self.history_images > 1 else []
        return [*earlier, current]

    def messages(self, current: int, result_block: Any) -> list[dict[str, Any]]:
        """The earlier turns as messages, oldest first, ending with an assistant turn (or empty).

        `result_block(turn)` gives the blocks that must open the next user turn after `turn`'s reply
        (the tool_result of a native act call; nothing for a text reply)."""
        keep = set(self.kept_images(current))
        out: list[dict[str, Any]] = []
        opening: list[dict[str, Any]] = []
        for turn in self.turns:
            content = [*opening, *_without_images(turn.user, turn.index, keep)]
            out.append({"role": "user", "content": content})
            out.append({"role": "assistant", "content": copy.deepcopy(turn.reply)})
            opening = result_block(turn)
        if opening:
            out.append({"role": "user", "content": opening})  # merged with the current turn by the caller
        return out


class ChainOfMemory(Strategy):
    """`com`: STM a FIFO of the last `stm_size` action results; LTM app-tagged, replaced within an app."""

    name = "com"
    uses_results = True

    def reset(self, ltm: Sequence[LTMEntry] = ()) -> None:
        super().reset(ltm)
        self.stm: deque[str] = deque(maxlen=self.stm_size)

    def remember(self, result: str, entry: LTMEntry | None) -> None:
        """Algorithm 1's STM update (`result`, when there is one) and LTM update (`entry`)."""
        if result:
            self.stm.append(result)
        if entry is not None:
            if self.ltm and self.ltm[-1].app == entry.app:
                self.ltm[-1] = entry  # CoM: the same app replaces the last entry
            else:
                self.ltm.append(entry)

    def memory(self, *, lessons: Sequence[str] = (), history: Sequence[str] = (), images: Sequence[int] = (),
               screen_info: str = "") -> Memory:
        mem = super().memory(lessons=lessons, history=history, images=images, screen_info=screen_info)
        mem.stm, mem.ltm = list(self.stm), list(self.ltm)
        return mem


_CLASSES: dict[str, type[Strategy]] = {
    cls.name: cls for cls in (Strategy, ActionHistory, ActionThoughtHistory, MultiTurn, ChainOfMemory)
}


def default_strategy(format_name: str) -> str:
    """`com` for the native act tool, whose fields carry the action result and the LTM update at no
    extra cost (CoM*, the agent writing its own memory); `action-thought` for the text formats, the
    design of most model agents in MemGUI-Bench (UI-TARS, UI-Venus, GUI-Owl), which every one of
    those formats has a history slot for and which needs no second call per step."""
    return "com" if format_name == "native" else "action-thought"


def make_strategy(name: str, *, stm_size: int = 4, history_images: int = DEFAULT_HISTORY_IMAGES) -> Strategy:
    cls = _CLASSES.get(name)
    if cls is None:
        raise StrategyError(f"--memory {name!r}: choose {', '.join(STRATEGIES)}")
    return cls(stm_size=stm_size, history_images=history_images)


def _flat(text: str, limit: int = 400) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _without_images(blocks: list[dict[str, Any]], index: int, keep: set[int]) -> list[dict[str, Any]]:
    """A turn's user content, its screenshot replaced by a note when the window no longer keeps it."""
    if index in keep:
        return copy.deepcopy(blocks)
    out = [copy.deepcopy(b) for b in blocks if b.get("type") != "image"]
    if len(out) < len(blocks):
        out.append({"type": "text", "text": f"(The screenshot of step {index + 1} is no longer shown.)"})
    return out
