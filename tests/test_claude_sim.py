"""The claude agent completes a task on the simulated phone, the fake API playing the model.

The fake model reads only what the real one would: the request's element list
and text. It plays a competent model's part (open Calculator, key in 12+30, press
=, answer), so the test checks the agent's side end to end: observation to
request, tool call to action, element numbers and screenshot coordinates to
device taps, memory carried between steps, cost per step.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from guilens.actions import Action, Answer
from guilens.agents.base import AgentContext, AgentStep, StepInput
from guilens.agents.claude import ClaudeAgent
from guilens.config import load_settings
from guilens.device.uitree import actionable_elements
from tests import fakeapi
from tests.calculator_task import INSTRUCTION, SCENARIO
from tests.fakeapi import Faults, Request, tool_use

sim = pytest.importorskip("guilens.device.sim.device")
fake_api = fakeapi.fake_api

_ELEMENT = re.compile(r'^\[(\d+)\] (\w+) "([^"]*)"[^(]*\((\d+),(\d+)\)$', re.M)
TARGET = "12+30"


def calculator_model(req: Request) -> dict[str, Any]:
    """What a sensible model answers, decided from the request alone."""
    body = req.last_user_text()
    elements = [(int(n), kind, label, int(x), int(y)) for n, kind, label, x, y in _ELEMENT.findall(body)]
    assert elements, "the request has no element list"
    app = re.search(r"Current app: (\S+)\.", body)
    assert app is not None
    data: dict[str, Any] = {"thought": "", "action_result": "", "description": ""}
    if app[1] == "com.guilens.launcher":
        number = next(n for n, _, label, _, _ in elements if label == "Calculator")
        data.update(
            action={"type": "tap", "element": number}, description="Open Calculator from the home screen"
        )
        return tool_use("act", data)
    display = next(label for _, kind, label, _, _ in elements if kind == "EditText")
    data["action_result"] = f"The display shows {display}."
    if display == "42":
        data.update(
            action={"type": "answer", "text": "42"},
            description="Answer with the result",
            ltm_update={"app": "Calculator", "content": "12+30 = 42"},
        )
        return tool_use("act", data)
    typed = "" if display == "0" else display
    key = "=" if typed == TARGET else TARGET[len(typed)]
    number, _, _, x, y = next(e for e in elements if e[1] == "Button" and e[2] == key)
    if key.isdigit():
        data["action"] = {"type": "tap", "element": number}
    else:  # operators by coordinates, to exercise the screenshot-to-device scaling
        data["action"] = {"type": "tap", "x": x, "y": y}
    data.update(thought=f"Typed {typed or 'nothing'} so far; next is {key}.", description=f"Tap {key}")
    return tool_use("act", data)


def resolve(action: Action, obs: Any) -> Action:
    """What the runner does with an element target: tap its centre."""
    element = getattr(action, "element", None)
    if element is None:
        return action
    x, y = actionable_elements(obs.ui)[element].center
    return action.model_copy(update={"x": x, "y": y, "element": None})


def run(agent: ClaudeAgent, device: Any, instruction: str, budget: int = 15) -> list[AgentStep]:
    agent.reset(AgentContext(task=None, instruction=instruction, budget=budget, apps=["Calculator", "Notes"]))
    steps: list[AgentStep] = []
    obs = device.observe()
    last_result = ""
    for i in range(budget):
        out = agent.step(StepInput(index=i, observation=obs, budget_left=budget - i, last_result=last_result))
        steps.append(out)
        assert out.error is None, out.error
        if out.action.type in ("answer", "finish"):
            break
        last_result = device.act(resolve(out.action, obs))
        obs = device.observe()
    return steps


@pytest.mark.parametrize(
    "faults", [None, Faults(rate=0.3, kinds=("429", "500", "529"), retry_after=0.01, seed=4)]
)
def test_agent_completes_a_calculator_task(fake_api, faults):
    if faults is not None:
        fake_api.faults = faults
    fake_api.handler = calculator_model
    agent = ClaudeAgent(load_settings(), model="claude-sonnet-4-6")
    agent.client.policy.base_delay, agent.client.policy.max_delay = 0.01, 0.05
    device = sim.SimDevice()

    steps = run(agent, device, INSTRUCTION)

    assert steps[-1].action == Answer(text="42")
    assert device.state()["apps"]["calculator"]["result"] == "42"
    assert len(steps) == 8  # open, 1, 2, +, 3, 0, =, answer
    served = fake_api.served
    assert len(served) == 8
    if faults is not None:
        assert len(fake_api.requests) > 8  # some were faulted and retried
    for req in served:
        (img,) = req.images()
        assert img.size == (706, 1568)
        assert req.cache_breakpoints() == ["system[0]", "system[1]"]
    # CoM memory: the last STM entries are the model's own action results, FIFO of 4
    assert steps[-1].memory.stm == [
        "The display shows 12+.",
        "The display shows 12+3.",
        "The display shows 12+30.",
        "The display shows 42.",
    ]
    last_request = served[-1].last_user_text()
    assert (
        "1. The display shows 12.\n2. The display shows 12+.\n"
        "3. The display shows 12+3.\n4. The display shows 12+30." in last_request
    )
    assert "The display shows 1." not in last_request and "The display shows 0." not in last_request
    assert [(e.app, e.content) for e in steps[-1].memory.ltm] == [("com.guilens.calculator", "12+30 = 42")]
    # cost per step; the unchanging prefix is read from the prompt cache after the first step
    assert all(s.usage.cost_usd > 0 for s in steps)
    assert steps[0].usage.cache_write_tokens > 0
    assert all(s.usage.cache_read_tokens > 0 for s in steps[1:])
    fake_api.assert_clean()


LESSON = "Answer with exactly the number the display shows after pressing =."


def test_pass_at_2_through_the_runner_learns_from_the_failed_attempt(fake_api, tmp_path):
    """Attempt 1 misreads the display and answers 41; the reflection call writes a lesson; attempt 2,
    told the lesson, answers 42. Everything goes through the real runner, recorder and sim."""
    from guilens.runner import Runner, plan_run

    def model(req: Request) -> dict[str, Any]:
        if req.tool_names() == ["record_lessons"]:
            return tool_use("record_lessons", {"lessons": [LESSON]})
        reply = calculator_model(req)
        action = reply["content"][-1]["input"]["action"]
        if action["type"] == "answer" and LESSON not in req.system_text():
            action["text"] = "41"
        return reply

    fake_api.handler = model
    path = tmp_path / "calc.yaml"
    path.write_text(SCENARIO)
    plan = plan_run(
        str(path),
        agent="claude",
        devices=["sim"],
        user="oracle",
        attempts=2,
        out=tmp_path / "runs",
        model="claude-sonnet-4-6",
    )
    result = Runner(plan).run()

    first, second = result.tasks["add"].attempts
    assert (first.status, first.final_answer) == ("failure", "41")
    assert (second.status, second.final_answer) == ("success", "42")
    assert first.model == "claude-sonnet-4-6" and first.cost_usd > 0 and second.cost_usd > 0
    assert second.lessons == [LESSON]
    lessons_calls = [r for r in fake_api.served if r.tool_names() == ["record_lessons"]]
    assert len(lessons_calls) == 1 and "Final answer given: 41" in lessons_calls[0].text()
    second_attempt = [r for r in fake_api.served if LESSON in r.system_text()]
    assert len(second_attempt) == 8 and "Attempt 2 of 2" in second_attempt[0].system_text()
    steps = [s for s in (result.run_dir / "add" / "attempt-2" / "steps.jsonl").read_text().splitlines() if s]
    assert len(steps) == 8
    fake_api.assert_clean()
