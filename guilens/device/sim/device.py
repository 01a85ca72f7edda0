"""`SimDevice`: the simulated phone behind the `Device` protocol.

Each action mutates the `Phone` state and moves the virtual clock a fixed
5 s (a wait by its seconds); nothing reads the real clock or a random source,
so the same actions always give byte-identical screens and trees. The view
tree is rebuilt lazily after a change and the picture is re-rendered only when
the tree (or the theme) differs from the last one drawn. Text editing (`type`
with `clear`, the `delete` key) and `scroll` are in `editing`.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any

from PIL import Image

import guilens.device.sim.anomalies as anomalies
import guilens.device.sim.chrome as chrome
import guilens.device.sim.events as events
from guilens.actions import (
    Action,
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
)
from guilens.device.base import Observation, readonly_view
from guilens.device.sim.core import Ctx, Phone, Route
from guilens.device.sim.editing import Editing
from guilens.device.sim.kit import Field, SeekBar, View, hit, render, scroll_at
from guilens.device.sim.registry import ALL, APPS, resolve_app
from guilens.device.sim.setup import SimSetup, parse_setup
from guilens.device.uitree import UINode, actionable_elements, clickable_ancestor, find_nodes, to_ui_xml

STEP_SECONDS = 5
_DIALOG_NAMES = {"_field": "text_menu", **anomalies.DIALOGS}


class SimDevice(Editing, anomalies.AnomalyControls):
    """A deterministic phone drawn with Pillow: a launcher, eleven apps, a virtual clock."""

    name = "sim"

    def __init__(self, width: int = 1080, height: int = 2400, setup: dict[str, Any] | None = None) -> None:
        if width < 320 or height < 480:
            raise ValueError(f"a sim screen is at least 320x480, not {width}x{height}")
        self._size = (width, height)
        self._phone: Phone
        self._setup: SimSetup
        self._view: View | None = None
        self._xml: str | None = None
        self._ui: UINode | None = None
        """The tree `_xml` was written from: observations are handed it (`Observation.known_ui`)."""
        self._img: Image.Image | None = None
        self._img_key: tuple[str, bool] | None = None
        self.load_setup(setup or {})

    # --- protocol: identity and state -----------------------------------------------------------
    @property
    def size(self) -> tuple[int, int]:
        return self._size

    def list_apps(self) -> list[str]:
        return [info.package for info in APPS.values()]

    def clock(self) -> datetime:
        return self._phone.clock

    def set_clock(self, when: datetime) -> None:
        """Jump the virtual clock; forwards delivers what fell due, backwards (a catalogue out of order) just sets it."""
        old = self._phone.clock
        self._phone.clock = when.replace(tzinfo=None, microsecond=0)
        if self._phone.clock > old:
            # Time passed while nobody watched: messages arrive and alarms are logged in `rang`, but
            # nothing is left ringing or toasting over the next task's first screen.
            self._tick(old, self._phone.clock)
            self._phone.alert = None
            self._phone.toast = None
        self._changed()

    def load_setup(self, setup: dict[str, Any]) -> None:
        self._setup = parse_setup(setup)
        self._phone = self._build(self._setup)
        self._changed()

    def _build(self, cfg: SimSetup) -> Phone:
        """A phone as `cfg` sets it up. `reset` builds it again rather than keeping a deep copy of the
        first one: that copy cost about 5 ms of every task loaded (the memory pack's 26, on a sim that
        is never reset), and building from the validated setup gives the same phone."""
        apps = {}
        for short, app in ALL.items():
            given = getattr(cfg.apps, short, None) if short in APPS else None
            apps[short] = given.model_copy(deep=True) if given is not None else app.default_state()
        phone = Phone(clock=cfg.clock.replace(tzinfo=None, microsecond=0), apps=apps)
        phone.anomalies = [anomalies.record(a.kind, a.app, at=a.at, text=a.text, screen=a.screen)
                           for a in cfg.anomalies]
        phone.events = events.schedule(cfg.events)
        events.deliver(phone, phone.clock)  # what fell due before the day began is there already
        return phone

    def snapshot(self) -> Phone:
        return copy.deepcopy(self._phone)

    def restore(self, snap: Any) -> None:
        if not isinstance(snap, Phone):
            raise TypeError(f"not a sim snapshot: {type(snap).__name__}")
        self._phone = copy.deepcopy(snap)
        self._changed()

    def reset(self, steps: list[str] | None = None) -> None:
        self._phone = self._build(self._setup)
        self._changed()

    def close(self) -> None:
        self._view = None
        self._img = None

    def state(self) -> dict[str, Any]:
        p = self._phone
        app = ALL[p.foreground]
        route = self._ctx().route
        return {
            "foreground": app.package,
            "clock": p.clock.isoformat(),
            "screen": f"{app.short}/{route.screen}",
            "route": copy.deepcopy(route.params),
            "fields": dict(route.fields),
            "focus": route.focus,
            "dialog": self._dialog_name(),
            "toast": p.toast,
            "step": p.step,
            "clipboard": p.clipboard,
            "apps": {s: m.model_dump(mode="json") for s, m in p.apps.items() if s in APPS},
            "anomalies": copy.deepcopy(p.anomalies),
            "events": copy.deepcopy(p.events),
        }

    def _dialog_name(self) -> str | None:
        """What covers the screen: `alarm`, `ad`, `permission`, `text_menu`, or an app's dialog name."""
        if self._phone.alert is not None:
            return "alarm"
        spec = self._ctx().route.dialog
        if spec is None:
            return None
        name = str(spec.get("name", ""))
        return _DIALOG_NAMES.get(name, name)

    # --- observing --------------------------------------------------------------------------------
    def observe(self) -> Observation:
        view = self._tree()
        if self._xml is None:
            root = UINode()
            node = view.node(ALL[self._phone.foreground].package)
            node.parent = root
            root.children = [node]
            self._xml = to_ui_xml(root)
            self._ui = root
        key = (self._xml, self._dark())
        if self._img is None or self._img_key != key:
            self._img = render(view, self._size)
            self._img_key = key
        assert self._ui is not None  # written with `_xml`
        return Observation(
            screenshot=readonly_view(self._img), ui_xml=self._xml, app=ALL[self._phone.foreground].package,
            clock=self._phone.clock, size=self._size,
            extra=self._extra(),
        ).known_ui(self._ui)

    def _extra(self) -> dict[str, Any]:
        """The observation's `extra`: the screen's name, and the anomalies (`AnomalyControls`)."""
        return {"screen": self.state_screen(), **self._anomaly_extra()}

    def state_screen(self) -> str:
        return f"{self._phone.foreground}/{self._ctx().route.screen}"

    # --- acting -----------------------------------------------------------------------------------
    def act(self, action: Action) -> str:
        p = self._phone
        if isinstance(action, AskUser | Answer | Finish):
            return f"{action.type} is handled by the runner, not the phone"
        p.toast = None
        seconds = STEP_SECONDS
        if isinstance(action, Tap | LongPress | Scroll) and action.names_element:
            action = self._resolve(action)
        if isinstance(action, Tap):
            desc = self._tap(action.x or 0, action.y or 0)
        elif isinstance(action, LongPress):
            desc = self._long_press(action.x or 0, action.y or 0)
        elif isinstance(action, Swipe):
            desc = self._swipe(action)
        elif isinstance(action, Scroll):
            desc = self._scroll(action)
        elif isinstance(action, Type):
            desc = self._type(action.text, clear=action.clear)
        elif isinstance(action, KeyPress):
            desc = self._key(action.key)
        elif isinstance(action, OpenApp):
            desc = self._open_app(action.app)
        elif isinstance(action, Wait):
            seconds = max(1, round(action.seconds))
            desc = f"waited {seconds} s"
        else:  # pragma: no cover - the union is closed
            raise ActionError(f"the sim cannot perform {action!r}")
        old = p.clock
        p.clock = old + timedelta(seconds=seconds)
        p.step += 1
        self._tick(old, p.clock)
        self._anomalies()
        self._changed()
        return desc

    def _resolve(self, action: Tap | LongPress | Scroll) -> Tap | LongPress | Scroll:
        """Point an element/target action at its node's centre (the runner usually does this first)."""
        obs = self.observe()
        root = obs.ui
        assert root is not None
        node: UINode | None = None
        if action.target is not None:
            hits = find_nodes(root, action.target)
            node = clickable_ancestor(hits[0]) if hits else None
            if node is None:
                raise ActionError(f"no element matches {action.target!r} on this screen")
        elif action.element is not None:
            els = actionable_elements(root)
            if action.element >= len(els):
                raise ActionError(f"element {action.element} is not on this screen ({len(els)} elements)")
            node = els[action.element]
        assert node is not None
        x, y = node.center
        return action.model_copy(update={"x": x, "y": y})

    def _tap(self, x: int, y: int) -> str:
        v = hit(self._tree(), x, y)
        if v is None:
            return "nothing there"
        return v.tap(x, y)

    def _long_press(self, x: int, y: int) -> str:
        v = hit(self._tree(), x, y, "long")
        if v is None:
            return "nothing there"
        if v.on_long is not None:
            return v.on_long()
        if isinstance(v, Field):
            v.tap(x, y)
            ctx = self._ctx()
            ctx.dialog("_field", key=v.key, hint=v.hint)
            return f"opened the text menu of {v.hint}"
        # Android performs the click when nothing consumes the long press.
        return v.tap(x, y)

    def _swipe(self, a: Swipe) -> str:
        dx, dy = a.x2 - a.x1, a.y2 - a.y1
        root = self._tree()
        if abs(dx) < 24 and abs(dy) < 24:
            return self._tap(a.x1, a.y1)
        v = hit(root, a.x1, a.y1)
        if isinstance(v, SeekBar) and abs(dx) >= abs(dy):
            return v.tap(a.x2, a.y2)
        if self._covered():
            return "nothing to scroll here"
        if abs(dy) >= abs(dx):
            s = scroll_at(root, a.x1, a.y1)
            if s is None or not s.scrollable:
                return "nothing to scroll here"
            return s.scroll_by(-dy)
        ctx = self._ctx()
        fn = getattr(ctx.app, "swipe", None)
        if fn is not None:
            out = fn(ctx, "left" if dx < 0 else "right")
            if out:
                return str(out)
        return f"swiped {'left' if dx < 0 else 'right'}; nothing moved"

    def _covered(self) -> bool:
        """A dialog, menu, ad or the alarm is over the screen and takes the input."""
        return self._phone.alert is not None or self._ctx().route.dialog is not None

    def _focused(self) -> Field | None:
        if self._covered():
            return None
        for v in self._tree().walk():
            if isinstance(v, Field) and v.focused:
                return v
        return None

    def _key(self, key: str) -> str:
        p = self._phone
        ctx = self._ctx()
        if key == "home":
            if p.foreground == "launcher" and len(ctx.stack) == 1:
                return "already on the home screen"
            p.foreground = "launcher"
            self._ctx().stack[1:] = []
            return "went to the home screen"
        if key == "back":
            return self._back(ctx)
        if key == "delete":
            return self._delete()
        if key == "enter":
            f = self._focused()
            if f is None:
                return "pressed enter; no text field is focused"
            if f.on_submit is not None:
                return f.on_submit()
            if f.multiline:
                return f.on_type("\n").replace("'\\n'", "a new line")
            return f"pressed enter in {f.hint}"
        if key == "recent":
            p.foreground = "launcher"
            st = self._ctx().stack
            st[1:] = [Route("recents")]
            return "showing recent apps"
        fn = getattr(ctx.app, "menu", None)
        out = fn(ctx) if fn is not None else None
        return out or "no menu on this screen"

    def _back(self, ctx: Ctx) -> str:
        p = self._phone
        if p.alert is not None:
            return chrome.stop_alert(p)
        route = ctx.route
        if route.dialog is not None:
            said = anomalies.back(ctx)
            if said is not None:
                return said
            route.dialog = None
            return "closed the dialog"
        if p.foreground == "launcher":
            if len(ctx.stack) > 1:
                ctx.stack[1:] = []
                return "went back to the home screen"
            return "already on the home screen"
        note = ctx.app.leave(ctx)
        suffix = f" ({note})" if note else ""
        if len(ctx.stack) > 1:
            ctx.pop()
            return f"went back to {ctx.app.label}" + suffix
        del p.stacks[ctx.app.short]
        p.foreground = "launcher"
        return f"closed {ctx.app.label}" + suffix

    def _open_app(self, name: str) -> str:
        short = resolve_app(name)
        if short is None:
            return f"no app called {name!r} (apps: {', '.join(a.label for a in APPS.values())})"
        if short == "launcher":
            return self._key("home")
        self._ctx().open_app(short)
        return f"opened {ALL[short].label}"

    # --- internals --------------------------------------------------------------------------------
    def _dark(self) -> bool:
        return bool(getattr(self._phone.apps.get("settings"), "dark_mode", False))

    def _ctx(self) -> Ctx:
        p = self._phone
        return Ctx(p, ALL[p.foreground], self._size, self._dark())

    def _tree(self) -> View:
        if self._view is None:
            self._view = chrome.frame(self._ctx())
        return self._view

    def _changed(self) -> None:
        self._view = None
        self._xml = None

    def _tick(self, old: datetime, new: datetime) -> None:
        for app in ALL.values():
            note = app.tick(self._phone, old, new)
            if note:
                self._phone.toast = note
        note = events.deliver(self._phone, new)
        if note:
            self._phone.toast = note
