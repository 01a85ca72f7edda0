"""A model the fake OpenAI server plays for the openai agent's tests: Calculator 12+30 on the sim.

The script is what a competent model would answer, in each format's own syntax
(`act` tool calls, UI-TARS `click(start_box=...)`, Qwen `<tool_call>` JSON,
GUI Odyssey `CLICK: (x, y)`), with coordinates in the format's convention
computed here, independently of the code under test: the sim's real element
centres (found by walking a fresh sim phone), scaled to the size of the
screenshot the request carried (`image` formats) or to the 0-1000 grid
(Odyssey). A tap only lands if the agent sized the screenshot, told the model
its size and scaled the answer back the way the format says.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from guilens.actions import Action, Tap
from guilens.agents.base import AgentContext, AgentStep, StepInput
from guilens.device.uitree import actionable_elements
from tests.calculator_task import INSTRUCTION
from tests.calculator_task import SCENARIO as SCENARIO  # test_openai_agent's, from here
from tests.fakeopenai import Request, text, tool_call

KEYS = ["1", "2", "+", "3", "0", "="]
FORMATS = ("native", "uitars", "qwen", "odyssey")


def script() -> list[tuple[str, tuple[int, int]]]:
    """(label, device-pixel centre) of each tap: the Calculator icon, then 1 2 + 3 0 =."""
    from guilens.device.sim.device import SimDevice

    device = SimDevice()
    icon = next(n for n in actionable_elements(device.observe().ui) if n.label() == "Calculator")
    device.act(Tap(x=icon.center[0], y=icon.center[1]))
    buttons = {n.label(): n.center for n in actionable_elements(device.observe().ui)}
    return [("Calculator", icon.center)] + [(k, buttons[k]) for k in KEYS]


@dataclass
class CalculatorModel:
    """The fake server's handler: the next scripted reply, in `fmt`'s syntax, each call."""

    fmt: str
    taps: list[tuple[str, tuple[int, int]]] = field(default_factory=script)
    screen: tuple[int, int] = (1080, 2400)
    turn: int = 0
    seen: list[tuple[int, int]] = field(default_factory=list)
    """The size of the screenshot each request carried last (the current one)."""

    def __call__(self, req: Request) -> dict[str, Any]:
        size = req.images()[-1].size
        self.seen.append(size)
        turn, self.turn = self.turn, self.turn + 1
        if turn >= len(self.taps):
            return self.answer()
        label, (x, y) = self.taps[turn]
        return self.tap(label, self.point(x, y, size), turn)

    def point(self, x: int, y: int, size: tuple[int, int]) -> tuple[int, int]:
        w, h = self.screen
        if self.fmt == "odyssey":  # GUI Odyssey: 0-1000 of the screen
            return round(x * 1000 / w), round(y * 1000 / h)
        return round(x * size[0] / w), round(y * size[1] / h)  # pixels of the image sent

    def tap(self, label: str, xy: tuple[int, int], turn: int) -> dict[str, Any]:
        x, y = xy
        thought = f"Step {turn + 1}: tap {label}."
        if self.fmt == "native":
            return tool_call("act", {"action_result": f"turn {turn} done" if turn else "", "thought": thought,
                                     "action": {"type": "tap", "x": x, "y": y}, "description": f"Tap {label}"})
        if self.fmt == "uitars":
            return text(f"Thought: {thought}\nAction: click(start_box='<|box_start|>({x},{y})<|box_end|>')")
        if self.fmt == "qwen":
            call = {"name": "mobile_use", "arguments": {"action": "click", "coordinate": [x, y]}}
            return text(f"Thought: {thought}\nAction: Tap {label}.\n<tool_call>\n{json.dumps(call)}\n</tool_call>")
        return text(f"CLICK: ({x}, {y})")

    def answer(self) -> dict[str, Any]:
        if self.fmt == "native":
            return tool_call("act", {"action_result": "The display shows 42.", "thought": "Done.",
                                     "action": {"type": "answer", "text": "42"}, "description": "Answer 42",
                                     "ltm_update": {"content": "12+30 = 42"}})
        if self.fmt == "uitars":
            return text("Thought: The display shows 42.\nAction: finished(content='42')")
        if self.fmt == "qwen":
            call = {"name": "mobile_use", "arguments": {"action": "answer", "text": "42"}}
            return text(f"Thought: The display shows 42.\nAction: Answer.\n<tool_call>\n{json.dumps(call)}\n</tool_call>")
        return text("ANSWER: 42")


def run(agent: Any, device: Any, budget: int = 12, instruction: str = INSTRUCTION) -> list[AgentStep]:
    """The runner's loop in small: observe, step, act, until an answer."""
    agent.reset(AgentContext(task=None, instruction=instruction, budget=budget, apps=["Calculator", "Notes"]))
    steps: list[AgentStep] = []
    obs, last = device.observe(), ""
    for i in range(budget):
        out = agent.step(StepInput(index=i, observation=obs, budget_left=budget - i, last_result=last))
        steps.append(out)
        assert out.error is None, out.error
        action: Action = out.action
        if action.type in ("answer", "finish"):
            break
        last = device.act(action)
        obs = device.observe()
    return steps
