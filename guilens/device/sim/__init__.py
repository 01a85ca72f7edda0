"""The simulated phone: guilens' embedded default device.

    from guilens.device.sim import SimDevice, APPS, validate_setup, SimSetup
    dev = SimDevice(setup={"clock": "2026-11-21T09:00:00", "apps": {"notes": {"notes": [...]}}})

A Pillow-drawn, deterministic phone with a launcher and eleven apps, each with a
pydantic state model (exported here) that a scenario's `setup` is validated
against and `SimDevice.state()` dumps for rule checks.
"""

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

__all__ = [
    "APPS", "Alarm", "Anomaly", "AppInfo", "CalcEntry", "CalculatorState", "CalendarState", "CartItem", "ClockState",
    "Contact", "ContactsState", "Event", "ExpenseState", "Fact", "Incoming", "MapRoute", "MapsState", "Message",
    "MessagesState", "Note", "NotesState", "Order", "Place", "Product", "Review", "SearchAppState", "SettingsState",
    "ShopSearch", "ShopState", "SimDevice", "SimSetup", "Thread", "Transaction", "resolve_app", "validate_setup",
]
