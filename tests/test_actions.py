"""The action union and the foreign formats other people's agents emit."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guilens.actions import (
    ACTION_ADAPTER,
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
    parse_action,
    parse_command,
    to_command,
)

SCREEN = (1080, 2400)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"type": "tap", "x": 540, "y": 1200}, Tap(x=540, y=1200)),
        ({"type": "tap", "element": 12}, Tap(element=12)),
        ('{"type": "long_press", "x": 1, "y": 2, "duration_ms": 900}', LongPress(x=1, y=2, duration_ms=900)),
        ({"type": "swipe", "x1": 1, "y1": 2, "x2": 3, "y2": 4}, Swipe(x1=1, y1=2, x2=3, y2=4)),
        ({"type": "type", "text": "hi"}, Type(text="hi")),
        ({"type": "key", "key": "back"}, KeyPress(key="back")),
        ({"type": "open_app", "app": "notes"}, OpenApp(app="notes")),
        ({"type": "wait", "seconds": 2}, Wait(seconds=2)),
        ({"type": "ask_user", "question": "Which size?"}, AskUser(question="Which size?")),
        ({"type": "answer", "text": "42"}, Answer(text="42")),
        ({"type": "finish", "status": "failure"}, Finish(status="failure")),
    ],
)
def test_own_json_form(raw: object, expected: object) -> None:
    assert parse_action(raw, SCREEN) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # GUI Odyssey / Chain-of-Memory: coordinates normalised to [0, 1000]
        ("CLICK: (500, 500)", Tap(x=540, y=1200)),
        ("CLICK: (0, 1000)", Tap(x=0, y=2399)),
        ("LONG_PRESS: (250, 100)", LongPress(x=270, y=240)),
        ("TYPE: hello world", Type(text="hello world")),
        ("PRESS_BACK", KeyPress(key="back")),
        ("PRESS_HOME", KeyPress(key="home")),
        ("PRESS_RECENT", KeyPress(key="recent")),
        ("COMPLETE", Finish(status="success")),
        ("IMPOSSIBLE", Finish(status="failure")),
        # AndroidLens / UI-TARS calls
        ("click(start_box='<|box_start|>(500,250)<|box_end|>')", Tap(x=540, y=600)),
        ("click(start_box='(100,100,300,300)')", Tap(x=216, y=480)),
        ("long_press(start_box='(500,500)', time='2')", LongPress(x=540, y=1200, duration_ms=2000)),
        ("type(content='it\\'s 5')", Type(text="it's 5")),
        ("press_back()", KeyPress(key="back")),
        ("press_home()", KeyPress(key="home")),
        ("finished()", Finish(status="success")),
        ("finished(content='Paris')", Answer(text="Paris")),
        ("Action: wait()", Wait(seconds=5)),
        # ScenDroid mobile_use on a 999x999 grid
        ({"action": "click", "coordinate": [999, 0]}, Tap(x=1079, y=0)),
        ({"action": "long_press", "coordinate": [0, 999], "time": 1.5}, LongPress(x=0, y=2399, duration_ms=1500)),
        ({"action": "swipe", "coordinate": [0, 0], "coordinate2": [999, 999]}, Swipe(x1=0, y1=0, x2=1079, y2=2399)),
        ({"action": "type", "text": "abc"}, Type(text="abc")),
        ({"action": "system_button", "button": "Back"}, KeyPress(key="back")),
        ({"action": "system_button", "button": "Enter"}, KeyPress(key="enter")),
        ({"action": "answer", "text": "7"}, Answer(text="7")),
        ({"action": "ask_user", "text": "Which one?"}, AskUser(question="Which one?")),
        ({"action": "terminate", "status": "failure"}, Finish(status="failure")),
        (
            '<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [499.5, 499.5]}}</tool_call>',
            Tap(x=540, y=1200),
        ),
    ],
)
def test_foreign_forms(raw: object, expected: object) -> None:
    assert parse_action(raw, SCREEN) == expected


def test_scroll_directions_follow_each_format() -> None:
    # CoM names the finger's direction (negative dy is UP); UI-TARS names the content's. Both mean
    # "show what is below", which guilens calls a scroll down.
    assert parse_action("SCROLL: UP", SCREEN) == Scroll(direction="down")
    assert parse_action("SCROLL: RIGHT", SCREEN) == Scroll(direction="left")
    down = parse_action("scroll(start_box='(500,500)', direction='down')", SCREEN)
    assert down == Scroll(direction="down", x=540, y=1200)
    assert parse_action("scroll(direction='up')", SCREEN) == Scroll(direction="up")


def test_pixel_space_override() -> None:
    assert parse_action("click(start_box='(100,200)')", SCREEN, space="pixels") == Tap(x=100, y=200)


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ({"type": "tap", "x": -1, "y": 5}, "tap.x"),
        ({"type": "tap", "x": 5}, "x and y go together"),
        ({"type": "tap"}, "give x and y"),
        ({"type": "type", "text": ""}, "text is empty"),
        ({"type": "type", "text": "x", "clear": "maybe"}, "type.clear"),
        ({"type": "scroll", "direction": "sideways"}, "scroll.direction"),
        ({"type": "scroll", "direction": "down", "x": 5}, "x and y go together"),
        ({"type": "key", "key": "power"}, "key.key"),
        ({"type": "zap"}, "unknown action type 'zap'"),
        ({"x": 1}, "needs 'type'"),
        ("CLICK: (-5, 10)", "negative"),
        ("SCROLL: SIDEWAYS", "not up, down"),
        ("click()", "needs start_box"),
        ({"action": "click", "coordinate": [1]}, "'coordinate' must be [x, y]"),
        ({"action": "fly"}, "unknown mobile_use action"),
        ("{not json", "invalid JSON"),
        ("", "empty action"),
        ("do a barrel roll", "unrecognised action"),
    ],
)
def test_invalid_actions_name_the_problem(raw: object, fragment: str) -> None:
    with pytest.raises(ActionError) as info:
        parse_action(raw, SCREEN)
    assert fragment in str(info.value)


def test_off_screen_is_an_error_naming_the_field() -> None:
    check_on_screen(Tap(x=1079, y=2399), *SCREEN)
    with pytest.raises(ActionError, match=r"swipe\.y2=2400 is off the 1080x2400 screen"):
        check_on_screen(Swipe(x1=0, y1=0, x2=5, y2=2400), *SCREEN)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("tap 540 1200", Tap(x=540, y=1200)),
        ('tap "Search"', Tap(target="Search")),
        ("tap #3", Tap(element=3)),
        ("long 10 20", LongPress(x=10, y=20)),
        ("swipe 1 2 3 4", Swipe(x1=1, y1=2, x2=3, y2=4)),
        ("type hello; reboot", Type(text="hello; reboot")),
        ("back", KeyPress(key="back")),
        ("open notes", OpenApp(app="notes")),
        ("answer 42", Answer(text="42")),
        ("ask Which size?", AskUser(question="Which size?")),
        ("wait 2", Wait(seconds=2)),
        ("finish", Finish(status="success")),
        ("finish failure", Finish(status="failure")),
    ],
)
def test_command_form_round_trips(line: str, expected: object) -> None:
    action = parse_command(line)
    assert action == expected
    assert parse_command(to_command(action)) == action


def test_bad_commands_say_what_is_accepted() -> None:
    with pytest.raises(ActionError, match="unknown command 'jump'"):
        parse_command("jump 3")
    with pytest.raises(ActionError, match="swipe takes four"):
        parse_command("swipe 1 2")


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
_keys = st.sampled_from(["type", "action", "x", "y", "text", "key", "coordinate", "coordinate2", "status", "button"])
_dicts = st.dictionaries(_keys | st.text(max_size=6), _json_values | st.sampled_from(
    ["tap", "click", "swipe", "type", "key", "terminate", "system_button", "finish", "Back"]
), max_size=5)
_strings = st.text(max_size=60) | st.builds(
    lambda head, body: f"{head}{body}",
    st.sampled_from(["CLICK: ", "SCROLL: ", "TYPE:", "click(", "type(content=", "<tool_call>", "{", "Action: "]),
    st.text(max_size=40),
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_strings, _dicts, _json_values))
def test_parser_only_returns_actions_or_its_own_error(raw: object) -> None:
    try:
        action = parse_action(raw, SCREEN)
    except ActionError:
        return
    # Whatever parsed is a valid member of the union and survives its own JSON form.
    again = ACTION_ADAPTER.validate_python(json.loads(ACTION_ADAPTER.dump_json(action)))
    assert again == action


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_command_parser_only_returns_actions_or_its_own_error(line: str) -> None:
    with contextlib.suppress(ActionError):
        parse_command(line)
