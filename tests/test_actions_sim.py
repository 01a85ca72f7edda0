"""The actions of schema 3 on the simulated phone and in the command form: `type` with `clear`,
the `delete` key, and `scroll` on the screen or on an element."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guilens.actions import (
    ActionError,
    Answer,
    AskUser,
    KeyPress,
    OpenApp,
    Scroll,
    Swipe,
    Tap,
    Type,
    parse_command,
    scroll_gesture,
    to_command,
)
from guilens.device.adb_text import KEYCODES, clear_field_commands
from guilens.device.sim import SimDevice
from guilens.device.uitree import actionable_elements
from tests.sim_helpers import Driver

# --- type with clear, and the delete key ------------------------------------------------------


def test_a_retyped_search_replaces_the_old_one() -> None:
    """The issue's case: without `clear` the second search was appended to the first."""
    d = Driver()
    d.open("shop")
    d.tap("id:search_box")
    d.type("patio side table")
    said = d.dev.act(Type(text="Drip Coffee Maker 12-Cup", clear=True))
    assert said == "cleared Search products; typed 'Drip Coffee Maker 12-Cup' into Search products"
    assert d.dev.state()["fields"]["search_box"] == "Drip Coffee Maker 12-Cup"
    d.key("enter")
    assert d.dev.state()["screen"] == "shop/results"
    assert d.has("Drip Coffee Maker 12-Cup") and not d.has("Outdoor Patio Folding Side Table")


def test_clear_with_no_text_only_empties_the_field() -> None:
    d = Driver()
    d.open("shop")
    d.tap("id:search_box")
    d.type("patio")
    assert d.dev.act(Type(text="", clear=True)) == "cleared Search products"
    assert d.dev.state()["fields"]["search_box"] == ""
    assert d.node("id:search_box").text == "Search products"  # the hint is back


def test_delete_removes_the_character_before_the_cursor() -> None:
    d = Driver()
    d.open("shop")
    assert d.key("delete") == "pressed delete; no text field is focused"
    d.tap("id:search_box")
    d.type("cats")
    assert d.key("delete") == "deleted 's' from Search products"
    assert d.dev.state()["fields"]["search_box"] == "cat"
    for _ in range(3):
        d.key("delete")
    assert d.dev.state()["fields"]["search_box"] == ""
    assert d.key("delete") == "pressed delete; Search products is empty"


def test_editing_a_field_runs_its_change_hook_like_typing_does() -> None:
    """In Maps, changing an end of the route hides the route shown for the old one."""
    d = Driver()
    d.open("maps")
    d.tap("id:directions")
    d.tap("id:origin")
    d.type("Cupertino Apartments")
    d.tap("id:destination")
    d.type("Apple Park")
    d.key("enter")
    assert d.texts("duration") == ["6 min"]
    d.tap("id:destination")
    d.key("delete")
    assert d.dev.state()["fields"]["destination"] == "Apple Par"
    assert d.texts("duration") == []  # the route is gone with the text it was for
    d.dev.act(Type(text="Apple Park", clear=True))
    d.key("enter")
    assert d.texts("duration") == ["6 min"]


def test_the_calculators_display_takes_delete_and_clear() -> None:
    d = Driver()
    d.open("calculator")
    d.type("12+34")
    d.key("delete")
    assert d.dev.state()["apps"]["calculator"]["display"] == "12+3"
    d.dev.act(Type(text="7*6", clear=True))
    assert d.dev.state()["apps"]["calculator"]["display"] == "7×6"
    d.key("enter")
    assert d.dev.state()["apps"]["calculator"]["result"] == "42"


def test_a_newline_in_a_one_line_field_is_the_enter_key() -> None:
    """UI-TARS submits with `type(content='...\\n')`; over ADB a newline is KEYCODE_ENTER, and so here."""
    d = Driver()
    d.open("shop")
    d.tap("id:search_box")
    said = d.dev.act(Type(text="coffee\n", clear=True))
    assert said.startswith("cleared Search products; typed 'coffee' into Search products; searched for 'coffee'")
    assert d.dev.state()["screen"] == "shop/results"


# --- scroll -----------------------------------------------------------------------------------


def _visible_products(d: Driver) -> list[str]:
    return [n.text for n in d.ui.iter() if n.short_id == "product_name"]


def _shoe_results() -> Driver:
    """The shop's results for "shoes": a list three screens long, under a search box that does not scroll."""
    d = Driver()
    d.open("shop")
    d.tap("id:search_box")
    d.type("shoes")
    d.key("enter")
    assert _visible_products(d), "the search lists products"
    return d


def test_scroll_down_shows_what_is_below_and_up_comes_back() -> None:
    d = _shoe_results()
    before, xml = _visible_products(d), d.dev.observe().ui_xml
    assert d.dev.act(Scroll(direction="down")) == "scrolled down"
    after = _visible_products(d)
    assert after != before and after[-1] != before[-1]  # later products came into view at the bottom
    assert d.dev.act(Scroll(direction="up")) == "scrolled up"
    assert d.dev.observe().ui_xml == xml
    assert d.dev.act(Scroll(direction="up")) == "already at the top"


def test_scroll_moves_as_far_as_the_finger_gesture_does() -> None:
    """The sim scrolls by the distance `scroll_gesture` moves a finger, so sim and phone agree."""
    d = _shoe_results()
    d.dev.act(Scroll(direction="down"))
    by_scroll = d.dev.observe().ui_xml
    e = _shoe_results()
    g = scroll_gesture("down", e.dev.size)
    assert (g.x1, g.y1, g.x2, g.y2) == (540, 1200, 540, 480)  # the finger goes up 30% of the screen
    e.dev.act(g)
    assert e.dev.observe().ui_xml == by_scroll


def test_scroll_on_an_element_scrolls_its_list_and_elsewhere_nothing() -> None:
    d = _shoe_results()
    elements = actionable_elements(d.ui)
    number = next(i for i, n in enumerate(elements) if n.scrollable)
    before = _visible_products(d)
    assert d.dev.act(Scroll(direction="down", element=number)) == "scrolled down"
    assert _visible_products(d) != before
    first = _visible_products(d)[0]
    assert d.dev.act(Scroll(direction="down", target=first)) == "scrolled down"  # a row: its list scrolls
    title = d.node("id:search_box").center  # above the list: a finger there moves nothing
    xml = d.dev.observe().ui_xml
    assert d.dev.act(Scroll(direction="down", x=title[0], y=title[1])) == "nothing to scroll here"
    assert d.dev.observe().ui_xml == xml
    with pytest.raises(ActionError, match="element 999 is not on this screen"):
        d.dev.act(Scroll(direction="down", element=999))


def test_scroll_sideways_pages_where_the_app_pages() -> None:
    d = Driver()
    d.open("calendar")
    today = d.dev.act(Scroll(direction="right"))  # what is to the right: the next day
    assert today == "showing Sunday, November 22"
    assert d.dev.act(Scroll(direction="left")) == "showing Saturday, November 21"
    d.open("settings")
    assert d.dev.act(Scroll(direction="left")) == "nothing to scroll left here"


def test_nothing_to_scroll_on_the_home_screen() -> None:
    dev = SimDevice()
    assert dev.act(Scroll(direction="down")) == "nothing to scroll here"


@pytest.mark.parametrize(("direction", "at", "stroke"), [
    ("down", None, (540, 1200, 540, 480)),
    ("up", None, (540, 1200, 540, 1920)),
    ("right", None, (540, 1200, 162, 1200)),
    ("left", None, (540, 1200, 918, 1200)),
    ("down", (540, 300), (540, 722, 540, 2)),  # near the top: the stroke moves back so it keeps its length
    ("up", (100, 2390), (100, 1677, 100, 2397)),
])
def test_the_scroll_gesture(direction: str, at: tuple[int, int] | None, stroke: tuple[int, int, int, int]) -> None:
    g = scroll_gesture(direction, (1080, 2400), at)  # type: ignore[arg-type]
    assert (g.x1, g.y1, g.x2, g.y2) == stroke and g.duration_ms == 400


def test_adb_clears_a_field_with_move_end_and_deletes() -> None:
    assert KEYCODES["delete"] == 67
    assert clear_field_commands(0) == []
    cmds = clear_field_commands(90)
    assert cmds[0] == "input keyevent 123"
    assert [c.count(" 67") for c in cmds[1:]] == [40, 40, 10]


# --- the command form -------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "expected"), [
    ('type --clear "Drip Coffee Maker"', Type(text="Drip Coffee Maker", clear=True)),
    ("type --clear patio table", Type(text="patio table", clear=True)),
    ("type --clear", Type(text="", clear=True)),
    ('type "--clear is text here"', Type(text="--clear is text here")),
    ('type " padded "', Type(text=" padded ")),
    ("key delete", KeyPress(key="delete")),
    ("delete", KeyPress(key="delete")),
    ("key back", KeyPress(key="back")),
    ("scroll down", Scroll(direction="down")),
    ("scroll up #12", Scroll(direction="up", element=12)),
    ("scroll left 100 200", Scroll(direction="left", x=100, y=200)),
    ('scroll down "Search results"', Scroll(direction="down", target="Search results")),
    ("scroll RIGHT", Scroll(direction="right")),
])
def test_new_commands_read_and_print_back(line: str, expected: object) -> None:
    action = parse_command(line)
    assert action == expected
    assert parse_command(to_command(action)) == action


def test_commands_print_as_people_type_them() -> None:
    assert to_command(Type(text="Drip Coffee Maker", clear=True)) == "type --clear Drip Coffee Maker"
    assert to_command(Scroll(direction="up", element=12)) == "scroll up #12"
    assert to_command(Scroll(direction="down")) == "scroll down"
    assert to_command(KeyPress(key="delete")) == "delete"
    assert to_command(Type(text="hello")) == "type hello"


@pytest.mark.parametrize(("line", "fragment"), [
    ("scroll sideways", "scroll takes up, down, left or right"),
    ("scroll", "scroll takes up, down, left or right"),
    ("scroll down 1 2 3", "scroll takes X Y, #N or \"text\""),
    ("key power", "key takes one of back, home, enter, delete, menu, recent"),
    ("type", "type needs text"),
    ('type ""', "text is empty"),
    ("wait -1", "wait: "),
])
def test_bad_new_commands_say_what_is_accepted(line: str, fragment: str) -> None:
    with pytest.raises(ActionError) as info:
        parse_command(line)
    assert fragment in str(info.value) and "\n" not in str(info.value)


_texts = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=30)


@settings(max_examples=300, deadline=None)
@given(st.one_of(
    st.builds(Type, text=_texts, clear=st.booleans()),
    st.builds(OpenApp, app=_texts),
    st.builds(Answer, text=_texts),
    st.builds(AskUser, question=_texts),
    st.builds(Scroll, direction=st.sampled_from(["up", "down", "left", "right"]),
              element=st.none() | st.integers(0, 500)),
    st.builds(Tap, target=_texts.filter(lambda s: s.strip() != "" and "\n" not in s)),
))
def test_every_action_prints_as_a_command_that_reads_back(action: object) -> None:
    line = to_command(action)  # type: ignore[arg-type]
    assert parse_command(line) == action


def test_swipe_is_still_the_raw_gesture() -> None:
    assert parse_command("swipe 540 1800 540 600") == Swipe(x1=540, y1=1800, x2=540, y2=600)
    assert to_command(Tap(x=5, y=6)) == "tap 5 6"
