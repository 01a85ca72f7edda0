"""Which apps the simulated phone has, in launcher order."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from guilens.device.sim.apps import (
    calculator,
    calendar,
    clock,
    contacts,
    expense,
    launcher,
    maps,
    messages,
    notes,
    search,
    settings,
    shop,
)
from guilens.device.sim.core import App


@dataclass(frozen=True)
class AppInfo:
    short: str
    package: str
    label: str


_ORDER: list[App] = [
    shop.Shop(), search.Search(), calculator.Calculator(), notes.Notes(), messages.Messages(),
    contacts.Contacts(), calendar.Calendar(), clock.Clock(), expense.Expense(), maps.Maps(),
    settings.Settings(),
]

LAUNCHER = launcher.Launcher()
ALL: dict[str, App] = {a.short: a for a in [*_ORDER, LAUNCHER]}
APPS: dict[str, AppInfo] = {a.short: AppInfo(a.short, a.package, a.label) for a in _ORDER}
STATE_MODELS: dict[str, type[BaseModel]] = {a.short: a.State for a in _ORDER}


def resolve_app(name: str) -> str | None:
    """The short name for a package, short name or launcher label (any case)."""
    key = name.strip().lower()
    for a in ALL.values():
        if key in (a.short, a.package.lower(), a.label.lower()):
            return a.short
    return None
