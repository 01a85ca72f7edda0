"""System chrome around an app's screen: status bar, gesture bar, toasts, alarms, system dialogs.

The anomalies (ad, permission dialog, low battery, crash notice) are drawn by
`guilens.device.sim.anomalies`; the frame puts their window over the screen.
"""

from __future__ import annotations

from functools import partial

import guilens.device.sim.anomalies as anomalies
import guilens.device.sim.icons as icons
import guilens.device.sim.ui as ui
from guilens.device.sim.anomaly_windows import window
from guilens.device.sim.core import Ctx, Phone
from guilens.device.sim.kit import Button, Canvas, Color, Label, View

SYSTEMUI = anomalies.SYSTEMUI


def frame(ctx: Ctx) -> View:
    """The whole screen for the foreground app: content, status bar, dialog, alarm, toast."""
    p = ctx.phone
    t = ctx.theme
    root = View((0, 0, ctx.w, ctx.h), fill=t.bg, cls="android.widget.FrameLayout")
    content = View((0, 0, ctx.w, ctx.h), cls="android.widget.FrameLayout", rid="content")
    content.add(*ctx.app.build(ctx))
    root.add(content)
    root.add(status_bar(ctx))
    root.add(View((0, ctx.bottom, ctx.w, ctx.h), pkg=SYSTEMUI, paint=_gesture_bar, cls="android.view.View",
                  rid="navigation_bar"))
    spec = ctx.route.dialog
    if spec is not None:
        d = _system_dialog(ctx, spec) if spec["name"].startswith("_") else ctx.app.dialog(ctx, spec)
        if d is not None:
            content.in_tree = False  # a dump shows the dialog's window, not the activity under it
            root.add(d)
    if p.alert is not None:
        content.in_tree = False
        root.add(_alarm(ctx))
    if p.toast:
        root.add(ui.toast(ctx, p.toast))
    return root


def status_bar(ctx: Ctx) -> View:
    p = ctx.phone
    launcher = ctx.app.short == "launcher"
    fill = None if launcher else ctx.theme.surface
    fg = (255, 255, 255) if launcher else ctx.theme.text
    s = p.apps.get("settings")
    u = ctx.u
    bar = View((0, 0, ctx.w, ctx.top), fill=fill, pkg=SYSTEMUI, cls="android.widget.FrameLayout", rid="status_bar",
               see_through=launcher)
    bar.add(Label((u(48), 0, u(300), ctx.top), p.clock.strftime("%H:%M"), u(38), fg, rid="clock", bold=True))
    x = ctx.w - u(48)
    # battery
    bat = (x - u(40), u(24), x, u(62))
    bar.add(View(bat, desc=f"Battery {anomalies.battery_level(p)} percent", cls="android.widget.ImageView",
                 paint=lambda c, v: icons.battery(c, v.bounds, fg)))
    x -= u(72)
    flags = []
    if s is not None and getattr(s, "airplane", False):
        flags.append((icons.plane, "Airplane mode on"))
    if s is not None and getattr(s, "bluetooth", False):
        flags.append((icons.bluetooth, "Bluetooth on"))
    if s is not None and getattr(s, "wifi", False):
        flags.append((icons.wifi, "Wi-Fi connected"))
    for icon, desc in flags:
        r = (x - u(52), u(16), x, u(68))
        bar.add(View(r, desc=desc, cls="android.widget.ImageView", paint=partial(_paint_icon, icon=icon, col=fg)))
        x -= u(68)
    return bar


def _paint_icon(c: Canvas, v: View, icon: icons.Icon, col: Color) -> None:
    icon(c, v.bounds, col)


def _gesture_bar(c: Canvas, v: View) -> None:
    x1, y1, x2, y2 = v.bounds
    cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
    w = (x2 - x1) // 8
    c.rect((cx - w, cy - 5, cx + w, cy + 5), (150, 150, 155), radius=5, bg=None)


# --- system dialogs -------------------------------------------------------------------------------

def _system_dialog(ctx: Ctx, spec: dict) -> View | None:
    if spec["name"] == "_field":
        return _field_menu(ctx, spec)
    return window(ctx, spec)


def _field_menu(ctx: Ctx, spec: dict) -> View:
    route = ctx.route
    key = spec["key"]
    items = []
    clip = ctx.phone.clipboard

    def paste() -> str:
        route.fields[key] = route.fields.get(key, "") + clip
        route.dialog = None
        route.focus = key
        return f"pasted {clip!r} into {spec['hint']}"

    def copy_() -> str:
        ctx.phone.clipboard = route.fields.get(key, "")
        route.dialog = None
        return f"copied {ctx.phone.clipboard!r}"

    def clear() -> str:
        route.fields[key] = ""
        route.dialog = None
        return f"cleared {spec['hint']}"

    if clip:
        items.append(("Paste", "paste", paste))
    if route.fields.get(key):
        items.append(("Copy", "copy", copy_))
        items.append(("Clear", "clear", clear))
    if not items:
        items.append(("Close", "close_menu", ctx.closing(lambda: "closed the menu")))
    return ui.menu(ctx, spec["hint"], items)


# --- alarm ----------------------------------------------------------------------------------------

def stop_alert(p: Phone) -> str:
    alert = p.alert or {}
    p.alert = None
    return f"stopped the {alert.get('time', '')} alarm".replace("  ", " ")


def _alarm(ctx: Ctx) -> View:
    p = ctx.phone
    a = p.alert or {}
    u = ctx.u
    acc = (94, 53, 177)
    v = View((0, 0, ctx.w, ctx.h), fill=(24, 20, 40), blocks=True, pkg="com.guilens.clock",
             cls="android.widget.FrameLayout", rid="alarm_ringing")
    v.add(Label((0, ctx.h // 5, ctx.w, ctx.h // 5 + u(80)), "Alarm", u(50), (200, 190, 240), align="center"))
    v.add(Label((0, ctx.h // 5 + u(100), ctx.w, ctx.h // 5 + u(330)), a.get("time", ""), u(200), (255, 255, 255),
                align="center", rid="alarm_time"))
    v.add(Label((0, ctx.h // 5 + u(360), ctx.w, ctx.h // 5 + u(440)), a.get("label") or "Alarm", u(50),
                (220, 220, 230), align="center", rid="alarm_label"))

    def snooze() -> str:
        from datetime import timedelta

        clock = p.apps["clock"]
        when = (p.clock + timedelta(minutes=10)).strftime("%H:%M")
        clock.snoozed.append(when)  # type: ignore[attr-defined]
        p.alert = None
        return f"snoozed the alarm until {when}"

    cy = ctx.h * 2 // 3
    v.add(Button((u(120), cy, ctx.w // 2 - u(40), cy + u(160)), "Snooze", snooze, rid="snooze",
                 fill=(60, 54, 90), color=(255, 255, 255), radius=u(80), size=u(48)))
    v.add(Button((ctx.w // 2 + u(40), cy, ctx.w - u(120), cy + u(160)), "Stop", lambda: stop_alert(p), rid="stop",
                 fill=acc, color=(255, 255, 255), radius=u(80), size=u(48)))
    return v
