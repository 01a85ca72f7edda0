"""The sim's default people, message histories, places, routes and search facts, and the Search
app's all-words matching."""

from __future__ import annotations

from datetime import datetime

from sim_helpers import Driver

from guilens.device.sim.apps.contacts import ContactsState, digits
from guilens.device.sim.apps.maps import MapsState, find_place, find_route
from guilens.device.sim.apps.messages import MessagesState
from guilens.device.sim.apps.search import SearchAppState, find_facts
from guilens.device.sim.setup import DEFAULT_CLOCK

FIRST_FOUR = [("Alice Chen", "+1 415 555 0101"), ("Bob Martin", "+1 415 555 0102"), ("Carla Diaz", "+1 415 555 0103"),
              ("Mom", "+1 415 555 0199")]


def test_dozens_of_contacts_after_the_first_four() -> None:
    contacts = ContactsState().contacts
    assert len(contacts) >= 30
    assert [(c.name, c.phone) for c in contacts[:4]] == FIRST_FOUR
    assert len({digits(c.phone) for c in contacts}) == len(contacts)
    assert len({c.id for c in contacts}) == len(contacts)
    st = ContactsState()
    for name, _ in FIRST_FOUR:  # a typed name still finds its contact, and only it
        assert st.by_name(name) is not None and st.by_name(name).name == name  # type: ignore[union-attr]
        assert [c.name for c in contacts if name.casefold() in c.name.casefold()] == [name]


def test_the_first_contacts_stay_on_the_first_screen() -> None:
    d = Driver()
    d.open("contacts")
    names = d.texts("contact_name")
    assert names[:3] == ["Alice Chen", "Bob Martin", "Carla Diaz"] and len(names) >= 5


def test_threads_have_dated_histories_before_the_default_day() -> None:
    threads = MessagesState().threads
    assert len(threads) >= 15
    contacts = ContactsState()
    for th in threads:
        assert th.messages and not th.unread
        times = [m.time for m in th.messages]
        assert all(t is not None and t < DEFAULT_CLOCK for t in times)
        assert times == sorted(times)  # type: ignore[type-var]
        assert contacts.by_number(th.number) is not None
    assert any(m.outgoing for th in threads for m in th.messages)


def test_conversation_list_and_a_history_on_screen() -> None:
    d = Driver()
    d.open("messages")
    names = d.texts("thread_name")
    assert names[0] == "David Kim"  # the most recent conversation first
    assert d.texts("thread_time")[0] == "Nov 20"  # older than today: its date
    d.tap("David Kim")
    texts = d.texts("message_text")
    assert "Lost my charger at your place I think, the white one" in texts
    d.tap("Text message")
    d.type("Found it, I'll bring it over")
    d.key("enter")
    d.key("back")
    assert d.texts("thread_name")[0] == "David Kim" and d.texts("thread_time")[0] == "09:00"


def test_more_places_and_routes_keep_the_first_ones_first() -> None:
    st = MapsState()
    assert len(st.places) >= 20 and len(st.routes) >= 30
    assert [p.name for p in st.places[:4]] == ["Apple Park", "Cupertino Apartments", "San Jose Airport",
                                               "Stanford University"]
    route, reverse = find_route(st, "Cupertino Apartments", "Apple Park")  # type: ignore[misc]
    assert (route.drive, route.transit, route.walk, reverse) == (6, 18, 32, False)
    for p in st.places:
        assert find_place(st, p.name) is p
    route, reverse = find_route(st, "Googleplex", "Cupertino Apartments")  # type: ignore[misc]
    assert route.drive == 16 and reverse
    route, _ = find_route(st, "1 Ferry Building, San Francisco", "Chase Center")  # type: ignore[misc]
    assert route.via == "The Embarcadero"


def test_search_app_needs_every_word() -> None:
    facts = SearchAppState().facts
    assert len(facts) >= 30
    assert [f.title for f in find_facts(facts, "Louvre opening hours")][:1] == ["Louvre Museum - Opening hours"]
    assert find_facts(facts, "Louvre opening hoursNVDA stock") == []
    assert find_facts(facts, "Louvre opening hours tomorrow") == []
    assert [f.fact for f in find_facts(facts, "what is the height of the Eiffel Tower")] == ["330 m"]
    assert [f.fact for f in find_facts(facts, "USD to EUR")][:1] == ["0.9241 Euro"]  # the phrase said in full wins
    assert [f.fact for f in find_facts(facts, "EUR to USD")][:1] == ["1.0821 US Dollar"]
    assert find_facts(facts, "") == []


def test_search_app_no_results_for_junk_appended() -> None:
    d = Driver()
    d.open("search")
    d.tap("id:query")
    d.type("Apple Park address")
    d.key("enter")
    assert d.texts("result_fact")[0] == "One Apple Park Way, Cupertino, CA 95014"
    d.tap("id:query")
    d.type("Tokyo population")
    assert d.key("enter") == "searched the web for 'Apple Park addressTokyo population': 0 results"
    assert d.has("No results for “Apple Park addressTokyo population”")


def test_default_data_is_identical_on_every_build() -> None:
    assert MessagesState().model_dump() == MessagesState().model_dump()
    assert ContactsState().model_dump() == ContactsState().model_dump()
    assert MapsState().model_dump() == MapsState().model_dump()
    first = MessagesState().threads[0].messages[0]
    assert first.time == datetime(2026, 11, 14, 18, 2)


def test_message_from_contacts_opens_at_the_latest_text() -> None:
    history = [{"text": f"note {i}", "time": f"2026-11-{i + 1:02d}T10:00:00"} for i in range(20)]
    d = Driver(setup={"apps": {"messages": {"threads": [{"number": "+1 415 555 0101", "messages": history}]}}})
    d.open("contacts")
    d.tap("Alice Chen")
    d.tap("Message")
    shown = d.texts("message_text")
    assert "note 19" in shown and "note 0" not in shown
