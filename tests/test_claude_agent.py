"""The claude agent, one step at a time, against the fake Messages API (real SDK, real HTTP)."""

from __future__ import annotations

from datetime import datetime

import pytest
from PIL import Image

from guilens.actions import AskUser, LongPress, Swipe, Tap
from guilens.agents.base import AgentContext, StepInput
from guilens.agents.claude import ClaudeAgent
from guilens.config import ConfigError, load_settings
from guilens.device.base import Observation
from guilens.device.uitree import UINode, to_ui_xml
from guilens.episode import Episode, LTMEntry, Step, Timings
from guilens.llm import MissingAPIKey
from tests import fakeapi
from tests.fakeapi import message, text, tool_use, usage

fake_api = fakeapi.fake_api
NOW = datetime(2026, 11, 21, 9, 30)


def observation(app: str = "com.guilens.notes", labels: tuple[str, ...] = ("Save", "Cancel")) -> Observation:
    """A 1080x2400 screen with one button per label, stacked from y=1000."""
    root = UINode()
    frame = UINode(cls="android.widget.FrameLayout", package=app, bounds=(0, 0, 1080, 2400), parent=root)
    root.children = [frame]
    for i, label in enumerate(labels):
        top = 1000 + i * 200
        frame.children.append(
            UINode(
                text=label,
                cls="android.widget.Button",
                package=app,
                bounds=(340, top, 740, top + 160),
                clickable=True,
                parent=frame,
            )
        )
    return Observation(
        screenshot=Image.new("RGB", (1080, 2400), (240, 240, 240)),
        ui_xml=to_ui_xml(root),
        app=app,
        clock=NOW,
        size=(1080, 2400),
    )


def act(
    action: dict, *, result: str = "", thought: str = "thinking", description: str = "", ltm=None, **kw
) -> dict:
    data = {
        "action_result": result,
        "thought": thought,
        "action": action,
        "description": description or "doing it",
    }
    if ltm is not None:
        data["ltm_update"] = ltm
    return tool_use("act", data, **kw)


def make_agent(model: str = "claude-sonnet-4-6", **kw) -> ClaudeAgent:
    agent = ClaudeAgent(load_settings(), model=model, **kw)
    agent.client.timeout = 2
    return agent


def start(agent: ClaudeAgent, **ctx) -> None:
    agent.reset(AgentContext(task=None, instruction=ctx.pop("instruction", "Save the note."), **ctx))


def step_input(i: int, obs: Observation | None = None, **kw) -> StepInput:
    return StepInput(index=i, observation=obs or observation(), budget_left=30 - i, **kw)


def test_missing_key_fails_at_construction(monkeypatch, tmp_path):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    with pytest.raises(MissingAPIKey, match="ANTHROPIC_API_KEY is not set"):
        ClaudeAgent(load_settings())
    from guilens.agents.registry import load_agent

    with pytest.raises(ConfigError, match=r"another --agent \(oracle") as info:
        load_agent("claude", load_settings(), model="claude-sonnet-5-5")
    assert "--rules-only" not in str(info.value)  # `run` has no such option


def test_registry_builds_it_with_the_run_settings(fake_api):
    from guilens.agents.registry import load_agent

    settings = load_settings(stm_size=6, model="claude-opus-4-6")
    agent = load_agent("claude", settings, model="claude-haiku-4-5", seed=3)
    assert isinstance(agent, ClaudeAgent)
    assert agent.model == "claude-haiku-4-5" and agent.stm_size == 6 and agent.settings is settings
    assert ClaudeAgent(settings).model == "claude-opus-4-6"


def test_first_request_carries_task_screen_elements_and_cache_breakpoints(fake_api):
    fake_api.push(act({"type": "tap", "element": 0}, description="Tap Save"))
    agent = make_agent()
    start(
        agent,
        lessons=["The Save button is at the bottom."],
        apps=["Notes", "Calculator"],
        attempt=2,
        attempts=3,
    )
    out = agent.step(step_input(0))
    assert out.error is None and out.action == Tap(element=0)
    assert out.description == "Tap Save" and out.thought == "thinking"
    assert out.usage.input_tokens > 0 and out.usage.cost_usd > 0

    req = fake_api.requests[0]
    assert req.cache_breakpoints() == ["system[0]", "system[1]"]
    assert req.tool_names() == ["act"] and req["tool_choice"] == {"type": "tool", "name": "act"}
    system = req.system_text()
    assert "# Task\nSave the note." in system and "- The Save button is at the bottom." in system
    assert "Notes, Calculator" in system and "Attempt 2 of 3" in system
    (img,) = req.images()
    assert img.size == (706, 1568)
    body = req.last_user_text()
    assert "The screenshot is 706x1568 pixels" in body
    # the element list gives centres in screenshot pixels: (540, 1080) on the device is (353, 705)
    assert '[0] Button "Save" (353,705)' in body and '[1] Button "Cancel" (353,836)' in body
    assert "(empty: no earlier actions)" in body and "None: this is the first step." in body
    fake_api.assert_clean()


def test_newest_model_gets_a_forced_tool_choice_and_no_temperature(fake_api):
    fake_api.push(act({"type": "key", "key": "back"}))
    agent = make_agent("claude-sonnet-5-5")
    start(agent)
    assert agent.step(step_input(0)).action.type == "key"
    req = fake_api.requests[0]
    assert req["tool_choice"] == {"type": "tool", "name": "act"} and "temperature" not in req
    fake_api.assert_clean()


def test_coordinates_are_scaled_to_device_pixels(fake_api):
    fake_api.push(
        act({"type": "tap", "x": 353, "y": 784}),
        act({"type": "swipe", "x1": 353, "y1": 1200, "x2": 353, "y2": 400}, result="tapped"),
        act({"type": "long_press", "x": 705, "y": 1567, "duration_ms": 900}, result="scrolled"),
    )
    agent = make_agent()
    start(agent)
    assert agent.step(step_input(0)).action == Tap(x=540, y=1200)
    assert agent.step(step_input(1)).action == Swipe(x1=540, y1=1837, x2=540, y2=613)
    assert agent.step(step_input(2)).action == LongPress(x=1079, y=2399, duration_ms=900)


def test_stm_keeps_the_last_n_results_in_order(fake_api):
    fake_api.handler = lambda req: act(
        {"type": "wait", "seconds": 1}, result=f"result of step {len(fake_api.requests) - 1}"
    )
    agent = make_agent(stm_size=3)
    start(agent)
    outs = [agent.step(step_input(i, last_result="waited 1 s")) for i in range(6)]
    assert outs[0].action_result == "" and outs[0].memory.stm == []  # nothing happened before step 0
    assert outs[1].memory.stm == ["result of step 1"]
    assert outs[5].memory.stm == ["result of step 3", "result of step 4", "result of step 5"]
    last = fake_api.requests[5].last_user_text()
    assert "1. result of step 2\n2. result of step 3\n3. result of step 4" in last
    assert "result of step 1" not in last
    assert "The device reported: waited 1 s" in last


def test_ltm_replaces_within_an_app_and_appends_across_apps(fake_api):
    updates = [
        ("com.shop", {"app": "Shop", "content": "Mouse: $25"}),
        ("com.shop", {"app": "Shop", "content": "Mouse: $25; Keyboard: $40"}),
        ("com.notes", {"content": "Note titled Prices created"}),
        ("com.shop", {"content": "Monitor: $199"}),
        ("com.shop", None),
    ]
    fake_api.handler = lambda req: act(
        {"type": "wait", "seconds": 1}, result="ok", ltm=updates[len(fake_api.requests) - 1][1]
    )
    agent = make_agent()
    start(agent, ltm=[LTMEntry(app="com.mail", content="Boss email: a@b.c", step=3)])
    outs = [agent.step(step_input(i, observation(app=app))) for i, (app, _) in enumerate(updates)]
    assert [(e.app, e.content, e.step) for e in outs[-1].memory.ltm] == [
        ("com.mail", "Boss email: a@b.c", 3),
        ("com.shop", "Mouse: $25; Keyboard: $40", 1),
        ("com.notes", "Note titled Prices created", 2),
        ("com.shop", "Monitor: $199", 3),
    ]
    assert "- [com.shop] Mouse: $25; Keyboard: $40 (step 1)" in fake_api.requests[2].last_user_text()


def test_invalid_action_is_fed_back_and_fixed(fake_api):
    fake_api.push(
        act({"type": "jump", "height": 3}, usage=usage(1000, 100)),
        act({"type": "tap", "element": 1}, usage=usage(1200, 80)),
    )
    agent = make_agent()
    start(agent)
    out = agent.step(step_input(0))
    assert out.error is None and out.action == Tap(element=1)
    assert out.usage.input_tokens == 2200 and out.usage.output_tokens == 180
    retry = fake_api.requests[1]
    roles = [m["role"] for m in retry["messages"]]
    assert roles == ["user", "assistant", "user"]
    result = retry["messages"][2]["content"][0]
    assert result["type"] == "tool_result" and result["is_error"] is True
    assert "unknown action type 'jump'" in result["content"]
    assert retry["messages"][1]["content"][0]["type"] == "tool_use"
    fake_api.assert_clean()


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ({"type": "tap", "element": 7}, "element 7 does not exist"),
        ({"type": "tap", "x": 900, "y": 100}, "off the 706x1568 screen"),
        ({"type": "tap"}, "give x and y"),
    ],
)
def test_out_of_range_targets_are_errors(fake_api, bad, problem):
    fake_api.push(act(bad), act({"type": "key", "key": "home"}))
    agent = make_agent()
    start(agent)
    assert agent.step(step_input(0)).action.type == "key"
    assert problem in fake_api.requests[1].text()


def test_malformed_output_is_retried_then_an_error_step(fake_api):
    fake_api.push(
        text("I think I should tap Save.", usage=usage(500, 20)),
        text("Tapping Save now.", usage=usage(600, 20)),
        text("Save.", usage=usage(700, 20)),
    )
    agent = make_agent(max_fix_attempts=2)
    start(agent)
    out = agent.step(step_input(0))
    assert out.action is None
    assert (
        out.error is not None
        and "no valid action after 3 tries" in out.error
        and "no act tool call" in out.error
    )
    assert out.usage.input_tokens == 1800
    assert len(fake_api.requests) == 3
    last = fake_api.requests[2]
    assert [m["role"] for m in last["messages"]] == ["user", "assistant", "user", "assistant", "user"]
    assert "Call the act tool once" in last.last_user_text()
    # the next step tells the model its last turn produced nothing
    fake_api.push(act({"type": "key", "key": "back"}, result="nothing happened"))
    agent.step(step_input(1, last_error=out.error))
    nxt = fake_api.requests[3].last_user_text()
    assert "none: your turn produced no valid action" in nxt and "REJECTED" in nxt


def test_user_answer_and_rejection_reach_the_model(fake_api):
    fake_api.push(
        act({"type": "ask_user", "question": "Which title should the note have?"}),
        act({"type": "tap", "element": 0}, result="the user answered"),
        act({"type": "key", "key": "back"}, result="tap rejected"),
    )
    agent = make_agent()
    start(agent, instruction="Make a note.")
    first = agent.step(step_input(0))
    assert first.action == AskUser(question="Which title should the note have?")
    agent.step(step_input(1, user_answer="Groceries"))
    second = fake_api.requests[1].last_user_text()
    assert "Q: Which title should the note have?\nA: Groceries" in second
    assert "The user answered: Groceries" in second
    agent.step(step_input(2, last_error="element 0 is not on this screen"))
    third = fake_api.requests[2].last_user_text()
    assert "REJECTED, not performed: element 0 is not on this screen" in third
    assert "Q: Which title should the note have?\nA: Groceries" in third  # the Q&A history stays


def test_no_ui_tree_means_no_element_list(fake_api):
    fake_api.push(act({"type": "tap", "element": 0}), act({"type": "tap", "x": 10, "y": 10}))
    agent = make_agent()
    start(agent)
    obs = observation()
    obs.ui_xml = None
    assert agent.step(step_input(0, obs)).action == Tap(x=16, y=16)
    assert "Actionable elements" not in fake_api.requests[0].text()
    assert "there is no element list this step" in fake_api.requests[1].text()


def test_set_of_marks_can_be_turned_off(fake_api):
    fake_api.push(act({"type": "tap", "x": 353, "y": 706}))
    agent = make_agent(set_of_marks=False)
    start(agent)
    agent.step(step_input(0))
    assert "Actionable elements" not in fake_api.requests[0].text()


def test_lessons_after_a_failed_attempt(fake_api):
    fake_api.push(
        tool_use(
            "record_lessons",
            {
                "lessons": [
                    "Tap the Save icon, not Cancel.",
                    "The Save button is at the bottom.",
                    "Tap the Save icon, not Cancel.",
                ]
            },
        )
    )
    agent = make_agent()
    start(agent, lessons=["The Save button is at the bottom."])
    episode = Episode(
        task="notes-1", instruction="Save the note.", status="failure", timings=Timings(started_at=NOW)
    )
    steps = [
        Step(
            index=0,
            started_at=NOW,
            ended_at=NOW,
            app="com.notes",
            action_description="Tap Cancel",
            action={"type": "tap"},
        ),
        {
            "index": 1,
            "app": "com.notes",
            "action_description": "Finish",
            "action_result": "The note was discarded",
            "error": "budget exhausted",
        },
    ]
    lessons = agent.lessons(episode, steps)
    assert lessons == ["Tap the Save icon, not Cancel."]
    assert agent.lessons_usage.cost_usd > 0
    req = fake_api.requests[0]
    assert req.tool_names() == ["record_lessons"]
    body = req.text()
    assert "Status: failure" in body and "0. [com.notes] Tap Cancel" in body
    assert (
        "result of the previous action: The note was discarded" in body and "ERROR: budget exhausted" in body
    )
    assert "# Lessons the agent already had\n- The Save button is at the bottom." in body
    fake_api.assert_clean()


def test_lessons_read_from_text_when_the_tool_is_not_used(fake_api):
    fake_api.push(text("Lessons:\n- Open Notes from the launcher.\n- Remember the price before leaving.\n"))
    agent = make_agent()
    start(agent)
    episode = Episode(task="t", status="timeout", timings=Timings(started_at=NOW))
    assert agent.lessons(episode, []) == [
        "Open Notes from the launcher.",
        "Remember the price before leaving.",
    ]


def test_thinking_blocks_go_back_unchanged_when_asking_for_a_fix(fake_api):
    thinking = {"type": "thinking", "thinking": "The user wants Save.", "signature": "c2lnbmF0dXJl"}
    bad = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "act",
        "input": {"thought": "x", "action": {"type": "tap"}},
    }
    fake_api.push(message(thinking, bad), act({"type": "tap", "target": "Save"}))
    agent = make_agent()
    start(agent)
    assert agent.step(step_input(0)).action == Tap(target="Save")
    sent_back = fake_api.requests[1]["messages"][1]["content"]
    assert sent_back[0] == thinking and sent_back[1]["id"] == "toolu_1"
    fake_api.assert_clean()


def test_a_take_over_is_told_to_the_model(fake_api):
    fake_api.push(
        act({"type": "tap", "element": 0}), act({"type": "key", "key": "back"}, result="a person acted")
    )
    agent = make_agent()
    start(agent)
    agent.step(step_input(0))
    history = [
        {"index": 0, "by": "agent", "description": "Tap Save", "result": "pressed Save"},
        {"index": 1, "by": "human", "description": "back", "result": "went back"},
        {"index": 2, "by": "human", "description": "tap 540 1200", "result": "opened Notes"},
    ]
    agent.step(step_input(3, last_result="opened Notes", history=history))
    body = fake_api.requests[1].last_user_text()
    assert "tap #0: doing it" in body
    assert (
        "Then a person took over the phone and did, in order:\n- back (went back)\n- tap 540 1200 (opened Notes)"
        in body
    )
    assert "The device reported" not in body
