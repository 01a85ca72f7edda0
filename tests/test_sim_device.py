"""The simulated phone as a device: API, determinism, UI tree, snapshots, setup validation, keys, anomalies."""

from __future__ import annotations

import io
from datetime import datetime, timedelta

import pytest

from guilens.actions import Answer, KeyPress, LongPress, OpenApp, Swipe, Tap, Type, Wait
from guilens.device.base import Device
from guilens.device.sim import APPS, SimDevice, SimSetup, validate_setup
from guilens.device.sim.kit import View, hit
from guilens.device.uitree import actionable_elements, parse_ui_xml, to_ui_xml
from tests.sim_helpers import Driver


def png(dev: SimDevice) -> bytes:
    buf = io.BytesIO()
    dev.observe().screenshot.save(buf, format="PNG")
    return buf.getvalue()


def test_api_shape() -> None:
    dev = SimDevice()
    assert isinstance(dev, Device)
    assert dev.name == "sim" and dev.size == (1080, 2400)
    assert len(APPS) == 11
    assert APPS["notes"].package == "com.guilens.notes" and APPS["notes"].label == "Notes"
    assert dev.list_apps() == [a.package for a in APPS.values()]
    obs = dev.observe()
    assert obs.screenshot.size == (1080, 2400) and obs.screenshot.mode == "RGB"
    assert obs.app == "com.guilens.launcher" and obs.clock == datetime(2026, 11, 21, 9, 0)
    st = dev.state()
    assert st["foreground"] == "com.guilens.launcher" and st["screen"] == "launcher/main"
    assert set(st["apps"]) == set(APPS)
    assert SimSetup.model_json_schema()["additionalProperties"] is False


def test_same_actions_give_identical_screens_and_trees() -> None:
    def run() -> list[tuple[bytes, str]]:
        d = Driver()
        out = []
        steps = [lambda: d.open("notes"), lambda: d.tap("New note"), lambda: d.type("Groceries"),
                 lambda: d.tap("id:body"), lambda: d.type("milk\neggs"), lambda: d.key("back"),
                 lambda: d.open("Shop"), lambda: d.tap("Electronics"), lambda: d.swipe_up()]
        for step in steps:
            step()
            out.append((png(d.dev), d.dev.observe().ui_xml or ""))
        return out

    a, b = run(), run()
    assert a == b
    assert len({x[0] for x in a}) == len(a)  # every step changed the picture


def test_ui_tree_round_trips_and_marks_widgets() -> None:
    d = Driver()
    d.open("notes")
    d.tap("New note")
    xml = d.dev.observe().ui_xml
    assert xml is not None
    root = parse_ui_xml(xml)
    assert to_ui_xml(root) == xml
    title = d.node("id:title")
    assert title.resource_id == "com.guilens.notes:id/title"
    assert title.cls == "android.widget.EditText" and title.editable and title.focused
    assert title.package == "com.guilens.notes"
    clock = d.node("id:clock")
    assert clock.package == "com.android.systemui" and clock.text == "09:00"


def test_every_clickable_is_named_and_tapping_it_lands_on_it() -> None:
    d = Driver()
    def check(where: str) -> None:
        root = d.ui
        view = d.dev._tree()
        for n in actionable_elements(root):
            if not n.clickable or n.short_id == "touch_outside":  # the scrim around a menu: tapped at its edge
                continue
            assert n.text or n.content_desc or n.resource_id, f"unnamed clickable {n} in {where}"
            v = hit(view, *n.center)
            assert isinstance(v, View) and v.clip == n.bounds, f"tap on {n.label()} lands elsewhere in {where}"

    check("launcher")
    for app in APPS:
        d.open(app)
        check(app)
        d.key("home")
    d.open("shop")
    d.tap("Electronics")
    check("shop results")
    d.tap("id:product_name")
    check("product page")
    d.open("notes")
    d.tap("New note")
    check("note editor")
    d.long_press("id:title")
    check("text menu")


def test_clock_advances_per_action_and_wait() -> None:
    d = Driver()
    t0 = d.dev.clock()
    d.open("notes")
    assert d.dev.clock() == t0 + timedelta(seconds=5)
    d.wait(90)
    assert d.dev.clock() == t0 + timedelta(seconds=95)
    d.dev.set_clock(datetime(2026, 12, 1, 8, 30))
    assert d.node("id:clock").text == "08:30"
    assert d.dev.act(Answer(text="42")).startswith("answer is handled")
    assert d.dev.clock() == datetime(2026, 12, 1, 8, 30)


def test_typing_needs_a_focused_field() -> None:
    d = Driver()
    before = d.state()
    assert d.type("hello") == "no text field is focused"
    after = d.state()
    assert after["apps"] == before["apps"] and after["fields"] == before["fields"]


def test_open_app_by_package_short_name_or_label() -> None:
    d = Driver()
    assert d.open("com.guilens.maps") == "opened Maps"
    assert d.open("CALCULATOR") == "opened Calculator"
    assert d.open("notes") == "opened Notes"
    assert d.state()["foreground"] == "com.guilens.notes"
    assert d.open("Photoshop").startswith("no app called 'Photoshop'")


def test_back_home_and_recents() -> None:
    d = Driver()
    d.open("notes")
    d.tap("New note")
    assert d.state()["screen"] == "notes/edit"
    d.key("home")
    assert d.state()["screen"] == "launcher/main"
    d.tap("Notes")  # the app resumes where it was
    assert d.state()["screen"] == "notes/edit"
    assert d.key("back") == "went back to Notes"
    assert d.key("back") == "closed Notes"
    assert d.key("back") == "already on the home screen"
    d.open("settings")
    d.key("recent")
    assert d.state()["screen"] == "launcher/recents"
    assert d.texts("recent_title") == ["Settings"]
    d.tap("Settings")
    assert d.state()["screen"] == "settings/main"


def test_snapshot_restore_and_reset() -> None:
    d = Driver(setup={"apps": {"notes": {"notes": [{"title": "Seed"}]}}})
    d.open("notes")
    snap = d.dev.snapshot()
    image = png(d.dev)
    d.tap("New note")
    d.type("Temp")
    d.key("back")
    assert [n["title"] for n in d.app("notes")["notes"]] == ["Temp", "Seed"]
    d.dev.restore(snap)
    assert [n["title"] for n in d.app("notes")["notes"]] == ["Seed"]
    assert png(d.dev) == image
    d.tap("New note")
    d.dev.reset()
    assert d.state()["screen"] == "launcher/main" and d.state()["step"] == 0
    assert [n["title"] for n in d.app("notes")["notes"]] == ["Seed"]
    with pytest.raises(TypeError):
        d.dev.restore({"not": "a snapshot"})


def test_the_ui_xml_escapes_what_xml_must_and_round_trips() -> None:
    d = Driver()
    d.open("notes")
    d.tap("New note")
    d.type('Fish & <chips> "now"\n\tthen')  # what XML must escape, through the writer and back
    typed = d.dev.observe().ui_xml
    assert typed is not None
    texts = [n.text for n in parse_ui_xml(typed).iter()]  # Enter moved on to the body
    assert 'Fish & <chips> "now"' in texts and "\tthen" in texts
    assert to_ui_xml(parse_ui_xml(typed)) == typed


def test_reset_builds_the_phone_as_loaded_every_time() -> None:
    setup = {"clock": "2026-11-21T09:00:00", "apps": {"notes": {"notes": [{"title": "Seed"}]}},
             "anomalies": [{"kind": "ad", "app": "shop", "at": "open", "text": "Win a phone!"}]}
    d = Driver(setup=setup)
    loaded, image = d.dev.state(), png(d.dev)
    for _ in range(2):
        d.open("shop")  # shows the ad, so the anomaly's record changes
        d.open("notes")
        d.tap("New note")
        d.type("Temp")
        d.dev.set_clock(datetime(2026, 11, 22, 8, 0))
        assert d.dev.state() != loaded
        d.dev.reset()
        assert d.dev.state() == loaded and png(d.dev) == image


def test_setup_errors_name_the_path() -> None:
    bad = {"clock": "tomorrow-ish", "apps": {"notes": {"notes": [{"title": "a"}, {"title": "b"}, {"body": "x"}]},
                                             "tetris": {}},
           "anomalies": [{"kind": "popup", "app": "shop"}], "extra": 1}
    errs = validate_setup(bad)
    assert "apps.notes.notes[2].title: field required" in errs
    assert any(e.startswith("apps.tetris:") for e in errs)
    assert any(e.startswith("anomalies[0].kind:") for e in errs)
    assert any(e.startswith("clock:") for e in errs)
    assert any(e.startswith("extra:") for e in errs)
    assert validate_setup({"apps": {"clock": {"alarms": [{"time": "25:99"}]}}}) == [
        "apps.clock.alarms[0].time: '25:99' is not a time like 07:30"]
    assert validate_setup({"apps": {"shop": {"cart": [{"product_id": "nope"}]}}})[0].startswith("apps.shop:")
    with pytest.raises(ValueError, match=r"apps\.notes\.notes\[0\]\.title"):
        SimDevice(setup={"apps": {"notes": {"notes": [{}]}}})
    assert validate_setup({}) == []


def test_ad_at_open_blocks_until_closed() -> None:
    d = Driver(setup={"anomalies": [{"kind": "ad", "app": "shop", "at": "open", "text": "Win a phone!"}]})
    d.open("shop")
    assert d.state()["dialog"] == "ad"
    close = d.node("Close ad")
    assert close.text == "×" and close.resource_id == "com.guilens.shop:id/ad_close"
    x1, y1, x2, y2 = close.bounds
    assert x2 - x1 < 100 and y2 - y1 < 100 and x1 > 800  # small, top right
    assert not d.has("Search products")  # the tree shows the ad's window only
    assert d.key("back") == "the ad does not close with back"
    assert d.type("shoes") == "no text field is focused"  # the ad has the input, not the page under it
    assert d.swipe_up() == "nothing to scroll here"
    d.dev.act(Tap(x=540, y=2300))
    assert d.state()["dialog"] == "ad"
    assert d.tap("Close ad") == "closed the ad"
    assert d.state()["dialog"] is None and d.has("Search products")
    assert d.state()["anomalies"][0]["resolved"] == "closed"
    d.key("home")
    d.open("shop")
    assert d.state()["dialog"] is None  # once only


def test_permission_at_step() -> None:
    d = Driver(setup={"anomalies": [{"kind": "permission", "app": "Maps", "at": 3, "text": "location"}]})
    d.open("maps")
    d.wait(1)
    assert d.state()["dialog"] is None
    d.wait(1)
    assert d.state()["dialog"] == "permission"
    assert d.node("Allow").package == "com.android.permissioncontroller"
    assert d.has("Allow Maps to access your location?")
    assert d.tap("Deny").startswith("denied Maps")
    assert d.state()["anomalies"][0]["resolved"] == "deny"


def test_long_press_menus_and_swipe_scrolling() -> None:
    notes = [{"title": f"Note {i:02d}", "body": f"body {i}"} for i in range(12)]
    d = Driver(setup={"apps": {"notes": {"notes": notes}}})
    d.open("notes")
    first = d.texts("note_title")
    assert first[0] == "Note 00" and "Note 11" not in first
    assert d.node("id:notes_list").scrollable
    d.swipe_up(1400)
    later = d.texts("note_title")
    assert "Note 11" in later and "Note 00" not in later
    w, h = d.dev.size
    assert d.dev.act(Swipe(x1=540, y1=1000, x2=540, y2=2200)) == "scrolled up"
    assert d.long_press("Note 01").startswith("opened the menu")
    d.tap("id:delete_note")
    d.tap("id:button1")
    assert "Note 01" not in [n["title"] for n in d.app("notes")["notes"]]
    assert d.dev.act(LongPress(x=w // 2, y=h // 2, duration_ms=900))  # long press on a row without menu: fine


def test_element_and_target_actions_resolve() -> None:
    d = Driver()
    d.dev.act(Tap(target="Calculator"))
    assert d.state()["screen"] == "calculator/main"
    idx = next(i for i, n in enumerate(actionable_elements(d.ui)) if n.short_id == "digit_7")
    d.dev.act(Tap(element=idx))
    assert d.app("calculator")["display"] == "7"


def test_smaller_screen_scales() -> None:
    d = Driver(width=720, height=1600)
    obs = d.dev.observe()
    assert obs.screenshot.size == (720, 1600)
    d.open("shop")
    for n in d.ui.iter():
        x1, y1, x2, y2 = n.bounds
        assert 0 <= x1 <= x2 <= 720 and 0 <= y1 <= y2 <= 1600
    d.tap("id:search_box")
    d.type("mouse")
    d.key("enter")
    assert "Logitech M185 Wireless Mouse" in d.texts("product_name")


def test_keys_and_type_mechanics() -> None:
    d = Driver()
    d.open("notes")
    d.tap("New note")
    d.type("Title")
    assert d.key("enter") == "moved to the note's body"
    d.type("line one")
    d.key("enter")
    d.type("line two")
    assert d.dev.act(KeyPress(key="menu")) == "no menu on this screen"
    d.tap("Save")
    assert d.app("notes")["notes"][0]["body"] == "line one\nline two"
    d.dev.act(OpenApp(app="notes"))
    d.dev.act(Type(text="x"))  # the list's search field is not focused
    assert d.state()["fields"].get("search", "") == ""
    d.dev.act(Wait(seconds=1))


def test_observed_screenshot_is_safe_to_draw_on() -> None:
    from PIL import ImageDraw

    dev = SimDevice()
    first = png(dev)
    shot = dev.observe().screenshot
    ImageDraw.Draw(shot).rectangle((0, 0, 500, 500), fill=(255, 0, 0))
    shot.paste((0, 255, 0), (600, 600, 700, 700))
    assert png(dev) == first


def test_set_clock_forward_delivers_quietly() -> None:
    d = Driver(setup={"clock": "2026-11-21T06:00:00", "apps": {
        "clock": {"alarms": [{"time": "07:00"}]},
        "messages": {"threads": [],
                     "scheduled": [{"number": "555 0100", "text": "Morning!", "at": "2026-11-21T06:30:00"}]}}})
    d.open("notes")
    d.dev.set_clock(datetime(2026, 11, 21, 8, 0))
    st = d.state()
    assert st["dialog"] is None and st["toast"] is None and st["screen"] == "notes/main"
    assert st["apps"]["clock"]["rang"][0]["time"] == "07:00" and not st["apps"]["clock"]["alarms"][0]["enabled"]
    assert st["apps"]["messages"]["threads"][0]["messages"][0]["text"] == "Morning!"
    d.dev.set_clock(datetime(2026, 11, 20, 22, 0))  # backwards: just set
    assert d.node("id:clock").text == "22:00"
