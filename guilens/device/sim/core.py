"""The phone's mutable state, and the context an app's screens read and change it through.

Everything a snapshot must capture lives in one `Phone` object made of plain data
(routes, drafts, scroll offsets, dialogs as dicts, app states as pydantic models),
so a deep copy is a complete snapshot. Screens are pure functions of that state:
each build makes a fresh view tree whose handlers close over a `Ctx`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from guilens.device.sim.kit import Color, View, mix


@dataclass
class Route:
    """One entry of an app's back stack: a screen, its parameters and its unsaved UI state."""

    screen: str
    params: dict[str, Any] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=dict)
    focus: str | None = None
    scroll: dict[str, int] = field(default_factory=dict)
    dialog: dict[str, Any] | None = None


@dataclass
class Phone:
    clock: datetime
    apps: dict[str, BaseModel]
    stacks: dict[str, list[Route]] = field(default_factory=dict)
    foreground: str = "launcher"
    toast: str | None = None
    alert: dict[str, Any] | None = None
    anomalies: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    """Scheduled events and when each was delivered (`guilens.device.sim.events`)."""
    step: int = 0
    clipboard: str = ""
    recents: list[str] = field(default_factory=list)
    opened: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Theme:
    dark: bool
    accent: Color
    bg: Color
    surface: Color
    card: Color
    text: Color
    sub: Color
    divider: Color
    field: Color
    on_accent: Color
    tint: Color  # a pale wash of the accent, for chips and selected rows


def make_theme(dark: bool, accent: Color) -> Theme:
    if dark:
        return Theme(True, mix(accent, (255, 255, 255), 0.25), (18, 18, 22), (30, 30, 36), (38, 38, 46),
                     (236, 236, 240), (160, 160, 172), (60, 60, 70), (44, 44, 52), (20, 20, 24),
                     mix(accent, (18, 18, 22), 0.7))
    return Theme(False, accent, (247, 246, 250), (255, 255, 255), (255, 255, 255), (28, 27, 31),
                 (110, 108, 118), (226, 224, 232), (243, 241, 247), (255, 255, 255),
                 mix(accent, (255, 255, 255), 0.85))


class Ctx:
    """What a screen builder and its handlers use: the app's state, its back stack, the clock."""

    def __init__(self, phone: Phone, app: App, size: tuple[int, int], dark: bool) -> None:
        self.phone = phone
        self.app = app
        self.w, self.h = size
        self.s = self.w / 1080
        self.theme = make_theme(dark, app.accent)
        self.top = self.u(84)  # status bar height
        self.bar = self.u(168)  # app bar height
        self.bottom = self.h - self.u(54)  # gesture bar

    # --- geometry ----------------------------------------------------------------------------
    def u(self, n: float) -> int:
        return round(n * self.s)

    @property
    def pkg(self) -> str:
        return self.app.package

    # --- state -------------------------------------------------------------------------------
    @property
    def state(self) -> Any:
        return self.phone.apps[self.app.short]

    def app_state(self, short: str) -> Any:
        return self.phone.apps[short]

    @property
    def now(self) -> datetime:
        return self.phone.clock

    @property
    def stack(self) -> list[Route]:
        return self.phone.stacks.setdefault(self.app.short, [Route(self.app.root)])

    @property
    def route(self) -> Route:
        return self.stack[-1]

    def push(self, screen: str, params: dict[str, Any] | None = None, fields: dict[str, str] | None = None,
             focus: str | None = None, scroll: dict[str, int] | None = None) -> Route:
        r = Route(screen, dict(params or {}), dict(fields or {}), focus, dict(scroll or {}))
        self.stack.append(r)
        return r

    def pop(self) -> None:
        if len(self.stack) > 1:
            self.stack.pop()

    def replace(self, screen: str, params: dict[str, Any] | None = None,
                fields: dict[str, str] | None = None) -> Route:
        self.stack.pop()
        return self.push(screen, params, fields)

    def field(self, key: str) -> str:
        return self.route.fields.get(key, "")

    def set_field(self, key: str, value: str) -> None:
        self.route.fields[key] = value

    def scroll(self, key: str) -> int:
        return self.route.scroll.get(key, 0)

    def toast(self, text: str) -> None:
        self.phone.toast = text

    def dialog(self, name: str, **params: Any) -> None:
        self.route.dialog = {"name": name, **params}

    def close_dialog(self) -> None:
        self.route.dialog = None

    def opener(self, name: str, said: str, **params: Any) -> Callable[[], str]:
        """A handler that opens this app's dialog `name` and reports `said`."""

        def go() -> str:
            self.dialog(name, **params)
            return said

        return go

    def pusher(self, screen: str, said: str, params: dict[str, Any] | None = None) -> Callable[[], str]:
        """A handler that pushes `screen` and reports `said`."""

        def go() -> str:
            self.push(screen, params)
            return said

        return go

    def closing(self, then: Callable[[], str]) -> Callable[[], str]:
        """A handler that closes the open dialog, then runs `then`."""

        def go() -> str:
            self.close_dialog()
            return then()

        return go

    def open_app(self, short: str, screen: str | None = None, params: dict[str, Any] | None = None,
                 fields: dict[str, str] | None = None, focus: str | None = None) -> None:
        """Hand over to another app (an intent): it comes to the front, on `screen` if given."""
        from guilens.device.sim.registry import ALL

        self.phone.foreground = short
        if short in self.phone.recents:
            self.phone.recents.remove(short)
        self.phone.recents.insert(0, short)
        stack = self.phone.stacks.setdefault(short, [Route(ALL[short].root)])
        if screen is not None:
            stack.append(Route(screen, dict(params or {}), dict(fields or {}), focus))


class App:
    """An app of the simulated phone. Subclasses define `screen_<name>` and `dialog_<name>` builders."""

    short = ""
    label = ""
    accent: Color = (90, 90, 200)
    root = "main"
    State: type[BaseModel]

    @property
    def package(self) -> str:
        return f"com.guilens.{self.short}"

    def build(self, ctx: Ctx) -> list[View]:
        return getattr(self, f"screen_{ctx.route.screen}")(ctx)

    def dialog(self, ctx: Ctx, spec: dict[str, Any]) -> View | None:
        fn = getattr(self, f"dialog_{spec['name']}", None)
        return fn(ctx, spec) if fn else None

    def leave(self, ctx: Ctx) -> str | None:
        """Called before back pops the top route; may save drafts. Returns what it did, if anything."""
        return None

    def tick(self, phone: Phone, old: datetime, new: datetime) -> str | None:
        """The clock moved from `old` to `new`; deliver what fell due. Returns a notification, if any."""
        return None

    def draw_icon(self, c: Any, r: tuple[int, int, int, int], col: Color) -> None:
        from guilens.device.sim import icons

        getattr(icons, self.icon)(c, r, col)

    icon = "dot"

    def default_state(self) -> BaseModel:
        return self.State()
