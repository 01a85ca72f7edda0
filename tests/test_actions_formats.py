"""The papers' and models' text formats: replies as the models write them, read into device pixels.

The screen is the sim's 1080x2400. UI-TARS-1.5 and Qwen2.5-VL point in pixels
of the image they were sent, which is smart-resized to 1092x2408 (sides multiples
of 28), so their coordinates are scaled back: image x maps to device
round((x + 0.5) * 1080 / 1092 - 0.5), y likewise with 2400 / 2408.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guilens.actions import (
    ActionError,
    Answer,
    AskUser,
    Finish,
    KeyPress,
    LongPress,
    OpenApp,
    Scroll,
    Swipe,
    Tap,
    Type,
    Wait,
    check_on_screen,
    to_command,
)
from guilens.agents.formats import (
    FormatError,
    NativeFormat,
    act_parameters,
    anthropic_tool,
    format_names,
    get_format,
    openai_tool,
    parse_call,
    smart_resize,
)
from guilens.agents.prompts import ACT_TOOL

SCREEN = (1080, 2400)
IMAGE = (1092, 2408)  # smart_resize(1080, 2400) with Qwen2.5-VL's pixel budget


def test_the_registry_and_its_errors() -> None:
    assert format_names() == ["native", "odyssey", "qwen", "uitars"]
    with pytest.raises(FormatError, match="format 'tars' is not one of native, odyssey, qwen, uitars"):
        get_format("tars")
    with pytest.raises(FormatError, match="coordinates 'relative' is not one of image, norm1000, norm999"):
        get_format("uitars", coordinates="relative")
    with pytest.raises(FormatError, match="max_pixels=10 is below one 28x28 patch"):
        get_format("qwen", max_pixels=10)
    with pytest.raises(FormatError, match="native act tool takes pixels"):
        get_format("native", coordinates="norm1000")
    with pytest.raises(FormatError, match="format qwen: .*coordinate_note"):
        get_format("qwen", coordinate_note=True)


def test_image_sizes_follow_each_models_resize() -> None:
    assert smart_resize(1080, 2400) == IMAGE
    assert get_format("uitars").image_size(SCREEN) == IMAGE
    assert get_format("qwen").image_size(SCREEN) == IMAGE
    # A smaller budget (a server started with a lower max_pixels) shrinks it, still in 28 px patches.
    w, h = get_format("qwen", max_pixels=1280 * 28 * 28).image_size(SCREEN)
    assert (w % 28, h % 28) == (0, 0) and w * h <= 1280 * 28 * 28 and abs(h / w - 2400 / 1080) < 0.05
    assert get_format("odyssey").image_size(SCREEN) == (672, 1484)
    assert get_format("native").image_size(SCREEN) == (706, 1568)  # the claude agent's long side
    with pytest.raises(FormatError, match="aspect ratio"):
        smart_resize(10, 5000)


# --- UI-TARS ------------------------------------------------------------------------------------

UITARS_REPLIES = [
    ("Thought: The Shop app is open. I need the search box at the top to look for running shoes, so I'll tap "
     "it.\nAction: click(start_box='<|box_start|>(546,1204)<|box_end|>')",
     "The Shop app is open. I need the search box at the top to look for running shoes, so I'll tap it.",
     Tap(x=540, y=1200)),
    ("Thought: Tap the result.\nAction: click(start_box='(100,200,300,400)')", "Tap the result.", Tap(x=198, y=299)),
    ("Thought: Top left corner.\nAction: click(start_box='[0, 0, 0, 0]')", "Top left corner.", Tap(x=0, y=0)),
    ("Thought: The bottom right.\nAction: click(start_box='(1091,2407)')", "The bottom right.", Tap(x=1079, y=2399)),
    ("Thought: Hold the note.\nAction: long_press(start_box='<|box_start|>(546,1204)<|box_end|>', time='2')",
     "Hold the note.", LongPress(x=540, y=1200, duration_ms=2000)),
    ("Thought: Newer UI-TARS writes points.\nAction: click(point='<point>546 1204</point>')",
     "Newer UI-TARS writes points.", Tap(x=540, y=1200)),
    ("Thought: Type the query and submit it.\nAction: type(content='patio side table\\n')",
     "Type the query and submit it.", Type(text="patio side table\n")),
    ("Thought: The quote is not escaped.\nAction: type(content='it's 5 o'clock')",
     "The quote is not escaped.", Type(text="it's 5 o'clock")),
    ("Thought: More results are below.\nAction: scroll(start_box='<|box_start|>(546,1204)<|box_end|>', "
     "direction='down')", "More results are below.", Scroll(direction="down", x=540, y=1200)),
    ("Thought: Back to the top.\nAction: scroll(direction='up')", "Back to the top.", Scroll(direction="up")),
    ("Thought: Open the notes.\nAction: open_app(app_name='Notes')", "Open the notes.", OpenApp(app="Notes")),
    ("Thought: Drag the slider.\nAction: drag(start_box='(100,1204)', end_box='(1000,1204)')",
     "Drag the slider.", Swipe(x1=99, y1=1200, x2=989, y2=1200)),
    ("Thought: Home.\nAction: press_home()", "Home.", KeyPress(key="home")),
    ("Thought: Back.\nAction: press_back()", "Back.", KeyPress(key="back")),
    ("Thought: Loading.\nAction: wait()", "Loading.", Wait(seconds=5)),
    ("Thought: The total is shown.\nAction: finished(content='The total is $539.99')",
     "The total is shown.", Answer(text="The total is $539.99")),
    ("Thought: Done.\nAction: finished()", "Done.", Finish(status="success")),
    ("Reflection: the last tap missed.\nAction_Summary: tap Save.\nAction: click(start_box='(546,1204)')",
     "the last tap missed.\ntap Save.", Tap(x=540, y=1200)),
    ("click(start_box='(546,1204)')", "", Tap(x=540, y=1200)),  # the call alone
    ("Thought: Two calls.\nAction: click(start_box='(546,1204)')\n\nclick(start_box='(0,0)')",
     "Two calls.", Tap(x=540, y=1200)),  # one action per step: the first
]


@pytest.mark.parametrize(("reply", "thought", "action"), UITARS_REPLIES)
def test_uitars_replies_read_into_device_pixels(reply: str, thought: str, action: object) -> None:
    fmt = get_format("uitars")
    assert fmt.parse(reply, SCREEN, fmt.image_size(SCREEN)) == (thought, action)


@pytest.mark.parametrize(("reply", "action"), [
    ("Thought: centre\nAction: click(start_box='<|box_start|>(500,500)<|box_end|>')", Tap(x=540, y=1200)),
    ("Thought: a box\nAction: click(start_box='(100,100,300,300)')", Tap(x=216, y=480)),
    ("Thought: corner\nAction: click(start_box='(1000,1000)')", Tap(x=1079, y=2399)),
    ("Thought: up\nAction: scroll(start_box='(500,250)', direction='up')", Scroll(direction="up", x=540, y=600)),
])
def test_uitars_on_the_1000_grid(reply: str, action: object) -> None:
    """UI-TARS 1.0 and Gemini point on 0-1000 whatever the image size."""
    fmt = get_format("uitars", coordinates="norm1000")
    assert fmt.parse(reply, SCREEN, (540, 1200))[1] == action


@pytest.mark.parametrize(("reply", "fragment"), [
    ("I will tap the search box.", "no 'Action:' in the reply"),
    ("Thought: hmm\nAction:", "'Action:' is empty"),
    ("Thought: x\nAction: click()", "click needs start_box"),
    ("Thought: x\nAction: click(start_box='(5)')", "a box is (x,y) or (x1,y1,x2,y2)"),
    ("Thought: x\nAction: click(start_box='(-3,5)')", "negative coordinates"),
    ("Thought: x\nAction: scroll(direction='sideways')", "scroll direction 'sideways' is not up, down, left or right"),
    ("Thought: x\nAction: hotkey(key='ctrl c')", "unknown UI-TARS action 'hotkey'"),
    ("Thought: x\nAction: type(content='')", "type needs non-empty content"),
    ("Thought: x\nAction: click('(1,2)')", "arguments must be named"),
    ("", "the reply is empty"),
])
def test_uitars_bad_replies_say_what_is_wrong_in_one_line(reply: str, fragment: str) -> None:
    fmt = get_format("uitars")
    with pytest.raises(ActionError) as info:
        fmt.parse(reply, SCREEN, IMAGE)
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_uitars_prompt_holds_its_action_space_and_the_instruction_goes_last() -> None:
    fmt = get_format("uitars", language="Chinese")
    prompt = fmt.system_prompt(IMAGE)
    for call in ("click(start_box=", "long_press(start_box=", "type(content=", "scroll(start_box=",
                 "direction='down or up or right or left'", "open_app(app_name=", "drag(start_box=", "end_box=",
                 "press_home()", "press_back()", "finished(content="):
        assert call in prompt, call
    assert "Thought: ...\nAction: ..." in prompt and "Use Chinese in `Thought` part." in prompt
    assert "$" not in prompt and "pixels of the screenshot" not in prompt  # faithful unless asked
    assert "(1092x2408)" in get_format("uitars", coordinate_note=True).system_prompt(IMAGE)
    text = fmt.user_text("Find running shoes", ["click(start_box='(1,2)')", "type(content='shoes')"],
                         memory=[("Long-term memory", ["[shop] ASICS $159.95"])])
    assert text == ("## User Instruction\nFind running shoes\n\n## Long-term memory\n- [shop] ASICS $159.95\n\n"
                    "## Action History\nStep 1: click(start_box='(1,2)')\nStep 2: type(content='shoes')")
    assert fmt.prompt_in_user_turn and not fmt.image_first


# --- Qwen mobile_use -----------------------------------------------------------------------------

def _qwen(arguments: dict[str, object], head: str = "Thought: Open the search.\nAction: Tap the search box.\n") -> str:
    return head + "<tool_call>\n" + json.dumps({"name": "mobile_use", "arguments": arguments}) + "\n</tool_call>"


@pytest.mark.parametrize(("reply", "action"), [
    (_qwen({"action": "click", "coordinate": [546, 1204]}), Tap(x=540, y=1200)),
    (_qwen({"action": "click", "coordinate": [1091, 2407]}), Tap(x=1079, y=2399)),
    (_qwen({"action": "long_press", "coordinate": [546, 1204], "time": 1.5}), LongPress(x=540, y=1200, duration_ms=1500)),
    (_qwen({"action": "swipe", "coordinate": [546, 1800], "coordinate2": [546, 600]}),
     Swipe(x1=540, y1=1794, x2=540, y2=598)),
    (_qwen({"action": "type", "text": "Drip Coffee Maker"}), Type(text="Drip Coffee Maker")),
    (_qwen({"action": "system_button", "button": "Back"}), KeyPress(key="back")),
    (_qwen({"action": "system_button", "button": "Enter"}), KeyPress(key="enter")),
    (_qwen({"action": "key", "text": "del"}), KeyPress(key="delete")),
    (_qwen({"action": "key", "text": "KEYCODE_DEL"}), KeyPress(key="delete")),
    (_qwen({"action": "open", "text": "Calculator"}), OpenApp(app="Calculator")),
    (_qwen({"action": "wait", "time": 2}), Wait(seconds=2)),
    (_qwen({"action": "answer", "text": "$539.99"}), Answer(text="$539.99")),
    (_qwen({"action": "ask_user", "text": "Which size?"}), AskUser(question="Which size?")),
    (_qwen({"action": "terminate", "status": "success"}), Finish(status="success")),
    (_qwen({"action": "terminate", "status": "failure"}), Finish(status="failure")),
    # the cookbook's replies: the tool call alone, and one cut off at the stop token before its closing tag
    ('<tool_call>\n{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [546, 1204]}}\n</tool_call>',
     Tap(x=540, y=1200)),
    ('<tool_call>\n{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [546, 1204]}}',
     Tap(x=540, y=1200)),
    # arguments as a JSON string (how an OpenAI-style server may hand them over), and fenced JSON
    ('<tool_call>{"name": "mobile_use", "arguments": "{\\"action\\": \\"click\\", \\"coordinate\\": [546, 1204]}"}'
     '</tool_call>', Tap(x=540, y=1200)),
    ('Thought: x\n```json\n{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [546, 1204]}}\n```',
     Tap(x=540, y=1200)),
])
def test_qwen_replies_read_into_device_pixels(reply: str, action: object) -> None:
    fmt = get_format("qwen")
    assert fmt.parse(reply, SCREEN, fmt.image_size(SCREEN))[1] == action


def test_qwen_keeps_the_thought_and_the_models_own_summary() -> None:
    fmt = get_format("qwen")
    parsed = fmt.read(_qwen({"action": "click", "coordinate": [546, 1204]}), SCREEN, IMAGE)
    assert (parsed.thought, parsed.description) == ("Open the search.", "Tap the search box.")


@pytest.mark.parametrize(("coordinates", "point", "action"), [
    ("norm999", [499.5, 499.5], Tap(x=540, y=1200)),  # Qwen3-VL / ScenDroid: the 999 grid
    ("norm999", [999, 999], Tap(x=1079, y=2399)),
    ("norm999", [0, 0], Tap(x=0, y=0)),
    ("norm1000", [500, 500], Tap(x=540, y=1200)),
    ("norm1000", [250, 100], Tap(x=270, y=240)),
])
def test_qwen_on_a_relative_grid(coordinates: str, point: list[float], action: object) -> None:
    fmt = get_format("qwen", coordinates=coordinates)
    assert fmt.parse(_qwen({"action": "click", "coordinate": point}), SCREEN, IMAGE)[1] == action


@pytest.mark.parametrize(("reply", "fragment"), [
    ("I would tap the search box.", "no <tool_call> in the reply"),
    ("<tool_call>{\"name\": \"mobile_use\", \"arguments\": {\"action\": \"click\",</tool_call>", "the tool call is not JSON"),
    ("<tool_call>[1, 2]</tool_call>", "not an object"),
    (_qwen({"action": "click"}), "'coordinate' must be [x, y]"),
    (_qwen({"action": "click", "coordinate": [5, -1]}), "negative coordinates"),
    (_qwen({"action": "fly"}), "unknown mobile_use action 'fly'"),
    (_qwen({"action": "system_button", "button": "Power"}), "button 'Power' is not Back, Home, Menu, Enter or Delete"),
    (_qwen({"action": "terminate", "status": "maybe"}), "status 'maybe' is not success or failure"),
    ('<tool_call>{"name": "computer_use", "arguments": {"action": "left_click"}}</tool_call>',
     "the tool call names 'computer_use'; the only tool is mobile_use"),
    ('<tool_call>{"name": "mobile_use"}</tool_call>', "no 'arguments'"),
    ('<tool_call>{"name": "mobile_use", "arguments": {"action": "wait"}} {"x": 1}</tool_call>', "more than one JSON"),
])
def test_qwen_bad_replies_say_what_is_wrong_in_one_line(reply: str, fragment: str) -> None:
    fmt = get_format("qwen")
    with pytest.raises(ActionError) as info:
        fmt.parse(reply, SCREEN, IMAGE)
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_qwen_prompt_is_the_tools_block_with_the_screen_it_points_on() -> None:
    fmt = get_format("qwen")
    prompt = fmt.system_prompt(IMAGE)
    tools = prompt.split("<tools>\n", 1)[1].split("\n</tools>", 1)[0]
    tool = json.loads(tools)
    assert tool["function"]["name"] == "mobile_use"
    params = tool["function"]["parameters"]
    assert set(params["properties"]["action"]["enum"]) == {
        "key", "click", "long_press", "swipe", "type", "system_button", "open", "wait", "terminate", "answer",
        "ask_user"}
    assert params["properties"]["button"]["enum"] == ["Back", "Home", "Menu", "Enter"]
    assert "The screen's resolution is 1092x2408." in tool["function"]["description"]
    assert '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>' in prompt
    assert "Thought:" in prompt and "Action:" in prompt
    assert "resolution is 999x999" in get_format("qwen", coordinates="norm999").system_prompt(IMAGE)
    assert fmt.user_text("Open the notes", ["Tap Notes", "Type hi"]) == (
        "The user query: Open the notes\n"
        "Task progress (You have done the following operation on the current device): Step 1: Tap Notes; "
        "Step 2: Type hi; .")
    assert fmt.user_text("Open the notes").endswith("current device): None.")


# --- GUI Odyssey / Chain-of-Memory --------------------------------------------------------------

@pytest.mark.parametrize(("reply", "thought", "action"), [
    ("CLICK: (500, 500)", "", Tap(x=540, y=1200)),
    ("CLICK: (0, 1000)", "", Tap(x=0, y=2399)),
    ("LONG_PRESS: (250, 100)", "", LongPress(x=270, y=240)),
    ("SCROLL: UP", "", Scroll(direction="down")),  # the finger goes up: what is below comes into view
    ("SCROLL: LEFT", "", Scroll(direction="right")),
    ("TYPE: patio side table", "", Type(text="patio side table")),
    ("PRESS_BACK", "", KeyPress(key="back")),
    ("PRESS_HOME", "", KeyPress(key="home")),
    ("PRESS_RECENT", "", KeyPress(key="recent")),
    ("COMPLETE", "", Finish(status="success")),
    ("IMPOSSIBLE", "", Finish(status="failure")),
    ("ANSWER: 6,912,345", "", Answer(text="6,912,345")),
    ("ASK_USER: Which size do you wear?", "", AskUser(question="Which size do you wear?")),
    ("The search box is at the top.\nCLICK: (500, 141)", "The search box is at the top.", Tap(x=540, y=338)),
    ("Thought: open the first result\nAction: CLICK: (500, 300)", "open the first result", Tap(x=540, y=720)),
    ("```\nCLICK: [500, 500]\n```", "", Tap(x=540, y=1200)),
])
def test_odyssey_replies_read_into_device_pixels(reply: str, thought: str, action: object) -> None:
    fmt = get_format("odyssey")
    assert fmt.parse(reply, SCREEN, fmt.image_size(SCREEN)) == (thought, action)


@pytest.mark.parametrize(("reply", "fragment"), [
    ("I think I should tap the search box", "no command in the reply"),
    ("TYPE:", "TYPE: needs text after the colon"),
    ("CLICK: (-5, 40)", "negative coordinates"),
    ("SCROLL: SIDEWAYS", "scroll direction 'SIDEWAYS' is not up, down, left or right"),
])
def test_odyssey_bad_replies_say_what_is_wrong_in_one_line(reply: str, fragment: str) -> None:
    fmt = get_format("odyssey")
    with pytest.raises(ActionError) as info:
        fmt.parse(reply, SCREEN, (672, 1484))
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_odyssey_prompt_and_user_text() -> None:
    fmt = get_format("odyssey")
    prompt = fmt.system_prompt((672, 1484))
    for word in ("CLICK: (x, y)", "LONG_PRESS: (x, y)", "SCROLL: UP", "TYPE: text", "PRESS_BACK", "PRESS_HOME",
                 "PRESS_RECENT", "COMPLETE", "IMPOSSIBLE", "ANSWER: text", "ASK_USER: question", "(1000, 1000)"):
        assert word in prompt, word
    assert fmt.image_first and fmt.coordinates == "norm1000"
    assert fmt.user_text("open the notes app", []) == (
        "I'm looking for guidance on how to open the notes app\nPrevious Actions: None\n"
        "Provide the command-style action directly.")
    assert fmt.user_text("x", ["CLICK: (1, 2)", "TYPE: hi"]).split("\n")[1:3] == [
        "Previous Actions: 1. CLICK: (1, 2)", "2. TYPE: hi"]
    com = fmt.user_text("x", memory=[("Short-term memory", ["Opened Shop."]), ("Long-term memory", [])])
    assert "Short-term memory: 1. Opened Shop." in com and "Long-term memory: None" in com
    assert "Previous Actions" not in com  # CoM's memory replaces the action list


# --- native tool calling ----------------------------------------------------------------------

def test_native_tool_shares_act_tool_and_offers_every_action() -> None:
    params = act_parameters()
    assert {k: v for k, v in params["properties"].items() if k != "action"} == {
        k: v for k, v in ACT_TOOL["input_schema"]["properties"].items() if k != "action"}
    action = params["properties"]["action"]
    assert "scroll" in action["properties"]["type"]["enum"]
    assert "delete" in action["properties"]["key"]["enum"]
    assert action["properties"]["clear"]["type"] == "boolean"
    assert action["properties"]["direction"]["enum"] == ["up", "down", "left", "right"]
    assert openai_tool() == {"type": "function", "function": {
        "name": "act", "description": ACT_TOOL["description"], "parameters": params}}
    assert anthropic_tool()["input_schema"] == params and anthropic_tool()["name"] == "act"
    native = get_format("native")
    assert isinstance(native, NativeFormat) and native.tool("openai") == openai_tool()


def test_native_calls_and_json_replies_read_into_device_pixels() -> None:
    img = get_format("native").image_size(SCREEN)
    args = {"action_result": "", "thought": "Search first.", "description": "Tap the search box",
            "action": {"type": "tap", "x": 353, "y": 784}}
    parsed = parse_call(json.dumps(args), SCREEN, img)  # OpenAI hands over a JSON string
    assert (parsed.thought, parsed.action, parsed.description) == ("Search first.", Tap(x=540, y=1200),
                                                                  "Tap the search box")
    assert parsed.extra == {"action_result": ""}
    scroll = parse_call({"action": {"type": "scroll", "direction": "down", "element": 4}}, SCREEN, img)
    assert scroll.action == Scroll(direction="down", element=4)
    fmt = get_format("native")
    assert fmt.parse('```json\n{"thought": "t", "action": {"type": "type", "text": "hi", "clear": true}}\n```',
                     SCREEN, img) == ("t", Type(text="hi", clear=True))
    assert fmt.parse('{"type": "key", "key": "delete"}', SCREEN, img) == ("", KeyPress(key="delete"))
    for bad, fragment in [("no json here", "no act call and no JSON object"),
                          ('{"thought": "t"}', "has no 'action'"),
                          ('{"action": {"type": "zap"}}', "unknown action type 'zap'"),
                          ('{"action": "tap there"}', "'action' must be an object")]:
        with pytest.raises(ActionError, match=fragment):
            fmt.parse(bad, SCREEN, img)


# --- history lines: each format writes actions as its model does, and reads them back --------------

HISTORY = [
    Tap(x=540, y=1200), Tap(x=0, y=2399), LongPress(x=270, y=240), Type(text="it's \"5\""), KeyPress(key="back"),
    KeyPress(key="home"), Finish(status="success"), Answer(text="42"), AskUser(question="Which one?"),
    Scroll(direction="down"), Swipe(x1=540, y1=1800, x2=540, y2=600),
]
WRAP = {"uitars": "Thought: t\nAction: {}", "qwen": '<tool_call>{{"name": "mobile_use", "arguments": {}}}</tool_call>',
        "odyssey": "{}"}
UNSAID = {("qwen", "scroll"), ("odyssey", "swipe")}
"""Actions a format has no words for: written in guilens' command form instead."""


@pytest.mark.parametrize("name", ["uitars", "qwen", "odyssey"])
@pytest.mark.parametrize("action", HISTORY, ids=lambda a: a.type)
def test_history_lines_read_back_as_the_same_action(name: str, action: object) -> None:
    fmt = get_format(name)
    img = fmt.image_size(SCREEN)
    text = fmt.action_text(action, SCREEN, img)  # type: ignore[arg-type]
    if (name, action.type) in UNSAID:  # type: ignore[attr-defined]
        assert text == to_command(action)  # type: ignore[arg-type]
        return
    back = fmt.parse(WRAP[name].format(text), SCREEN, img)[1]
    if isinstance(action, Tap | LongPress) and isinstance(back, Tap | LongPress) and fmt.coordinates != "image":
        assert action.x is not None and action.y is not None and back.x is not None and back.y is not None
        assert abs(back.x - action.x) <= 1 and abs(back.y - action.y) <= 1  # the 1000 grid is coarser than 2400 px
        back = back.model_copy(update={"x": action.x, "y": action.y})
    assert back == action


def test_native_history_lines_are_commands_in_the_screenshots_pixels() -> None:
    fmt = get_format("native")
    img = fmt.image_size(SCREEN)
    assert fmt.action_text(Tap(x=540, y=1200), SCREEN, img) == "tap 353 784"
    assert fmt.action_text(Scroll(direction="up", element=3), SCREEN, img) == "scroll up #3"


# --- whatever a model sends, the answer is an action or one line to send back ---------------------

_fragments = st.sampled_from([
    "Thought: ", "Action: ", "click(", "start_box='", "(", ")", "<|box_start|>", "<|box_end|>", ",", "'", '"',
    "<tool_call>", "</tool_call>", '{"name": "mobile_use", "arguments": ', '{"action": "click", ', '"coordinate": [',
    "]", "}", "CLICK: ", "SCROLL: ", "TYPE: ", "1e999", "-3", "546", "1204", "\n", "\n\n", "scroll(", "direction='",
    "down", "type(content='", "```", "finished(content='", "nan", "\x00", "{", '"action": {"type": "tap"',
])
_replies = st.one_of(st.text(max_size=80), st.lists(_fragments, max_size=14).map("".join))


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(["uitars", "qwen", "odyssey", "native"]), reply=_replies,
       coords=st.sampled_from(["image", "norm1000", "norm999"]))
def test_any_reply_gives_an_action_on_screen_or_one_line(name: str, reply: str, coords: str) -> None:
    fmt = get_format(name, coordinates="image" if name == "native" else coords)
    img = fmt.image_size(SCREEN)
    try:
        _, action = fmt.parse(reply, SCREEN, img)
    except ActionError as err:
        assert "\n" not in str(err) and str(err)
        return
    check_on_screen(action, *SCREEN)
