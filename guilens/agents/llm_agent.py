"""The one step loop of the built-in LLM agents (`claude`, `openai`): a provider client, a format, a memory.

An `LLMAgent` is three parts the loop does not look inside:
- a client with `create(system=, messages=, tools=, tool_choice=, ...)` for one
  provider and model (`guilens.llm`), which retries the API and records every call;
- a dialect (`guilens.agents.dialects`): the native act tool, or a paper's
  text format (UI-TARS, Qwen `mobile_use`, GUI Odyssey), which words the step
  and reads the reply;
- a memory strategy (`guilens.agents.memory`): none, action history, actions
  with thoughts, multi-turn chat, or Chain-of-Memory.

Each step: build the request (the strategy's history or earlier turns, the
screenshot sized as the format wants it, tagged with the screen file it is so
the call record references it instead of copying it), optionally run CoM's
perception call (ScreenInfo; the action result and LTM for text formats), ask
for the action, and when the reply cannot be used send it back with what was
wrong (a `repair`, recorded in the step's `usage.retries`, as are the API
retries the client made). When the API outlasts the client's retries the error
ends the attempt and says what the step had already been through.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from guilens.actions import ActionError
from guilens.agents.base import AgentContext, AgentStep, StepInput
from guilens.agents.dialects import Dialect, NativeDialect, Reading, StepView, make_dialect
from guilens.agents.memory import ChainOfMemory, MultiTurn, Strategy, Turn, default_strategy, make_strategy
from guilens.agents.perception import Perception, screen_text
from guilens.agents.perception import read as read_perception
from guilens.agents.perception import request as perception_request
from guilens.agents.prompts import (
    LESSONS_TOOL,
    act_system_prompt,
    act_tool_without_ask,
    attempt_summary,
    context_pack,
    load_prompt,
    question_budget,
)
from guilens.device.uitree import actionable_elements
from guilens.episode import LTMEntry, Usage
from guilens.episode_model import Retry
from guilens.llm import LLMError, LLMResponse, image_block
from guilens.llm.errors import clip

if TYPE_CHECKING:
    from PIL import Image

    from guilens.agents.formats import TextFormat
    from guilens.config import Settings
    from guilens.episode import Episode

T = TypeVar("T")


def screen_ref(index: int) -> str:
    """The episode file of the screen the agent sees at step `index` (the recorder's name for it)."""
    return f"screens/{index:04d}.png"


def sized_image(img: Image.Image, size: tuple[int, int], ref: str) -> dict[str, Any]:
    """The screenshot as an image block of exactly `size`, naming its screen file in `_ref` (guilens-only:
    the client strips it before sending and records the reference instead of the pixels)."""
    from PIL import Image

    if img.size != size:
        img = img.resize(size, Image.Resampling.LANCZOS)
    block = image_block(img, max(size))
    block["_ref"] = ref
    return block


class LLMAgent:
    """The shared step loop; `ClaudeAgent` and `OpenAIAgent` choose the client and the defaults."""

    name = "llm"

    def __init__(
        self,
        settings: Settings,
        *,
        model: str | None,
        client: Any,
        fmt: TextFormat,
        memory: str | None = None,
        set_of_marks: bool = True,
        stm_size: int | None = None,
        history_images: int | None = None,
        screen_info: bool | None = None,
        max_fix_attempts: int = 2,
        max_tokens: int = 4096,
        max_elements: int = 120,
        request_extra: dict[str, Any] | None = None,
    ) -> None:
        self.settings = settings
        self.model: str | None = model
        self.client = client
        self.fmt = fmt
        self.dialect: Dialect = make_dialect(fmt, max_elements=max_elements)
        self.memory_name = memory or settings.agent_memory or default_strategy(fmt.name)
        self.stm_size = stm_size or settings.stm_size
        self.history_images = history_images or settings.history_images
        self.strategy: Strategy = make_strategy(self.memory_name, stm_size=self.stm_size,
                                                history_images=self.history_images)
        self.set_of_marks = set_of_marks
        self.screen_info = settings.screen_info if screen_info is None else screen_info
        self.max_fix_attempts = max_fix_attempts
        self.max_tokens = max_tokens
        self.request_extra = request_extra
        """Extra request fields (e.g. `{"output_config": {"effort": "low"}}`), sent as given."""
        self.lessons_usage = Usage()
        """What the last `lessons` call cost (the runner adds it to the attempt's total)."""
        self.reset(AgentContext(task=None, instruction=""))

    @property
    def native(self) -> bool:
        return isinstance(self.dialect, NativeDialect)

    # -- protocol --
    def reset(self, context: AgentContext) -> None:
        self.context = context
        self.fmt.ask = context.ask  # Passive mode: the format's prompt leaves ask_user out
        self.strategy.reset(context.ltm)
        self.qa: list[tuple[str, str]] = []
        self._pending_question: str | None = None
        self._last: str | None = None
        """How the previous step's action reads to the model ("tap #3: Tap Save"), or why there was none."""

    @property
    def stm(self) -> list[str]:
        return list(getattr(self.strategy, "stm", []))

    @property
    def ltm(self) -> list[LTMEntry]:
        return self.strategy.ltm

    def step(self, inp: StepInput) -> AgentStep:
        if self._pending_question is not None:
            if inp.last_error is None:  # a question the run refused (--ask off, the budget) got no answer
                self.qa.append((self._pending_question, inp.user_answer or "(no answer)"))
            self._pending_question = None
        if self.strategy.turns:
            self.strategy.turns[-1].result = inp.last_result
        view = self._view(inp)
        total, result = Usage(), ""
        calls: list[Any] = []
        if self.screen_info or (self.strategy.uses_results and not self.native):
            perceived, total, calls = self._perceive(view)
            view.screen_info = perceived.screen_info
            if not self.native:  # CoM's order: STM and LTM are updated before the decision
                result = self._remember(inp, perceived.action_result, perceived.memory if perceived.keep else None)
        first = not (self.strategy.chat and self.strategy.turns)
        content = self._with_modes(self.dialect.user_content(view, first=first), inp, first=first)
        tools, tool_choice = self.dialect.tools(self.strategy)
        if tools and not self.context.ask:
            tools = [act_tool_without_ask(t) if t.get("name") == "act" else t for t in tools]
        got, total, calls, problem = self._ask(
            lambda resp: (resp, self.dialect.read(resp, view)), self.dialect.repair, self._system(view),
            self._messages(inp.index, content), total, calls, tools=tools, tool_choice=tool_choice,
            max_tokens=self.max_tokens, extra=self.request_extra)
        if got is None:
            self._last = f"none: your turn produced no valid action ({problem})"
            return self._out(AgentStep(action=None, memory=self._memory(view), usage=total,
                                       error=f"no valid action after {self.max_fix_attempts + 1} tries: {problem}"),
                             calls)
        resp, reading = got
        if self.native:  # CoM*: the act call wrote its own action result and LTM update
            result = self._remember(inp, reading.action_result, reading.ltm_update)
        return self._accept(view, content, resp, reading, result, total, calls)

    # -- the request --
    def _view(self, inp: StepInput) -> StepView:
        obs = inp.observation
        img_size = self.fmt.image_size(obs.size)
        elements = (actionable_elements(obs.ui) if self.native and self.set_of_marks and obs.ui is not None
                    else None)
        return StepView(
            inp=inp, context=self.context, strategy=self.strategy,
            image=sized_image(obs.screenshot, img_size, screen_ref(inp.index)), img_size=img_size,
            elements=elements, qa=list(self.qa), last=self._last, human=_human_steps(inp.history),
            history=self.strategy.history(),
            images=self.strategy.kept_images(inp.index) if isinstance(self.strategy, MultiTurn) else [],
        )

    def _system(self, view: StepView) -> list[dict[str, Any]]:
        """The dialect's system blocks, in the run's modes: the act prompt without asking in Passive
        mode, and the context pack (augmented mode) between the prompt and the task block, where it
        stays the same for the whole attempt and so is cached with them."""
        blocks = self.dialect.system(view)
        if not self.native or not blocks:
            return blocks
        if not self.context.ask:
            blocks[0] = {**blocks[0], "text": act_system_prompt(view.strategy.name, ask=False)}
        if self.context.earlier_tasks:
            blocks.insert(1, {"type": "text", "text": context_pack(self.context.earlier_tasks)})
        return blocks

    def _with_modes(self, content: list[dict[str, Any]], inp: StepInput, *, first: bool) -> list[dict[str, Any]]:
        """The step's user content with what the run's modes add: the context pack first in a text
        format's opening turn (the native act prompt has it in the system blocks), and the question
        budget left (`--max-questions`) at every step."""
        out = list(content)
        if first and not self.native and self.context.earlier_tasks:  # before the step's text (after
            at = next((i for i, b in enumerate(out) if b.get("type") == "text"), 0)  # an image-first screen)
            out.insert(at, {"type": "text", "text": context_pack(self.context.earlier_tasks)})
        budget = question_budget(inp.questions_left, self.context.max_questions) if self.context.ask else ""
        return [*out, {"type": "text", "text": budget}] if budget else out

    def _messages(self, index: int, content: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not isinstance(self.strategy, MultiTurn):  # the one chat strategy
            return [{"role": "user", "content": content}]
        earlier = self.strategy.messages(index, self.dialect.result_blocks)
        if earlier and earlier[-1]["role"] == "user":  # the tool results of the previous reply open this turn
            earlier[-1]["content"] = [*earlier[-1]["content"], *content]
            return earlier
        return [*earlier, {"role": "user", "content": content}]

    def _create(self, earlier: Usage, **params: Any) -> LLMResponse:
        try:
            return self.client.create(**params)
        except LLMError as err:  # the API outlasted its retries: the attempt ends, saying what this step saw
            raise err.after(earlier.retries) from None

    def _ask(self, read: Callable[[LLMResponse], T],
             repair: Callable[[LLMResponse, str], list[dict[str, Any]]], system: Any,
             messages: list[dict[str, Any]], total: Usage, calls: list[Any],
             **params: Any) -> tuple[T | None, Usage, list[Any], str]:
        """The one loop: call, read the reply, and while it cannot be used and tries are left, send it back
        with what was wrong (each such reply a `repair` retry). None and the last problem when none could."""
        problem = ""
        for attempt in range(self.max_fix_attempts + 1):
            resp = self._create(total, system=system, messages=messages, repair=attempt > 0, **params)
            total = total + resp.usage
            calls = calls + _records(resp)
            try:
                return read(resp), total, calls, ""
            except ActionError as err:
                problem = str(err)
                total = total + Usage(retries=[Retry(kind="repair", cause=clip(problem), role="agent")])
                messages = [*messages, *repair(resp, problem)]
        return None, total, calls, problem

    def _perceive(self, view: StepView) -> tuple[Perception, Usage, list[Any]]:
        """CoM's perception call (see guilens.agents.perception); a reply that stays unreadable leaves the
        step without ScreenInfo and memory update, and its repairs on the record."""
        memory = self.strategy.uses_results and not self.native
        want_info = self.screen_info
        system, messages = perception_request(
            instruction=self.context.instruction, stm=self.stm, previous=self._last,
            ui_text=screen_text(view.inp.observation.ui), image=view.image, screen_info=want_info, memory=memory)
        got, total, calls, _ = self._ask(
            lambda r: read_perception(r.text, screen_info=want_info, memory=memory), _text_repair,
            system, messages, Usage(), [], max_tokens=2048)
        return got or Perception(), total, calls

    # -- the answer --
    def _remember(self, inp: StepInput, result: str, ltm: str | dict[str, Any] | None) -> str:
        """A Chain-of-Memory update: the previous action's result into STM, a fact into LTM (replacing the
        last entry when it is for the same app). Returns the step's action result ("" for other strategies)."""
        if not isinstance(self.strategy, ChainOfMemory):  # `com`, the one strategy with STM/LTM updates
            return ""
        result = result.strip()
        if not result and inp.index > 0 and self._last:
            result = f"{self._last}; device: {inp.last_result or 'no report'}"
        update = {"content": ltm} if isinstance(ltm, str) else ltm
        entry = None
        if isinstance(update, dict) and str(update.get("content") or "").strip():
            app = inp.observation.app or str(update.get("app") or "").strip() or "unknown"
            entry = LTMEntry(app=app, content=str(update["content"]).strip(), step=inp.index)
        if inp.index == 0:
            result = ""  # nothing happened before the first step
        self.strategy.remember(result, entry)
        return result

    def _accept(self, view: StepView, content: list[dict[str, Any]], resp: LLMResponse, reading: Reading,
                result: str, usage: Usage, calls: list[Any]) -> AgentStep:
        inp, action = view.inp, reading.action
        description = reading.description or action.describe()
        wording = self.dialect.action_text(action, view)  # as the model writes it, in its coordinates
        self.strategy.record(Turn(index=inp.index, action_text=wording, thought=reading.thought, user=content,
                                  reply=self.dialect.reply_blocks(resp)))
        self._last = f"{wording}: {description}"
        if action.type == "ask_user":
            self._pending_question = action.question
        return self._out(AgentStep(action=action, thought=reading.thought, description=description,
                                   action_result=result, memory=self._memory(view), usage=usage), calls)

    def _memory(self, view: StepView) -> Any:
        return self.strategy.memory(lessons=self.context.lessons, history=view.history, images=view.images,
                                    screen_info=view.screen_info)

    @staticmethod
    def _out(step: AgentStep, calls: list[Any]) -> AgentStep:
        if calls and hasattr(step, "llm_calls"):
            step.llm_calls = calls
        return step

    # -- pass@k --
    def lessons(self, episode: Episode, steps: list[Any]) -> list[str]:
        """One reflection call after a failed attempt: lessons for the next one (a tool call where the
        format has tools; bullet lines otherwise, which the text-format servers all write)."""
        summary = attempt_summary(episode, steps, self.context)
        if self.native:
            resp = self.client.create(system=load_prompt("claude_lessons"),
                                      messages=[{"role": "user", "content": summary}], tools=[LESSONS_TOOL],
                                      tool_choice={"type": "tool", "name": "record_lessons"}, max_tokens=1024)
        else:
            resp = self.client.create(
                system=load_prompt("claude_lessons") + "\n\nWrite each lesson as a line starting with '- '.",
                messages=[{"role": "user", "content": summary}], max_tokens=1024)
        self.lessons_usage = resp.usage
        call = next((c for c in resp.tool_calls if c.name == "record_lessons"), None)
        items: list[Any] = call.input.get("lessons", []) if call else []
        if not isinstance(items, list):
            items = [items]
        if not items:
            items = [ln.lstrip("-*• ").strip() for ln in resp.text.splitlines() if ln.strip().startswith(("-", "*", "•"))]
        out: list[str] = []
        for item in items:
            s = " ".join(str(item).split())[:400]
            if s and s not in out and s not in self.context.lessons:
                out.append(s)
        return out[:5]


def _text_repair(resp: LLMResponse, problem: str) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": resp.text or "(empty reply)"},
            {"role": "user", "content": f"Invalid: {problem}."}]


def _records(resp: LLMResponse) -> list[Any]:
    """The call record(s) a response carries (the provider layer's `LLMCall`), if it carries one."""
    record = getattr(resp, "call", None)
    return [record] if record is not None else []


def _human_steps(history: list[dict[str, Any]]) -> list[str]:
    """The steps a person took since the agent last acted (a take-over), as lines for the model."""
    out: list[str] = []
    for entry in reversed(history):
        if entry.get("by") != "human":
            break
        what = entry.get("description") or entry.get("action") or "an action"
        result = entry.get("result") or entry.get("error")
        out.append(f"{what} ({result})" if result else str(what))
    return out[::-1]
