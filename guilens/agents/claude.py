"""The built-in `claude` agent: Chain-of-Memory on the Anthropic Messages API with tool use.

Each step is one fresh request, not a growing chat: CoM feeds the decision the
current screenshot and text memory only (no vision history), which keeps the
per-step cost flat however long the episode runs. The request carries the task
and lessons (a per-attempt system block), STM (the last N action results, in the
model's own words), LTM (app-tagged facts), the question-and-answer history, the
previous action and its fate, an optional set-of-marks element list, and the
screenshot scaled so its long side is at most 1568 px.

The model answers with one `act` tool call that both reports what its previous
action did (the new STM entry, CoM's "action result") and chooses the next action,
so the one-step lag of CoM costs no extra call. Coordinates are asked for in the
pixels of the screenshot the model sees and scaled to device pixels here: models
point far better in the image they look at than in a size they are told about.

The system prompt and tool schema never change, the task block changes once per
attempt: both end in a prompt-cache breakpoint, so every step after the first
reads them from the cache.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from guilens.actions import Action, ActionError, Swipe, check_on_screen, parse_action
from guilens.agents.base import AgentContext, AgentStep, StepInput
from guilens.agents.prompts import ACT_TOOL, LESSONS_TOOL, attempt_summary, element_line, load_prompt
from guilens.config import Settings, load_settings
from guilens.device.uitree import UINode, actionable_elements
from guilens.episode import LTMEntry, Memory, Usage
from guilens.llm import LLMClient, LLMResponse, fit_size, image_block

if TYPE_CHECKING:
    from guilens.episode import Episode

MAX_SIDE = 1568


class ClaudeAgent:
    """Chain-of-Memory agent on Claude. Constructing it without `ANTHROPIC_API_KEY` raises `MissingAPIKey`."""

    name = "claude"

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        model: str | None = None,
        client: LLMClient | None = None,
        set_of_marks: bool = True,
        stm_size: int | None = None,
        cache: bool = False,
        max_fix_attempts: int = 2,
        max_tokens: int = 4096,
        max_elements: int = 120,
        max_side: int = MAX_SIDE,
        request_extra: dict[str, Any] | None = None,
    ) -> None:
        self.settings = settings if settings is not None else load_settings()
        self.model: str | None = model or self.settings.model
        self.client = client or LLMClient(self.model, role="agent", cache=cache, settings=self.settings)
        self.set_of_marks = set_of_marks
        self.stm_size = stm_size or self.settings.stm_size
        self.max_fix_attempts = max_fix_attempts
        self.max_tokens = max_tokens
        self.max_elements = max_elements
        self.max_side = max_side
        self.request_extra = request_extra
        """Extra request fields (e.g. `{"output_config": {"effort": "low"}}`), sent as given."""
        self.system_prompt = load_prompt("claude_system")
        self.lessons_usage = Usage()
        """What the last `lessons` call cost (the runner adds it to the attempt's total)."""
        self.reset(AgentContext(task=None, instruction=""))

    # -- protocol --
    def reset(self, context: AgentContext) -> None:
        self.context = context
        self.stm: deque[str] = deque(maxlen=self.stm_size)
        self.ltm: list[LTMEntry] = [LTMEntry.model_validate(e.model_dump()) for e in context.ltm]
        self.qa: list[tuple[str, str]] = []
        self._pending_question: str | None = None
        self._last: str | None = None
        """How the previous step's action reads to the model ("tap #3: Tap Save"), or why there was none."""

    def step(self, inp: StepInput) -> AgentStep:
        if self._pending_question is not None:
            self.qa.append((self._pending_question, inp.user_answer or "(no answer)"))
            self._pending_question = None
        obs = inp.observation
        img_size = fit_size(obs.size[0], obs.size[1], self.max_side)
        scale = (obs.size[0] / img_size[0], obs.size[1] / img_size[1])
        elements = actionable_elements(obs.ui) if self.set_of_marks and obs.ui is not None else None
        messages: list[dict[str, Any]] = [
            {"role": "user", "content": self._step_content(inp, img_size, scale, elements)}
        ]
        system = self._system()
        total = Usage()
        problem = ""
        last: dict[str, Any] = {}
        for _ in range(self.max_fix_attempts + 1):
            resp = self.client.create(
                system=system,
                messages=messages,
                tools=[ACT_TOOL],
                tool_choice={"type": "tool", "name": "act"},
                max_tokens=self.max_tokens,
                extra=self.request_extra,
            )
            total = total + resp.usage
            call = next((c for c in resp.tool_calls if c.name == "act"), None)
            last = call.input if call else {}
            try:
                action = self._read(resp, img_size, obs.size, elements)
            except ActionError as err:
                problem = str(err)
                messages += self._feedback(resp, problem)
                continue
            return self._accept(inp, last, action, total)
        self._last = f"none: your turn produced no valid action ({problem})"
        return AgentStep(
            action=None,
            thought=str(last.get("thought", "")),
            description="",
            memory=self._memory(),
            usage=total,
            error=f"no valid action after {self.max_fix_attempts + 1} tries: {problem}",
        )

    # -- the request --
    def _system(self) -> list[dict[str, Any]]:
        ctx = self.context
        task = [f"# Task\n{ctx.instruction or '(no instruction given)'}"]
        if ctx.lessons:
            task.append(
                "# Lessons from your earlier attempts at this task\n"
                + "\n".join(f"- {x}" for x in ctx.lessons)
            )
        if ctx.apps:
            task.append("# Installed apps\n" + ", ".join(ctx.apps))
        task.append(f"Attempt {ctx.attempt} of {ctx.attempts}. Step budget: {ctx.budget}.")
        ephemeral = {"type": "ephemeral"}
        return [
            {"type": "text", "text": self.system_prompt, "cache_control": ephemeral},
            {"type": "text", "text": "\n\n".join(task), "cache_control": ephemeral},
        ]

    def _step_content(
        self,
        inp: StepInput,
        img_size: tuple[int, int],
        scale: tuple[float, float],
        elements: list[UINode] | None,
    ) -> list[dict[str, Any]]:
        obs = inp.observation
        lines = [
            f"Step {inp.index + 1}; {inp.budget_left} steps left. Current app: {obs.app or 'unknown'}. "
            f"Clock: {obs.clock:%a %Y-%m-%d %H:%M}.",
            f"The screenshot is {img_size[0]}x{img_size[1]} pixels; give coordinates in those pixels.",
            "",
            "## Long-term memory",
        ]
        lines += [f"- [{e.app}] {e.content} (step {e.step})" for e in self.ltm] or ["(empty)"]
        lines += ["", f"## Short-term memory: your last {self.stm_size} action results, oldest first"]
        lines += [f"{i}. {r}" for i, r in enumerate(self.stm, 1)] or ["(empty: no earlier actions)"]
        if self.qa:
            lines += ["", "## Your questions to the user and the answers"]
            for q, a in self.qa:
                lines += [f"Q: {q}", f"A: {a}"]
        lines += ["", "## Your previous action"]
        human = _human_steps(inp.history)
        if self._last is None:
            lines.append("None: this is the first step." if inp.index == 0 and not human else "None.")
        else:
            lines.append(self._last)
            if inp.last_result and not human:
                lines.append(f"The device reported: {inp.last_result}")
        if human:
            lines.append("Then a person took over the phone and did, in order:")
            lines += [f"- {h}" for h in human]
            lines.append("Carry on from the screen as it is now.")
        if inp.last_error:
            lines.append(
                f"REJECTED, not performed: {inp.last_error}. Choose a valid action; do not repeat this one."
            )
        if inp.user_answer is not None:
            lines.append(f"The user answered: {inp.user_answer}")
        if elements is not None:
            lines += ["", '## Actionable elements (tap one with {"type": "tap", "element": N})']
            shown = elements[: self.max_elements]
            lines += [element_line(i, n, scale) for i, n in enumerate(shown)] or ["(none)"]
            if len(elements) > len(shown):
                lines.append(f"... and {len(elements) - len(shown)} more, not listed: use coordinates.")
        return [
            {"type": "text", "text": "\n".join(lines)},
            image_block(obs.screenshot, self.max_side),
        ]

    # -- reading the answer --
    def _read(
        self,
        resp: LLMResponse,
        img_size: tuple[int, int],
        device_size: tuple[int, int],
        elements: list[UINode] | None,
    ) -> Action:
        calls = [c for c in resp.tool_calls if c.name == "act"]
        if not calls:
            cut = (
                " (the reply was cut off at max_tokens: keep the thought short)"
                if resp.stop_reason == "max_tokens"
                else ""
            )
            raise ActionError(f"no act tool call in the reply{cut}")
        raw = calls[0].input.get("action")
        if isinstance(raw, str):
            raw = raw.strip()
        action = parse_action(raw, img_size)
        element = getattr(action, "element", None)
        if element is not None:
            if elements is None:
                raise ActionError("there is no element list this step: give x and y instead of element")
            if element >= len(elements):
                raise ActionError(
                    f"element {element} does not exist: the list goes from 0 to {len(elements) - 1}"
                )
        check_on_screen(action, *img_size)
        scale = (device_size[0] / img_size[0], device_size[1] / img_size[1])
        return _to_device(action, scale, device_size)

    def _feedback(self, resp: LLMResponse, problem: str) -> list[dict[str, Any]]:
        """The turn pair that tells the model what was wrong, keeping the API's tool_use/tool_result pairing."""
        fix = f"Invalid: {problem}. Call the act tool once, with a valid action."
        assistant = resp.content or [{"type": "text", "text": "(empty reply)"}]
        uses = [b for b in assistant if b.get("type") == "tool_use"]
        if uses:
            results: list[dict[str, Any]] = [
                {"type": "tool_result", "tool_use_id": b["id"], "is_error": True, "content": fix}
                for b in uses
            ]
            return [{"role": "assistant", "content": assistant}, {"role": "user", "content": results}]
        return [{"role": "assistant", "content": assistant}, {"role": "user", "content": fix}]

    def _accept(self, inp: StepInput, data: dict[str, Any], action: Action, usage: Usage) -> AgentStep:
        result = str(data.get("action_result") or "").strip()
        if not result and inp.index > 0 and self._last:
            result = f"{self._last}; device: {inp.last_result or 'no report'}"
        if inp.index > 0 and result:
            self.stm.append(result)
        update = data.get("ltm_update")
        if isinstance(update, str):
            update = {"content": update}
        if isinstance(update, dict) and str(update.get("content") or "").strip():
            app = inp.observation.app or str(update.get("app") or "").strip() or "unknown"
            entry = LTMEntry(app=app, content=str(update["content"]).strip(), step=inp.index)
            if self.ltm and self.ltm[-1].app == app:
                self.ltm[-1] = entry
            else:
                self.ltm.append(entry)
        description = str(data.get("description") or "").strip() or action.describe()
        self._last = f"{action.describe()}: {description}"
        if action.type == "ask_user":
            self._pending_question = action.question  # type: ignore[union-attr]
        return AgentStep(
            action=action,
            thought=str(data.get("thought") or "").strip(),
            description=description,
            action_result=result if inp.index > 0 else "",
            memory=self._memory(),
            usage=usage,
        )

    def _memory(self) -> Memory:
        return Memory(stm=list(self.stm), ltm=list(self.ltm), lessons=list(self.context.lessons))

    # -- pass@k --
    def lessons(self, episode: Episode, steps: list[Any]) -> list[str]:
        """One reflection call after a failed attempt: lessons for the next one."""
        resp = self.client.create(
            system=load_prompt("claude_lessons"),
            messages=[{"role": "user", "content": attempt_summary(episode, steps, self.context)}],
            tools=[LESSONS_TOOL],
            tool_choice={"type": "tool", "name": "record_lessons"},
            max_tokens=1024,
        )
        self.lessons_usage = resp.usage
        call = next((c for c in resp.tool_calls if c.name == "record_lessons"), None)
        items: list[Any] = call.input.get("lessons", []) if call else []
        if not isinstance(items, list):
            items = [items]
        if not items:
            items = [
                ln.lstrip("-*• ").strip()
                for ln in resp.text.splitlines()
                if ln.strip().startswith(("-", "*", "•"))
            ]
        out: list[str] = []
        for item in items:
            s = " ".join(str(item).split())[:400]
            if s and s not in out and s not in self.context.lessons:
                out.append(s)
        return out[:5]


def _to_device(action: Action, scale: tuple[float, float], size: tuple[int, int]) -> Action:
    """Screenshot pixels to device pixels, pixel centre to pixel centre, clamped to the screen.

    Element and target actions pass through: the runner resolves them on the device's own tree.
    """

    def px(v: int, k: float, limit: int) -> int:
        return max(0, min(limit - 1, round((v + 0.5) * k - 0.5)))

    (sx, sy), (w, h) = scale, size
    if isinstance(action, Swipe):
        return action.model_copy(
            update={
                "x1": px(action.x1, sx, w),
                "y1": px(action.y1, sy, h),
                "x2": px(action.x2, sx, w),
                "y2": px(action.y2, sy, h),
            }
        )
    x, y = getattr(action, "x", None), getattr(action, "y", None)
    if x is not None and y is not None:
        return action.model_copy(update={"x": px(x, sx, w), "y": px(y, sy, h)})
    return action


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
