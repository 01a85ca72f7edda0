"""Anomalies: the interruptions AndroidLens saw agents fail on, drawn by the simulated phone.

Four kinds, each drawn as Android's own window would be and dumped with the ids Android gives it
(so an agent that learnt them on a real phone finds them here, and `guilens.agents.recovery` reads
the same ids on both):
- `ad`: an in-app interstitial with a small, pale close button in its top-right corner (the button
  AndroidLens's agents mislocate); back does not close it;
- `permission`: a runtime permission dialog of `com.android.permissioncontroller` (Allow / Deny);
- `battery`: SystemUI's low-battery warning ("Battery low: 15% remaining", Battery saver / Close);
- `crash`: the system's "<App> keeps stopping" notice (`android:id/aerr_close`, `aerr_app_info`).
  The app's process is gone when it shows: its back stack and unsaved input are lost, the notice
  sits over the launcher, and "Close app" leaves the phone there (opening the app again starts it
  afresh, as Android does); "App info" opens Settings.

Each anomaly is one record in the phone's `anomalies` list (the device state shows it): its
`kind`, `app`, where it came from (`source`: `setup`, `rate`, `injected`), the step it was shown
at (`shown_step`) and how and when it was resolved (`resolved`: `closed`, `deny`, `allow`,
`dismissed`, `battery_saver`, `closed_app`, `app_info`; `resolved_step`).

They arrive three ways: a scenario's `setup.anomalies` (due on opening an app, at a step, on a
screen), `AnomalySchedule` (a run's `--anomalies RATE`: a seeded draw after every action), and
`inject` (the run screen's key, applied between steps). `AnomalyControls` is what `SimDevice`
offers for them (a mixin); their windows are drawn in `guilens.device.sim.anomaly_windows`.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from guilens.device.sim.core import Ctx, Phone, Route

SYSTEMUI = "com.android.systemui"
PERMISSIONS = "com.android.permissioncontroller"
ANDROID = "android"
KINDS = ("ad", "permission", "battery", "crash")
"""Every kind the sim draws, in the order the run screen's chooser offers them."""
DIALOGS = {"_ad": "ad", "_perm": "permission", "_battery": "battery", "_crash": "crash"}
"""The route dialog name of each kind's window -> the kind."""
_DIALOG_OF = {kind: name for name, kind in DIALOGS.items()}
DRAW_WEIGHTS = {"ad": 4, "permission": 3, "battery": 2, "crash": 1}
"""How often a run's draw picks each kind: ads and permission prompts are what AndroidLens's annotators
met most; an app crashing is the rarest (and the costliest to recover from)."""
IN_APP = ("ad", "permission", "crash")
"""Kinds that need an app in front (on the launcher only the battery warning can show)."""
_DEFAULT_PERMISSION = {
    "maps": "location", "search": "location", "messages": "contacts", "contacts": "contacts",
    "shop": "notifications", "calendar": "calendar", "notes": "files and media", "clock": "notifications",
    "expense": "files and media", "calculator": "notifications", "settings": "notifications",
}


def record(kind: str, app: str, *, at: str | int = "open", source: str = "setup", text: str | None = None,
           screen: str | None = None) -> dict[str, Any]:
    """A new, not yet shown anomaly as the phone's `anomalies` list holds it."""
    return {"kind": kind, "app": app, "at": at, "screen": screen, "text": text, "source": source,
            "shown": False, "shown_step": None, "resolved": None, "resolved_step": None}


def showing(p: Phone) -> tuple[int, dict[str, Any]] | None:
    """The anomaly on screen now (its index in `p.anomalies` and its record), or None."""
    route = _front_route(p)
    spec = route.dialog if route is not None else None
    if spec is None or spec.get("name") not in DIALOGS:
        return None
    i = int(spec.get("index", 0))
    return (i, p.anomalies[i]) if 0 <= i < len(p.anomalies) else None


def shown(p: Phone) -> list[dict[str, Any]]:
    """Every anomaly shown so far, small: `{index, kind, app, source, resolved}` (None while it shows)."""
    return [{"index": i, "kind": a["kind"], "app": a["app"], "source": a["source"], "resolved": a["resolved"]}
            for i, a in enumerate(p.anomalies) if a["shown"]]


def _front_route(p: Phone) -> Route | None:
    stack = p.stacks.get(p.foreground)
    return stack[-1] if stack else None


# --- when they show ---------------------------------------------------------------------------

def trigger(ctx: Ctx) -> None:
    """Show the first anomaly that is due for the app in front, unless something already covers it."""
    p = ctx.phone
    if ctx.route.dialog is not None or p.alert is not None:
        return
    screen = f"{p.foreground}/{ctx.route.screen}"
    for i, a in enumerate(p.anomalies):
        if a["shown"] or a["app"] != p.foreground:
            continue
        due = a["at"] == "open" or (isinstance(a["at"], int) and p.step >= a["at"])
        if due and a.get("screen") in (None, screen):
            show(ctx, i)
            return


def show(ctx: Ctx, index: int) -> None:
    """Put anomaly `index` on screen now. A crash kills the app first: its stack goes, the launcher shows."""
    p = ctx.phone
    a = p.anomalies[index]
    a["shown"], a["shown_step"] = True, p.step
    route = ctx.route
    if a["kind"] == "crash" and p.foreground != "launcher":
        from guilens.device.sim.registry import ALL

        p.stacks.pop(p.foreground, None)
        p.foreground = "launcher"
        route = p.stacks.setdefault("launcher", [Route(ALL["launcher"].root)])[-1]
    route.dialog = {"name": _DIALOG_OF[a["kind"]], "index": index}


def inject(ctx: Ctx, kind: str, source: str = "injected") -> str:
    """Show an anomaly of `kind` over the screen now; what happened, in words (a refusal says why)."""
    p = ctx.phone
    if kind not in KINDS:
        return f"no anomaly called {kind!r}: one of {', '.join(KINDS)}"
    if ctx.route.dialog is not None or p.alert is not None:
        return f"no {kind} shown: a dialog already covers the screen"
    if kind in IN_APP and p.foreground == "launcher":
        return f"no {kind} shown: it needs an app in front, and the launcher is"
    p.anomalies.append(record(kind, p.foreground, at=p.step, source=source))
    show(ctx, len(p.anomalies) - 1)
    return f"showed a {kind} anomaly over {ctx.app.label}"


@dataclass(frozen=True)
class AnomalySchedule:
    """A run's `--anomalies RATE`: after every action, with probability `rate`, one anomaly of a drawn
    kind (weighted by `DRAW_WEIGHTS`).

    Each step's draw is its own seeded generator (`seed` and the phone's step count), so a draw
    does not depend on what came before it: the same run, seed and actions give the same anomalies,
    after a restore too. On the launcher only the battery warning can be drawn.
    """

    rate: float
    seed: str

    def draw(self, step: int, in_app: bool) -> str | None:
        """The kind to show after the action that made `step`, or None."""
        if self.rate <= 0:
            return None
        digest = hashlib.sha256(f"{self.seed}:{step}".encode()).digest()
        rng = random.Random(int.from_bytes(digest[:8], "big"))
        if rng.random() >= self.rate:
            return None
        kinds = KINDS if in_app else ("battery",)
        return rng.choices(kinds, weights=[DRAW_WEIGHTS[k] for k in kinds])[0]


# --- how they are resolved --------------------------------------------------------------------

def resolve(p: Phone, index: int, how: str, route: Route) -> None:
    a = p.anomalies[index]
    a["resolved"], a["resolved_step"] = how, p.step + 1  # the phone counts the resolving action once it is done
    route.dialog = None


def back(ctx: Ctx) -> str | None:
    """What the back key does to the anomaly on screen (None: there is none)."""
    spec = ctx.route.dialog or {}
    name = spec.get("name")
    if name not in DIALOGS:
        return None
    i = int(spec.get("index", 0))
    if name == "_ad":
        return "the ad does not close with back"
    if name == "_perm":
        return resolve_permission(ctx, "deny")
    if name == "_battery":
        resolve(ctx.phone, i, "dismissed", ctx.route)
        return "dismissed the low-battery warning"
    resolve(ctx.phone, i, "closed_app", ctx.route)
    return f"closed the notice that {app_label(ctx.phone.anomalies[i])} stopped"


def resolve_permission(ctx: Ctx, answer: str) -> str:
    spec = ctx.route.dialog or {}
    i = int(spec.get("index", 0))
    a = ctx.phone.anomalies[i]
    resolve(ctx.phone, i, "allow" if answer == "allow" else "deny", ctx.route)
    return f"{'allowed' if answer == 'allow' else 'denied'} {ctx.app.label} access to {permission_of(a)}"


def permission_of(a: dict[str, Any]) -> str:
    return str(a.get("text") or _DEFAULT_PERMISSION.get(a["app"], "notifications"))


def app_label(a: dict[str, Any]) -> str:
    from guilens.device.sim.registry import ALL

    app = ALL.get(a["app"])
    return app.label if app is not None else str(a["app"])


BATTERY_LEVEL = 80
"""The sim's battery, in percent, until a low-battery warning says otherwise."""


def battery_level(p: Phone) -> int:
    """The battery level the status bar shows: `BATTERY_LEVEL`, or what the last low-battery warning said."""
    level = BATTERY_LEVEL
    for a in p.anomalies:
        if a["kind"] == "battery" and a["shown"]:
            digits = "".join(ch for ch in str(a.get("text") or "15") if ch.isdigit())
            level = int(digits or 15)
    return level


class AnomalyControls:
    """What `SimDevice` does about anomalies: arm a run's draw, show one on demand, show what fell
    due after an action, and say in the observation what is on screen. A mixin, as `Editing` is,
    so the device module stays about observing and dispatching."""

    _phone: Phone
    _schedule: AnomalySchedule | None = None

    if TYPE_CHECKING:
        def _ctx(self) -> Ctx: ...
        def _changed(self) -> None: ...

    def schedule_anomalies(self, rate: float, seed: str) -> None:
        """Arm a run's `--anomalies RATE` (0 disarms): after every action, with probability `rate`, one
        anomaly of a kind drawn from `seed` and the step (`AnomalySchedule`). It lives on the device,
        not in the phone's state: a reset or a new setup keeps it."""
        if not 0 <= rate <= 1:
            raise ValueError(f"an anomaly rate is between 0 and 1, not {rate}")
        self._schedule = AnomalySchedule(rate, seed) if rate > 0 else None

    def inject_anomaly(self, kind: str) -> str:
        """Show an anomaly of `kind` (`ad`, `permission`, `battery`, `crash`) now; what happened, in words."""
        said = inject(self._ctx(), kind)
        self._changed()
        return said

    def _anomalies(self) -> None:
        """After an action: a scenario's anomaly that fell due, else the run's draw (`--anomalies`)."""
        trigger(self._ctx())
        if self._schedule is None:
            return
        ctx = self._ctx()  # a crash that just showed moved the phone to the launcher
        if ctx.route.dialog is None and self._phone.alert is None:
            kind = self._schedule.draw(self._phone.step, self._phone.foreground != "launcher")
            if kind is not None:
                inject(ctx, kind, source="rate")

    def _anomaly_extra(self) -> dict[str, Any]:
        """For the observation's `extra`: the anomaly on screen (`anomaly`: `{index, kind, app, source}`)
        and every one shown so far with how it was resolved (`anomalies`): the step loop records them
        on the steps they appeared and were resolved (`guilens.run.anomaly_log`)."""
        out: dict[str, Any] = {}
        on = showing(self._phone)
        if on is not None:
            i, a = on
            out["anomaly"] = {"index": i, "kind": a["kind"], "app": a["app"], "source": a["source"]}
        log = shown(self._phone)
        if log:
            out["anomalies"] = log
        return out

