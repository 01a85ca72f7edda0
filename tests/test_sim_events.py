"""Scheduled events: delivered by the sim exactly when its clock passes them, through the apps' state."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from guilens.actions import KeyPress, OpenApp, Tap, Wait
from guilens.device.sim.device import SimDevice

MOM = "+1 415 555 0199"
MESSAGE = {"at": "2026-11-23T10:15", "kind": "message", "from": "Mom", "text": "Call me after lunch?"}
INVITE = {"at": "2026-11-23T11:00", "kind": "invitation", "from": "Alice Chen", "title": "Design review",
          "start": "2026-11-23T15:00", "end": "2026-11-23T16:00", "location": "Room 4"}
PRICE = {"at": "2026-11-23T12:00", "kind": "price", "product": "w1", "price": 89.0}
SHOP = {"products": [{"id": "w1", "name": "Trail Running Jacket", "brand": "Summit", "price": 120.0},
                     {"id": "w2", "name": "Premium Yoga Mat", "brand": "Lotus", "price": 45.0}]}


CONTACTS = {"contacts": [{"name": "Mom", "phone": MOM}, {"name": "Alice Chen", "phone": "+1 415 555 0101"}]}


def sim(*events: dict[str, Any], clock: str = "2026-11-23T10:14:50") -> SimDevice:
    """A phone with only the data these tests name (the default data grows with the sim)."""
    apps = {"shop": SHOP, "contacts": CONTACTS, "messages": {"threads": []}, "calendar": {"events": []}}
    return SimDevice(setup={"clock": clock, "apps": apps, "events": list(events)})


def thread(d: SimDevice, number: str = MOM) -> dict[str, Any] | None:
    return next((t for t in d.state()["apps"]["messages"]["threads"] if t["number"] == number), None)


def delivered(d: SimDevice) -> list[str | None]:
    return [e["delivered"] for e in d.state()["events"]]


def tap(d: SimDevice, target: str) -> str:
    return d.act(Tap(target=target))


def test_a_message_arrives_when_the_clock_passes_it_not_before_and_once() -> None:
    d = sim(MESSAGE)
    d.act(Wait(seconds=5))  # 10:14:55: not yet
    assert thread(d) is None and delivered(d) == [None] and d.state()["toast"] is None
    d.act(Wait(seconds=5))  # 10:15:00: now
    th = thread(d)
    assert th is not None and th["unread"] is True
    assert [(m["text"], m["outgoing"], m["time"]) for m in th["messages"]] == [
        ("Call me after lunch?", False, "2026-11-23T10:15:00")]
    assert d.state()["toast"] == "New message from Mom"  # the heads-up
    assert delivered(d) == ["2026-11-23T10:15:00"]
    for _ in range(3):
        d.act(Wait(seconds=60))
    assert len(thread(d)["messages"]) == 1  # type: ignore[index]


def test_the_message_shows_in_messages_unread_and_reading_it_marks_it_read() -> None:
    d = sim(MESSAGE)
    d.act(Wait(seconds=20))
    d.act(OpenApp(app="messages"))
    xml = d.observe().ui_xml
    assert "Call me after lunch?" in xml and "Mom" in xml
    tap(d, "Mom")
    assert thread(d)["unread"] is False  # type: ignore[index]


def test_a_jump_of_the_clock_delivers_in_time_order_without_a_leftover_toast() -> None:
    d = sim(PRICE, MESSAGE, INVITE)
    d.set_clock(datetime(2026, 11, 23, 13, 0))
    assert delivered(d) == ["2026-11-23T13:00:00"] * 3
    assert [e["kind"] for e in d.state()["events"]] == ["message", "invitation", "price"]
    assert d.state()["toast"] is None  # the next task's first screen is not covered
    # back in time (a catalogue out of order) and forward again: nothing arrives twice
    d.set_clock(datetime(2026, 11, 23, 9, 0))
    d.set_clock(datetime(2026, 11, 23, 14, 0))
    assert len(thread(d)["messages"]) == 1  # type: ignore[index]
    assert len(d.state()["apps"]["calendar"]["events"]) == 1


def test_an_event_due_before_the_day_starts_is_there_at_once() -> None:
    d = sim(MESSAGE, clock="2026-11-23T11:00")
    assert thread(d) is not None and delivered(d) == ["2026-11-23T11:00:00"]


def test_an_invitation_is_a_pending_calendar_event_accepted_or_declined_in_the_ui() -> None:
    d = sim(INVITE, clock="2026-11-23T10:59:58")
    assert d.state()["apps"]["calendar"]["events"] == []
    d.act(Wait(seconds=5))
    (event,) = d.state()["apps"]["calendar"]["events"]
    assert event["title"] == "Design review" and event["response"] == "pending"
    assert event["organizer"] == "Alice Chen" and event["attendees"] == ["Alice Chen"]
    assert d.state()["toast"] == "Invitation from Alice Chen: Design review"
    d.act(OpenApp(app="calendar"))
    tap(d, "Agenda")
    assert "Invitation from Alice Chen · 15:00 - 16:00 · Room 4" in d.observe().ui_xml
    tap(d, "Design review")
    assert "Invitation: not answered yet" in d.observe().ui_xml
    assert tap(d, "id:accept") == "accepted the invitation 'Design review'"
    assert d.state()["apps"]["calendar"]["events"][0]["response"] == "accepted"
    assert "Invitation: accepted" in d.observe().ui_xml
    tap(d, "id:decline")  # a change of mind
    assert d.state()["apps"]["calendar"]["events"][0]["response"] == "declined"
    d.act(KeyPress(key="back"))
    assert "Invitation from" not in d.observe().ui_xml  # answered: an ordinary row again


def test_the_users_own_events_have_no_invitation_buttons() -> None:
    d = SimDevice(setup={"clock": "2026-11-23T09:00", "apps": {"calendar": {"events": [
        {"title": "Gym", "start": "2026-11-23T18:00"}]}}})
    d.act(OpenApp(app="calendar"))
    tap(d, "Gym")
    assert 'resource-id="com.guilens.calendar:id/accept"' not in d.observe().ui_xml


def test_a_price_changes_from_its_time_on() -> None:
    d = sim(PRICE, clock="2026-11-23T11:59:57")
    price = {p["id"]: p["price"] for p in d.state()["apps"]["shop"]["products"]}
    assert price["w1"] == 120.0
    d.act(Wait(seconds=5))
    price = {p["id"]: p["price"] for p in d.state()["apps"]["shop"]["products"]}
    assert price == {"w1": 89.0, "w2": 45.0}
    assert d.state()["toast"] is None  # a shop does not announce a price change


def test_a_price_change_by_name_in_the_default_catalogue() -> None:
    d = SimDevice(setup={"clock": "2026-11-23T08:00", "events": [
        {"at": "2026-11-23T08:30", "kind": "price", "product": "Drip Coffee Maker 12-Cup", "price": 39.99}]})
    d.set_clock(datetime(2026, 11, 23, 9, 0))
    d.act(OpenApp(app="shop"))
    tap(d, "id:search_box")
    from guilens.actions import Type

    d.act(Type(text="Drip Coffee Maker"))
    d.act(KeyPress(key="enter"))
    assert "$39.99" in d.observe().ui_xml


def test_snapshots_keep_what_was_delivered_and_runs_are_deterministic() -> None:
    a, b = sim(MESSAGE, INVITE), sim(MESSAGE, INVITE)
    snap = a.snapshot()
    for d in (a, b):
        d.act(Wait(seconds=30))
        d.set_clock(datetime(2026, 11, 23, 12, 0))
    assert a.state() == b.state()
    a.restore(snap)
    assert delivered(a) == [None, None] and thread(a) is None
    a.act(Wait(seconds=30))
    assert delivered(a) == ["2026-11-23T10:15:20", None]


@pytest.mark.parametrize(("event", "says"), [
    ({**MESSAGE, "kind": "fax"}, "events[0]: input tag 'fax'"),
    ({**MESSAGE, "at": "soon"}, "events[0].message.at: input should be a valid datetime"),
    ({**MESSAGE, "from": "Mum"}, "event 1 (message at 2026-11-23T10:15): from 'Mum' is no contact"),
    ({**PRICE, "product": "p999"}, "event 1 (price at 2026-11-23T12:00): no product 'p999' in the shop"),
    ({**INVITE, "end": "2026-11-23T14:00"}, "the invitation 'Design review' ends (2026-11-23T14:00) before it starts"),
])
def test_a_bad_event_is_one_clear_line(event: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError) as err:
        sim(event)
    text = str(err.value)
    assert says in text and "\n" not in text and "Traceback" not in text


def test_a_message_from_a_number_needs_no_contact() -> None:
    d = sim({**MESSAGE, "from": "+1 415 555 0142"})
    d.act(Wait(seconds=20))
    assert thread(d, "+1 415 555 0142") is not None
    assert d.state()["toast"] == "New message from +1 415 555 0142"


def test_a_scenario_file_with_a_bad_event_names_file_task_and_value(tmp_path: Path) -> None:
    from guilens.scenarios.errors import ScenarioError
    from guilens.scenarios.loader import load_scenario

    f = tmp_path / "bad.yaml"
    f.write_text("""\
id: bad
kind: sequence
start: 2026-11-23
setup:
  events:
    - {at: "2026-11-23T10:15", kind: message, from: Nobody, text: hi}
tasks:
  - id: one
    clock: "09:00"
    apps: [notes]
    instruction: {L0: "Open Notes."}
    difficulty: 1
    golden_steps: 1
    reference: [{open: notes}]
""", encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        load_scenario(f)
    (problem,) = err.value.problems
    assert str(f) in problem and "events" in problem and "'Nobody' is no contact" in problem
