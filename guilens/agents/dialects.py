"""How an LLM agent's step is worded and read back: the act tool (`native`) or a paper's text format.

The step loop (`guilens.agents.llm_agent`) is the same for every provider and
format; what differs is here, behind one small interface (`Dialect`):
- `NativeDialect`: the claude agent's request, for any provider with tool
  calling: a system prompt describing the act tool, the task in a second system
  block, and a step text with the memory, the user's answers, the previous
  action and its fate, and the set-of-marks element list; the reply is one
  forced `act` call. A server that answers with the call's JSON as text is read too.
- `TextDialect`: a text format of `guilens.agents.formats` (UI-TARS, Qwen
  `mobile_use`, GUI Odyssey): the format's prompt, the step text as the
  format words it, with the memory and feedback as the format's titled
  blocks, and the reply read by the format's parser.

Requests are in guilens's canonical (Anthropic Messages) shape; the provider
client translates them for its API.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from guilens.actions import Action, ActionError, check_on_screen, parse_action, scale_action
from guilens.agents.formats import NativeFormat, TextFormat, anthropic_tool
from guilens.agents.formats.base import json_object, unfence
from guilens.agents.formats.native import act_arguments
from guilens.agents.prompts import act_system_prompt, act_tool_for, element_line

if TYPE_CHECKING:
    from guilens.agents.base import AgentContext, StepInput
    from guilens.agents.memory import Strategy, Turn
    from guilens.device.uitree import UINode
    from guilens.llm import LLMResponse


@dataclass
class StepView:
    """Everything a dialect words into one step's request."""

    inp: StepInput
    context: AgentContext
    strategy: Strategy
    image: dict[str, Any]
    """The screenshot's image block (with the guilens-only `_ref` naming the step's screen file)."""
    img_size: tuple[int, int]
    elements: list[UINode] | None = None
    qa: list[tuple[str, str]] = field(default_factory=list)
    last: str | None = None
    """How the previous step's action reads to the model, or why there was none."""
    human: list[str] = field(default_factory=list)
    """What a person did on the phone since the agent last acted (a take-over)."""
    history: list[str] = field(default_factory=list)
    """The strategy's history lines for this step (actions, action-thought)."""
    images: list[int] = field(default_factory=list)
    """The steps whose screenshots the request carries, current last (multiturn)."""
    screen_info: str = ""

    @property
    def screen(self) -> tuple[int, int]:
        return self.inp.observation.size


@dataclass
class Reading:
    """A reply read back into a step."""

    action: Action
    thought: str = ""
    description: str = ""
    action_result: str = ""
    ltm_update: dict[str, Any] | None = None


class Dialect:
    """What the step loop asks of a format family."""

    fmt: TextFormat

    def system(self, view: StepView) -> list[dict[str, Any]]:
        raise NotImplementedError

    def tools(self, strategy: Strategy) -> tuple[list[dict[str, Any]] | None, dict[str, Any] | None]:
        return None, None

    def user_content(self, view: StepView, *, first: bool = True) -> list[dict[str, Any]]:
        raise NotImplementedError

    def read(self, resp: LLMResponse, view: StepView) -> Reading:
        raise NotImplementedError

    def repair(self, resp: LLMResponse, problem: str) -> list[dict[str, Any]]:
        raise NotImplementedError

    def reply_blocks(self, resp: LLMResponse) -> list[dict[str, Any]]:
        return [{"type": "text", "text": resp.text or "(empty reply)"}]

    def result_blocks(self, turn: Turn) -> list[dict[str, Any]]:
        """What opens the user turn after `turn`'s reply in a multi-turn chat."""
        return []

    def action_text(self, action: Action, view: StepView) -> str:
        return self.fmt.action_text(action, view.screen, view.img_size)


class NativeDialect(Dialect):
    """The act tool (the claude agent's wording, for any provider with tool calls)."""

    def __init__(self, fmt: NativeFormat, *, max_elements: int = 120) -> None:
        self.fmt = fmt
        self.max_elements = max_elements

    def system(self, view: StepView) -> list[dict[str, Any]]:
        ctx = view.context
        task = [f"# Task\n{ctx.instruction or '(no instruction given)'}"]
        if ctx.lessons:
            task.append("# Lessons from your earlier attempts at this task\n" + "\n".join(f"- {x}" for x in ctx.lessons))
        if ctx.apps:
            task.append("# Installed apps\n" + ", ".join(ctx.apps))
        task.append(f"Attempt {ctx.attempt} of {ctx.attempts}. Step budget: {ctx.budget}.")
        ephemeral = {"type": "ephemeral"}
        return [
            {"type": "text", "text": act_system_prompt(view.strategy.name), "cache_control": ephemeral},
            {"type": "text", "text": "\n\n".join(task), "cache_control": ephemeral},
        ]

    def tools(self, strategy: Strategy) -> tuple[list[dict[str, Any]] | None, dict[str, Any] | None]:
        return [act_tool_for(strategy.name, anthropic_tool())], {"type": "tool", "name": "act"}

    def user_content(self, view: StepView, *, first: bool = True) -> list[dict[str, Any]]:
        inp, obs, strategy = view.inp, view.inp.observation, view.strategy
        w, h = view.img_size
        lines = [
            f"Step {inp.index + 1}; {inp.budget_left} steps left. Current app: {obs.app or 'unknown'}. "
            f"Clock: {obs.clock:%a %Y-%m-%d %H:%M}.",
            f"The screenshot is {w}x{h} pixels; give coordinates in those pixels.",
        ]
        if strategy.name == "com":
            lines += ["", "## Long-term memory"]
            lines += [f"- [{e.app}] {e.content} (step {e.step})" for e in strategy.ltm] or ["(empty)"]
            stm = getattr(strategy, "stm", [])
            lines += ["", f"## Short-term memory: your last {strategy.stm_size} action results, oldest first"]
            lines += [f"{i}. {r}" for i, r in enumerate(stm, 1)] or ["(empty: no earlier actions)"]
        elif view.history:
            lines += ["", "## Your earlier actions, oldest first"]
            lines += [f"{i}. {r}" for i, r in enumerate(view.history, 1)]
        if view.screen_info:
            lines += ["", "## Screen information (task-relevant content of this screen)", view.screen_info]
        if view.qa:
            lines += ["", "## Your questions to the user and the answers"]
            for q, a in view.qa:
                lines += [f"Q: {q}", f"A: {a}"]
        if strategy.name != "none" or inp.last_error or view.human:
            lines += ["", "## Your previous action"]
            if view.last is None or strategy.name == "none":
                lines.append("None: this is the first step." if inp.index == 0 and not view.human else "None.")
            else:
                lines.append(view.last)
                if inp.last_result and not view.human:
                    lines.append(f"The device reported: {inp.last_result}")
            if view.human:
                lines.append("Then a person took over the phone and did, in order:")
                lines += [f"- {x}" for x in view.human]
                lines.append("Carry on from the screen as it is now.")
            if inp.last_error:
                lines.append(f"REJECTED, not performed: {inp.last_error}. Choose a valid action; do not repeat this one.")
        if inp.user_answer is not None:
            lines.append(f"The user answered: {inp.user_answer}")
        if view.elements is not None:
            sx, sy = view.screen[0] / w, view.screen[1] / h
            lines += ["", '## Actionable elements (tap one with {"type": "tap", "element": N})']
            shown = view.elements[: self.max_elements]
            lines += [element_line(i, n, (sx, sy)) for i, n in enumerate(shown)] or ["(none)"]
            if len(view.elements) > len(shown):
                lines.append(f"... and {len(view.elements) - len(shown)} more, not listed: use coordinates.")
        return [{"type": "text", "text": "\n".join(lines)}, view.image]

    def read(self, resp: LLMResponse, view: StepView) -> Reading:
        call = next((c for c in resp.tool_calls if c.name == "act"), None)
        if call is not None and getattr(call, "error", None):
            raise ActionError(f"the act call's arguments are not a JSON object: {call.error}")
        if call is not None:
            data: dict[str, Any] = call.input
        else:
            data = _json_object(resp.text) or {}
            if "action" not in data:
                cut = " (the reply was cut off at max_tokens: keep the thought short)" \
                    if resp.stop_reason in ("max_tokens", "length") else ""
                raise ActionError(f"no act tool call in the reply{cut}")
        raw = data.get("action")
        if isinstance(raw, str):
            raw = raw.strip()
        action = parse_action(raw, view.img_size)
        element = getattr(action, "element", None)
        if element is not None:
            if view.elements is None:
                raise ActionError("there is no element list this step: give x and y instead of element")
            if element >= len(view.elements):
                raise ActionError(f"element {element} does not exist: the list goes from 0 to {len(view.elements) - 1}")
        check_on_screen(action, *view.img_size)
        update = data.get("ltm_update")
        return Reading(
            action=scale_action(action, view.img_size, view.screen),
            thought=str(data.get("thought") or "").strip(),
            description=str(data.get("description") or "").strip(),
            action_result=str(data.get("action_result") or "").strip(),
            ltm_update={"content": update} if isinstance(update, str) else update if isinstance(update, dict) else None,
        )

    def repair(self, resp: LLMResponse, problem: str) -> list[dict[str, Any]]:
        """The turn pair that tells the model what was wrong, keeping the API's tool_use/tool_result pairing."""
        fix = f"Invalid: {problem}. Call the act tool once, with a valid action."
        assistant = resp.content or [{"type": "text", "text": "(empty reply)"}]
        uses = [b for b in assistant if b.get("type") == "tool_use"]
        if uses:
            results: list[dict[str, Any]] = [
                {"type": "tool_result", "tool_use_id": b["id"], "is_error": True, "content": fix} for b in uses
            ]
            return [{"role": "assistant", "content": assistant}, {"role": "user", "content": results}]
        return [{"role": "assistant", "content": assistant}, {"role": "user", "content": fix}]

    def reply_blocks(self, resp: LLMResponse) -> list[dict[str, Any]]:
        return list(resp.content) or super().reply_blocks(resp)

    def result_blocks(self, turn: Turn) -> list[dict[str, Any]]:
        done = f"Performed. The device reported: {turn.result or 'nothing'}"
        return [{"type": "tool_result", "tool_use_id": b["id"], "content": done}
                for b in turn.reply if b.get("type") == "tool_use"]


class TextDialect(Dialect):
    """A paper's text format: its prompt, its wording of the step, its parser."""

    def __init__(self, fmt: TextFormat) -> None:
        self.fmt = fmt

    def system(self, view: StepView) -> list[dict[str, Any]]:
        if self.fmt.prompt_in_user_turn:
            return []
        return [{"type": "text", "text": self.fmt.system_prompt(view.img_size)}]

    def sections(self, view: StepView) -> list[tuple[str, list[str]]]:
        """The memory and feedback blocks of the step, in the format's titled-block form."""
        ctx, inp, strategy = view.context, view.inp, view.strategy
        out: list[tuple[str, list[str]]] = []
        if ctx.lessons:
            out.append(("Lessons from your earlier attempts", list(ctx.lessons)))
        if strategy.name == "com":
            out.append(("Short-term memory", list(getattr(strategy, "stm", []))))
            out.append(("Long-term memory", [f"[{e.app}] {e.content}" for e in strategy.ltm]))
        if view.screen_info:
            out.append(("Screen information", [view.screen_info]))
        if view.qa:
            out.append(("Your questions to the user and the answers", [f"Q: {q} A: {a}" for q, a in view.qa]))
        if view.human:
            out.append(("A person then took over the phone and did", list(view.human)))
        if inp.last_error:
            out.append(("Your previous action was rejected, not performed", [inp.last_error]))
        return out

    def user_content(self, view: StepView, *, first: bool = True) -> list[dict[str, Any]]:
        if first:
            text = self.fmt.user_text(view.context.instruction or "(no instruction given)", view.history,
                                      self.sections(view))
            if self.fmt.prompt_in_user_turn:
                text = f"{self.fmt.system_prompt(view.img_size)}\n\n{text}"
        else:  # a later turn of a multi-turn chat: the screen, and only what is new since the last turn
            inp, news = view.inp, []
            if inp.user_answer is not None:
                news.append(f"The user answered: {inp.user_answer}")
            if view.human:
                news.append("A person then took over the phone and did: " + "; ".join(view.human))
            if inp.last_error:
                news.append(f"Your previous action was rejected, not performed: {inp.last_error}")
            if view.screen_info:
                news.append(f"Screen information: {view.screen_info}")
            text = "\n".join(news)
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        return [view.image, *blocks] if self.fmt.image_first or not first else [*blocks, view.image]

    def read(self, resp: LLMResponse, view: StepView) -> Reading:
        parsed = self.fmt.read(resp.text, view.screen, view.img_size)
        return Reading(action=parsed.action, thought=parsed.thought, description=parsed.description)

    def repair(self, resp: LLMResponse, problem: str) -> list[dict[str, Any]]:
        fix = f"Your reply could not be used: {problem}. Reply again, in the format you were given."
        return [{"role": "assistant", "content": self.reply_blocks(resp)}, {"role": "user", "content": fix}]


def make_dialect(fmt: TextFormat, *, max_elements: int = 120) -> Dialect:
    if isinstance(fmt, NativeFormat):
        return NativeDialect(fmt, max_elements=max_elements)
    return TextDialect(fmt)


def _json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a reply's text (a server without tool calls writes the act call's
    arguments as text), or None."""
    try:
        data = json_object(unfence(text or ""))
    except json.JSONDecodeError:
        return None
    return None if data is None else act_arguments(data)
