"""Each app end to end, driven by text and ids as a reference solution would, checked on state and screen."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from guilens.device.sim.apps.calculator import CalcError, evaluate, format_number
from tests.sim_helpers import Driver


def test_notes_create_edit_search_delete() -> None:
    d = Driver()
    d.open("notes")
    assert d.has("No notes yet. Tap New note to write one.")
    d.tap("New note")
    d.tap("id:title")
    d.type("Austin Apartment Data")
    d.tap("id:body")
    d.type("1. 500 Main St, $1,800, 750 sqft")
    assert d.tap("Save") == "saved note 'Austin Apartment Data'"
    assert d.state()["toast"] == "Note saved"
    assert d.texts("note_title") == ["Austin Apartment Data"]
    note = d.app("notes")["notes"][0]
    assert note["body"] == "1. 500 Main St, $1,800, 750 sqft" and note["updated"] == "2026-11-21T09:00:30"  # the clock when Save was tapped
    # edit: open, clear the title, retype, leave with back (autosave)
    d.tap("Austin Apartment Data")
    d.fill("title", "Austin rentals")
    assert "saved note 'Austin rentals'" in d.key("back")
    d.tap("New note")
    d.type("Second")
    d.key("back")
    assert d.texts("note_title") == ["Second", "Austin rentals"]
    d.tap("id:search")
    d.type("austin")
    assert d.texts("note_title") == ["Austin rentals"]
    d.tap("Clear Search notes")
    d.tap("Austin rentals")
    d.tap("Delete")
    assert d.state()["dialog"] == "confirm_delete"
    d.tap("id:button1")
    assert [n["title"] for n in d.app("notes")["notes"]] == ["Second"]
    assert d.state()["screen"] == "notes/main"


def test_calculator_keys_typing_history() -> None:
    d = Driver()
    d.open("calculator")
    for k in ("digit_5", "digit_0", "op_mul", "digit_1", "digit_8", "digit_1", "dec_point", "digit_4", "digit_2"):
        d.tap(f"id:{k}")
    assert d.node("id:formula").text == "50×181.42"
    assert d.node("id:result").text == "9071"  # live preview
    d.tap("=")
    assert d.app("calculator")["result"] == "9071"
    d.tap("C")
    d.type("75*229.87+9071")
    d.key("enter")
    calc = d.app("calculator")
    assert calc["result"] == "26311.25" and calc["display"] == "26311.25"
    assert [h["result"] for h in calc["history"]] == ["9071", "26311.25"]
    d.type("/0=")
    assert d.app("calculator")["result"] == "Can't divide by 0"
    d.tap("History")
    assert d.texts("history_result") == ["26311.25", "9071"]
    d.tap("9071")
    assert d.app("calculator")["display"] == "9071"


@pytest.mark.parametrize(("expr", "want"), [
    ("0.1+0.2", "0.3"), ("2+3×4", "14"), ("(2+3)×4", "20"), ("10÷4", "2.5"), ("1÷3", "0.3333333333"),
    ("−5+2", "-3"), ("50%", "0.5"), ("2(3+1", "8"), ("1e3", None), ("3+", None), ("1÷0", None),
])
def test_calculator_arithmetic(expr: str, want: str | None) -> None:
    if want is None:
        with pytest.raises(CalcError):
            evaluate(expr)
    else:
        assert format_number(evaluate(expr)) == want
    assert format_number(Decimal("12345678901234567")) == "1.234568E16"


def test_shop_search_filter_sort_product_cart_checkout() -> None:
    d = Driver()
    d.open("Shop")
    d.tap("id:search_box")
    d.type("running shoes for men")
    d.key("enter")
    assert d.state()["screen"] == "shop/results"
    names = d.texts("product_name")
    assert names[0] == "ASICS Gel-Nimbus 25 Men's Running Shoes" and all("Women" not in n for n in names)
    d.tap("id:filters")
    d.tap("ASICS")
    d.tap("id:size_10")
    d.tap("id:apply")
    assert d.node("id:filters").text == "Filters (2)"
    d.tap("Sort")
    d.tap("Price: high to low")
    search = d.app("shop")["search"]
    assert search["brands"] == ["ASICS"] and search["sizes"] == ["10"] and search["sort"] == "price_desc"
    assert d.texts("product_price") == ["$164.95", "$159.95"]
    d.tap("$164.95")
    assert d.node("id:product_title").text == "ASICS Gel-Kayano 30 Men's Running Shoes"
    assert d.node("id:product_rating").text == "4.6 · 1,932 reviews"
    assert d.tap("Add to cart") == "not added: choose a size first"
    d.tap("id:option_size_10")
    d.tap("Add to cart")
    d.scroll_to("Specifications")
    assert "Drop" in d.texts("spec_name")
    d.scroll_to("id:review_text")
    d.tap("id:cart")
    d.tap("Increase quantity")
    assert d.node("id:cart_total").text == "$329.90"
    d.tap("Checkout")
    d.tap("Place order")
    orders = d.app("shop")["orders"]
    assert orders[0]["total"] == 329.9 and orders[0]["items"][0]["size"] == "10"
    assert d.app("shop")["cart"] == [] and d.node("id:order_total").text == "Total $329.90"


def test_shop_price_filter_and_setup_catalogue() -> None:
    products = [{"id": "a", "name": "Blue Widget", "brand": "Acme", "price": 10},
                {"id": "b", "name": "Red Widget", "brand": "Acme", "price": 30, "colors": ["Red"]},
                {"id": "c", "name": "Widget Pro", "brand": "Zed", "price": 50, "rating": 4.9}]
    d = Driver(setup={"apps": {"shop": {"products": products}}})
    d.open("shop")
    d.tap("id:search_box")
    d.type("widget")
    d.key("enter")
    assert d.texts("product_name") == ["Blue Widget", "Red Widget", "Widget Pro"]
    d.tap("Filters")
    d.tap("id:price_min")
    d.type("20")
    d.tap("id:price_max")
    d.type("60")
    d.key("enter")
    assert d.texts("product_name") == ["Red Widget", "Widget Pro"]
    assert d.app("shop")["search"]["price_min"] == 20.0


def test_search_facts_from_setup() -> None:
    facts = [{"keywords": ["usd eur", "dollar euro"], "title": "USD to EUR", "fact": "0.9300 EUR",
              "snippet": "Rate at 09:00"},
             {"keywords": ["cupertino apartment"], "title": "10100 Torre Ave", "fact": "$3,250 / month"}]
    d = Driver(setup={"apps": {"search": {"facts": facts}}})
    d.open("search")
    d.tap("id:query")
    d.type("USD to EUR rate")
    d.key("enter")
    assert d.texts("result_fact") == ["0.9300 EUR"]
    assert d.app("search")["query"] == "USD to EUR rate"
    d.fill("query", "weather in Paris")
    d.key("enter")
    assert d.has("No results for “weather in Paris”")
    d.tap("Search")  # the toolbar title is not a button; nothing happens
    d.fill("query", "dollar euro")
    d.key("enter")
    d.tap("id:result_title")
    assert d.node("id:page_fact").text == "0.9300 EUR"
    d.long_press("id:page_fact")
    assert d.state()["clipboard"] == "0.9300 EUR"
    assert d.app("search")["history"][:2] == ["dollar euro", "weather in Paris"]


def test_messages_compose_send_incoming_offline() -> None:
    setup = {"clock": "2026-11-21T09:00:00",
             "apps": {"messages": {"threads": [],  # no history: the conversations are this test's own
                                   "scheduled": [{"number": "+1 415 555 0102", "text": "Running late",
                                                   "at": "2026-11-21T09:00:35"}]}}}
    d = Driver(setup=setup)
    d.open("messages")
    d.tap("Start chat")
    d.type("+8613800000000")
    d.key("enter")
    d.type("Price: $181.42")
    assert d.tap("Send") == "sent 'Price: $181.42' to +8613800000000"
    assert d.state()["screen"] == "messages/thread"
    th = d.app("messages")["threads"]
    assert th[0]["number"] == "+8613800000000" and th[0]["messages"][0]["outgoing"]
    d.wait(5)
    assert d.state()["toast"] == "New message from Bob Martin"
    d.key("back")
    assert d.texts("thread_name") == ["Bob Martin", "+8613800000000"]
    d.tap("Bob Martin")
    assert "Running late" in d.texts("message_text")
    assert not d.app("messages")["threads"][1]["unread"]
    assert d.type("ok") == "no text field is focused"  # tap the reply box first, as on a phone
    d.tap("Text message")
    d.type("ok")
    d.key("enter")
    assert d.app("messages")["threads"][1]["messages"][-1]["text"] == "ok"
    # to a contact by name, through the suggestions
    d.key("back")
    d.tap("Start chat")
    d.type("car")
    assert d.texts("suggestion_name") == ["Carla Diaz"]
    d.tap("Carla Diaz")
    d.type("hi")
    d.key("enter")
    assert d.app("messages")["threads"][-1]["number"] == "+1 415 555 0103"
    d.open("settings")
    d.tap("Airplane mode")
    d.open("messages")
    d.type("are you there?")
    assert d.key("enter") == "not sent: the phone is offline"


def test_contacts_add_edit_message() -> None:
    d = Driver()
    d.open("contacts")
    d.tap("Add contact")
    d.type("Zoe Park")
    d.tap("id:phone")
    d.type("+44 20 7946 0000")
    d.tap("Save")
    assert d.state()["screen"] == "contacts/details"
    assert d.node("id:contact_phone").text == "+44 20 7946 0000"
    d.tap("Edit")
    d.fill("email", "zoe@example.org")
    d.tap("Save")
    z = [c for c in d.app("contacts")["contacts"] if c["name"] == "Zoe Park"][0]
    assert z["email"] == "zoe@example.org"
    d.tap("Message")
    assert d.state()["screen"] == "messages/thread" and d.state()["foreground"] == "com.guilens.messages"
    d.key("back")
    d.open("contacts")
    d.key("back")
    d.key("back")
    d.open("contacts")
    d.fill("search", "zoe")
    assert d.texts("contact_name") == ["Zoe Mitchell", "Zoe Park"]


def test_calendar_day_agenda_create_edit() -> None:
    setup = {"clock": "2026-11-21T08:00:00", "apps": {"calendar": {"events": [
        {"title": "Team sync", "start": "2026-11-21T10:00:00", "location": "Room 4", "attendees": ["Alice"]},
        {"title": "Flight", "start": "2026-11-22T09:30:00", "end": "2026-11-22T12:30:00"}]}}}
    d = Driver(setup=setup)
    d.open("calendar")
    assert d.node("id:day_title").text == "Saturday, November 21 · Today"
    assert d.texts("event_title") == ["Team sync"]
    d.tap("Next day")
    assert d.texts("event_title") == ["Flight"]
    d.tap("Today")
    d.tap("New event")
    d.type("Morning Meeting")
    d.fill("date", "2026-11-22")
    d.fill("start", "2pm")
    d.fill("end", "15:00")
    d.fill("location", "HQ")
    d.fill("attendees", "Alice, Bob")
    assert d.tap("Save") == "created event 'Morning Meeting' on Nov 22 at 14:00"
    ev = d.app("calendar")["events"][-1]
    assert ev["start"] == "2026-11-22T14:00:00" and ev["attendees"] == ["Alice", "Bob"]
    assert d.node("id:day_title").text.startswith("Sunday, November 22")
    d.tap("Agenda")
    assert d.texts("event_title") == ["Team sync", "Flight", "Morning Meeting"]
    d.tap("Team sync")
    d.tap("Edit")
    d.fill("start", "11:30")
    d.fill("end", "12:30")
    d.tap("Save")
    assert d.app("calendar")["events"][0]["start"] == "2026-11-21T11:30:00"
    d.tap("Delete")
    d.tap("id:button1")
    assert [e["title"] for e in d.app("calendar")["events"]] == ["Flight", "Morning Meeting"]


def test_clock_alarms_add_toggle_ring() -> None:
    setup = {"clock": "2026-11-23T06:58:00",  # a Monday
             "apps": {"clock": {"alarms": [{"time": "07:00", "days": ["Mon", "Tue"], "label": "Work"}]}}}
    d = Driver(setup=setup)
    d.open("clock")
    d.tap("Add alarm")
    d.type("6:30")
    d.tap("id:day_sat")
    d.tap("id:label")
    d.type("Gym")
    d.tap("Save")
    alarms = d.app("clock")["alarms"]
    assert alarms[1] == {"id": 2, "time": "06:30", "days": ["Sat"], "label": "Gym", "enabled": True}
    assert d.texts("alarm_time") == ["06:30", "07:00"]
    d.tap("06:30 alarm")  # the switch
    assert not d.app("clock")["alarms"][1]["enabled"]
    d.wait(120)
    assert d.state()["dialog"] == "alarm" and d.node("id:alarm_label").text == "Work"
    assert d.tap("Snooze").startswith("snoozed the alarm until 07:10")
    d.wait(600)
    assert d.state()["dialog"] == "alarm"
    d.key("back")
    assert [r["time"] for r in d.app("clock")["rang"]] == ["07:00", "07:10"]
    d.tap("07:00")
    d.tap("id:day_tue")
    d.tap("Save")
    assert d.app("clock")["alarms"][0]["days"] == ["Mon"]
    d.long_press("07:00")
    d.tap("id:delete_alarm")
    assert [a["time"] for a in d.app("clock")["alarms"]] == ["06:30"]


def test_expense_add_totals_edit() -> None:
    setup = {"clock": "2026-11-21T09:00:00", "apps": {"expense": {"transactions": [
        {"name": "Groceries", "amount": 54.2, "category": "Food", "date": "2026-11-20"},
        {"name": "Salary", "amount": 3000, "kind": "income", "date": "2026-11-01"},
        {"name": "Old", "amount": 99, "date": "2026-10-30"}]}}}
    d = Driver(setup=setup)
    d.open("expense")
    assert d.node("id:month_total").text == "$54.20"
    d.tap("Add transaction")
    d.type("EU Tech Import")
    d.tap("id:amount")
    d.type("512.30")
    d.tap("Shopping")
    d.tap("id:note")
    d.type("Items: 498.00, Shipping: EUR25")
    d.tap("Save")
    t = d.app("expense")["transactions"][-1]
    assert t == {"id": 4, "name": "EU Tech Import", "amount": 512.3, "category": "Shopping",
                 "note": "Items: 498.00, Shipping: EUR25", "date": "2026-11-21", "kind": "expense"}
    assert d.node("id:month_total").text == "$566.50"
    assert d.node("id:month_balance").text == "$2,433.50"
    d.tap("Groceries")
    d.fill("amount", "60")
    d.tap("Save")
    assert d.node("id:month_total").text == "$572.30"


def test_maps_route_modes() -> None:
    setup = {"apps": {"maps": {
        "places": [{"name": "Home", "address": "12 Elm St"}, {"name": "Office", "address": "1 Market St"}],
        "routes": [{"origin": "Home", "destination": "Office", "drive": 24, "transit": 41, "walk": 95,
                    "distance_km": 8.2}]}}}
    d = Driver(setup=setup)
    d.open("maps")
    d.tap("id:search")
    d.type("1 Market")
    d.key("enter")
    assert d.node("id:place_name").text == "Office"
    d.tap("Directions")
    d.type("12 Elm St")
    d.key("enter")
    assert d.node("id:duration").text == "24 min"
    assert d.node("id:mode_transit").text == "Transit 41 min"
    d.tap("id:mode_walk")
    assert d.node("id:duration").text == "1 h 35 min"
    m = d.app("maps")
    assert (m["origin"], m["destination"], m["mode"]) == ("12 Elm St", "Office", "walk")
    d.tap("Swap start and destination")  # routes work both ways
    assert d.node("id:duration").text == "1 h 35 min"
    d.fill("destination", "Mars")
    d.key("enter")
    assert d.has("No route found between these places.")


def test_settings_toggles_brightness_language_dark() -> None:
    d = Driver()
    d.open("settings")
    before = d.dev.observe().screenshot.getpixel((540, 1500))
    d.tap("Bluetooth")
    d.tap("Dark theme")
    s = d.app("settings")
    assert s["bluetooth"] and s["dark_mode"]
    assert d.dev.observe().screenshot.getpixel((540, 1500)) != before
    assert d.node("id:dark_mode_switch").checked
    bar = d.node("id:brightness")
    x1, y1, x2, y2 = bar.bounds
    from guilens.actions import Swipe, Tap

    d.dev.act(Tap(x=x2 - (y2 - y1) // 2, y=(y1 + y2) // 2))
    assert d.app("settings")["brightness"] == 100
    d.dev.act(Swipe(x1=x2 - 60, y1=(y1 + y2) // 2, x2=x1 + (y2 - y1) // 2, y2=(y1 + y2) // 2))
    assert d.app("settings")["brightness"] == 0
    d.tap("Airplane mode")
    s = d.app("settings")
    assert s["airplane"] and not s["wifi"] and not s["bluetooth"]
    assert d.has("Airplane mode on")  # the status bar says so
    d.scroll_to("Language")
    d.tap("Language")
    d.tap("Deutsch")
    assert d.app("settings")["language"] == "Deutsch"
    assert datetime.fromisoformat(d.state()["clock"]) > datetime(2026, 11, 21, 9, 0)
