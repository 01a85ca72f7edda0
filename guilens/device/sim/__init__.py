"""The simulated phone: guilens' embedded default device.

    from guilens.device.sim import SimDevice, APPS, validate_setup, SimSetup
    dev = SimDevice(setup={"clock": "2026-11-21T09:00:00", "apps": {"notes": {"notes": [...]}}})

A Pillow-drawn, deterministic phone with a launcher and eleven apps, each with a
pydantic state model (exported here) that a scenario's `setup` is validated
against and `SimDevice.state()` dumps for rule checks.

Importing this package imports none of it: each name is imported from its module when first asked for
(PEP 562), so a part of guilens that needs one module of the sim (the scenario checks need the state
models, not the drawing or the device) does not pay for the rest: importing all of it took 60-80 ms.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from guilens.device.sim.apps.calculator import CalcEntry, CalculatorState
    from guilens.device.sim.apps.calendar import CalendarState, Event
    from guilens.device.sim.apps.clock import Alarm, ClockState
    from guilens.device.sim.apps.contacts import Contact, ContactsState
    from guilens.device.sim.apps.expense import ExpenseState, Transaction
    from guilens.device.sim.apps.maps import MapRoute, MapsState, Place
    from guilens.device.sim.apps.messages import Incoming, Message, MessagesState, Thread
    from guilens.device.sim.apps.notes import Note, NotesState
    from guilens.device.sim.apps.search import Fact, SearchAppState
    from guilens.device.sim.apps.settings import SettingsState
    from guilens.device.sim.apps.shop import CartItem, Order, Product, Review, ShopSearch, ShopState
    from guilens.device.sim.device import SimDevice
    from guilens.device.sim.registry import APPS, AppInfo, resolve_app
    from guilens.device.sim.setup import Anomaly, SimSetup, validate_setup

_WHERE = {
    "APPS": "guilens.device.sim.registry",
    "Alarm": "guilens.device.sim.apps.clock",
    "Anomaly": "guilens.device.sim.setup",
    "AppInfo": "guilens.device.sim.registry",
    "CalcEntry": "guilens.device.sim.apps.calculator",
    "CalculatorState": "guilens.device.sim.apps.calculator",
    "CalendarState": "guilens.device.sim.apps.calendar",
    "CartItem": "guilens.device.sim.apps.shop",
    "ClockState": "guilens.device.sim.apps.clock",
    "Contact": "guilens.device.sim.apps.contacts",
    "ContactsState": "guilens.device.sim.apps.contacts",
    "Event": "guilens.device.sim.apps.calendar",
    "ExpenseState": "guilens.device.sim.apps.expense",
    "Fact": "guilens.device.sim.apps.search",
    "Incoming": "guilens.device.sim.apps.messages",
    "MapRoute": "guilens.device.sim.apps.maps",
    "MapsState": "guilens.device.sim.apps.maps",
    "Message": "guilens.device.sim.apps.messages",
    "MessagesState": "guilens.device.sim.apps.messages",
    "Note": "guilens.device.sim.apps.notes",
    "NotesState": "guilens.device.sim.apps.notes",
    "Order": "guilens.device.sim.apps.shop",
    "Place": "guilens.device.sim.apps.maps",
    "Product": "guilens.device.sim.apps.shop",
    "Review": "guilens.device.sim.apps.shop",
    "SearchAppState": "guilens.device.sim.apps.search",
    "SettingsState": "guilens.device.sim.apps.settings",
    "ShopSearch": "guilens.device.sim.apps.shop",
    "ShopState": "guilens.device.sim.apps.shop",
    "SimDevice": "guilens.device.sim.device",
    "SimSetup": "guilens.device.sim.setup",
    "Thread": "guilens.device.sim.apps.messages",
    "Transaction": "guilens.device.sim.apps.expense",
    "resolve_app": "guilens.device.sim.registry",
    "validate_setup": "guilens.device.sim.setup",
}
"""Each exported name and the module that defines it."""

__all__ = [
    "APPS", "Alarm", "Anomaly", "AppInfo", "CalcEntry", "CalculatorState", "CalendarState", "CartItem", "ClockState",
    "Contact", "ContactsState", "Event", "ExpenseState", "Fact", "Incoming", "MapRoute", "MapsState", "Message",
    "MessagesState", "Note", "NotesState", "Order", "Place", "Product", "Review", "SearchAppState", "SettingsState",
    "ShopSearch", "ShopState", "SimDevice", "SimSetup", "Thread", "Transaction", "resolve_app", "validate_setup",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value  # asked once
    return value
