"""`--memory`: each strategy sends what it says, asserted on the requests the loopback OpenAI server received.

The agent runs the Calculator task on the sim (tests/openai_agent_helpers.py
plays the model); the assertions count screenshots, history lines and STM/LTM
text in each request, and check what each step's `memory` records (what the
memory pane shows).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from guilens.agents.openai_agent import OpenAIAgent
from guilens.config import load_settings
from guilens.episode import LTMEntry, Memory
from tests import fakeopenai
from tests.fakeopenai import Request, text
from tests.openai_agent_helpers import CalculatorModel, run

sim = pytest.importorskip("guilens.device.sim.device")
fake_openai = fakeopenai.fake_openai


def perceiving(model: CalculatorModel) -> Any:
    """The handler: Chain-of-Memory's perception calls answered in JSON, decisions by the model."""
    count = {"n": 0}

    def handle(req: Request) -> Any:
        if "You keep the memory of an agent" not in req.system_text():
            return model(req)
        n, count["n"] = count["n"], count["n"] + 1
        return text(json.dumps({"action_result": f"result {n}" if n else "", "screen_info": f"display state {n}",
                                "keep": n >= 2, "memory": f"typed so far at {n}"}))
    return handle


def solve(fmt: str, memory: str, handler: Any = None, **kw: Any) -> tuple[list[Any], list[Request]]:
    model = CalculatorModel(fmt)
    fake_openai_ = kw.pop("server")
    fake_openai_.handler = handler(model) if handler else model
    device = sim.SimDevice()
    steps = run(OpenAIAgent(load_settings(), model="m", format=fmt, memory=memory, **kw), device)
    assert device.state()["apps"]["calculator"]["result"] == "42" and steps[-1].action.text == "42"
    fake_openai_.assert_clean()
    return steps, fake_openai_.served


def history_lines(req: Request) -> list[str]:
    body = req.last_user_text()
    block = body.split("## Action History\n", 1)[1] if "## Action History\n" in body else ""
    return [ln for ln in block.splitlines() if ln.startswith("Step ")]


def test_none_sends_only_the_instruction_and_the_current_screen(fake_openai):
    steps, served = solve("uitars", "none", server=fake_openai)
    assert len(served) == 8 and all(r.image_count() == 1 for r in served)
    assert all(history_lines(r) == [] and "click(start_box" not in r.last_user_text().split("## User Instruction")[1]
               for r in served)
    assert [len(r["messages"]) for r in served] == [1] * 8
    assert steps[-1].memory == Memory(strategy="none")


def test_actions_sends_one_line_per_earlier_step_in_the_formats_wording(fake_openai):
    steps, served = solve("uitars", "actions", server=fake_openai)
    for i, req in enumerate(served):
        lines = history_lines(req)
        assert len(lines) == i and req.image_count() == 1
        assert all(re.fullmatch(r"Step \d+: click\(start_box='<\|box_start\|>\(\d+,\d+\)<\|box_end\|>'\)", ln)
                   for ln in lines), lines
        assert "Thought:" not in req.last_user_text().split("## Action History")[-1] or not lines
    assert steps[3].memory.history == [ln.split(": ", 1)[1] for ln in history_lines(served[3])]
    assert steps[-1].memory.strategy == "actions" and steps[-1].memory.stm == []


def test_action_thought_adds_each_steps_thought(fake_openai):
    steps, served = solve("uitars", "action-thought", server=fake_openai)
    lines = history_lines(served[4])
    assert len(lines) == 4
    assert lines[2].startswith("Step 3: Thought: Step 3: tap 2. Action: click(start_box='<|box_start|>(")
    assert steps[4].memory.history[2].startswith("Thought: Step 3: tap 2. Action: click(")


def test_multiturn_keeps_the_replies_as_turns_and_the_last_n_screenshots(fake_openai):
    steps, served = solve("uitars", "multiturn", history_images=3, server=fake_openai)
    assert [r.image_count() for r in served] == [1, 2, 3, 3, 3, 3, 3, 3]
    last = served[-1]
    roles = [m["role"] for m in last["messages"]]
    assert roles == ["user", "assistant"] * 7 + ["user"]
    replies = [m["content"] for m in last["messages"] if m["role"] == "assistant"]
    assert replies[0].startswith("Thought: Step 1: tap Calculator.\nAction: click(start_box=") if isinstance(
        replies[0], str) else replies[0][0]["text"].startswith("Thought: Step 1: tap Calculator.")
    assert len(replies) == 7
    # the prompt and the instruction stay in the first turn; older screenshots are noted, not sent
    assert "## User Instruction\nUse Calculator" in Request({"messages": last["messages"][:1]}).text()
    assert "(The screenshot of step 1 is no longer shown.)" in last.text()
    assert "(The screenshot of step 5 is no longer shown.)" in last.text()
    assert "(The screenshot of step 6 is no longer shown.)" not in last.text()
    assert [s.memory.images for s in steps[:4]] == [[0], [0, 1], [0, 1, 2], [1, 2, 3]]
    assert steps[-1].memory.strategy == "multiturn" and steps[-1].memory.history == []


def test_multiturn_with_native_tool_calls_answers_each_call(fake_openai):
    steps, served = solve("native", "multiturn", history_images=2, server=fake_openai)
    last = served[-1]
    roles = [m["role"] for m in last["messages"]]
    assert roles[:1] == ["system"] and roles.count("tool") == 7 and roles.count("assistant") == 7
    assert all(roles[i + 1] == "tool" for i, r in enumerate(roles) if r == "assistant")  # each call answered
    tool = [m for m in last["messages"] if m["role"] == "tool"]
    assert tool[1]["content"].startswith("Performed. The device reported: ")
    assert [r.image_count() for r in served][:3] == [1, 2, 2]
    assert "action_result" not in json.dumps(served[0]["tools"])  # not CoM: no memory fields asked for


def test_com_with_a_text_format_makes_the_perception_call_and_sends_stm_and_ltm(fake_openai):
    steps, served = solve("uitars", "com", handler=perceiving, server=fake_openai)
    assert len(served) == 16  # a perception call, then the decision, each step
    perceive, decide = served[0::2], served[1::2]
    assert all("You keep the memory of an agent" in r.system_text() for r in perceive)
    assert all(r.image_count() == 1 for r in served)
    body = decide[4].last_user_text()
    assert "## Short-term memory\n- result 1\n- result 2\n- result 3\n- result 4" in body
    assert "## Long-term memory\n- [com.guilens.calculator] typed so far at 4" in body
    last = decide[-1].last_user_text()
    assert "- result 4\n- result 5\n- result 6\n- result 7" in last and "- result 3" not in last  # a FIFO of 4
    assert "## Action History" not in last
    assert steps[-1].memory.stm == ["result 4", "result 5", "result 6", "result 7"]
    assert steps[-1].memory.ltm == [LTMEntry(app="com.guilens.calculator", content="typed so far at 7", step=7)]
    assert steps[-1].action_result == "result 7" and len(steps[-1].llm_calls) == 2


def test_com_with_native_writes_its_own_memory_in_the_act_call(fake_openai):
    steps, served = solve("native", "com", server=fake_openai)
    assert len(served) == 8
    assert "1. turn 3 done\n2. turn 4 done\n3. turn 5 done\n4. turn 6 done" in served[-1].last_user_text()
    assert steps[-1].memory.ltm[-1].content == "12+30 = 42"
    assert "action_result" in json.dumps(served[0]["tools"]) and "ltm_update" in json.dumps(served[0]["tools"])


def test_screen_info_is_read_first_and_given_to_the_decision(fake_openai):
    steps, served = solve("native", "action-thought", handler=perceiving, screen_info=True, server=fake_openai)
    assert len(served) == 16
    assert '"screen_info"' in served[0].system_text() and '"keep"' not in served[0].system_text()
    assert "UI tree text" in served[0].text() and 'Button "=' not in served[0].text()  # the launcher
    assert "## Screen information (task-relevant content of this screen)\ndisplay state 3" in served[7].text()
    assert steps[3].memory.screen_info == "display state 3"
    assert "## Your earlier actions, oldest first\n1. Thought: Step 1: tap Calculator. Action: tap 435 964" in served[7].last_user_text()


def test_the_memory_pane_shows_what_each_strategy_keeps():
    from guilens.screens.widgets.memory import render_memory

    shown = render_memory(Memory(strategy="actions", history=["click(a)", "click(b)"]),
                          Memory(strategy="actions", history=["click(a)"])).plain
    assert "Memory actions" in shown and "History 2 lines sent" in shown and "+ click(b)" in shown
    assert "STM" not in shown
    shown = render_memory(Memory(strategy="multiturn", images=[3, 4, 5])).plain
    assert "Images 3 sent, of steps 4, 5, 6" in shown
    shown = render_memory(Memory(strategy="com", stm=["opened it"], screen_info="Price: $25",
                                 ltm=[LTMEntry(app="shop", content="Mouse $25", step=2)])).plain
    assert "STM 1" in shown and "[shop] Mouse $25" in shown and "Screen info" in shown and "Price: $25" in shown
    assert "no history" in render_memory(Memory(strategy="none")).plain
    assert "STM 0" in render_memory(Memory()).plain  # agents that do not say (the oracle): as before


def test_multiturn_tells_each_later_turn_only_what_is_new(fake_openai):
    from guilens.agents.base import AgentContext, StepInput

    fake_openai.push(text("Thought: ask\nAction: call_user(content='Which note?')"),
                     text("Thought: ok\nAction: press_home()"), text("Thought: ok\nAction: press_back()"))
    a = OpenAIAgent(load_settings(), model="m", format="uitars", memory="multiturn")
    a.reset(AgentContext(task=None, instruction="Open my note."))
    obs = sim.SimDevice().observe()
    assert a.step(StepInput(index=0, observation=obs, budget_left=5)).action.type == "ask_user"
    a.step(StepInput(index=1, observation=obs, budget_left=4, user_answer="Groceries"))
    a.step(StepInput(index=2, observation=obs, budget_left=3, last_error="no such key"))
    second, third = fake_openai.requests[1], fake_openai.requests[2]
    assert second.last_user_text() == "The user answered: Groceries"
    assert third.last_user_text() == "Your previous action was rejected, not performed: no such key"
    assert third.text().count("Groceries") == 1 and [r.image_count() for r in (second, third)] == [2, 3]
