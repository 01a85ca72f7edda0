"""System chrome around an app's screen: status bar, gesture bar, toasts, alarms, and anomalies.

The anomalies are the interruptions AndroidLens saw agents fail on: an in-app ad
with a small, pale close button in its top-right corner, and a runtime
permission dialog (owned by the permission controller, as on Android).
"""

from __future__ import annotations

from functools import partial

from PIL import Image, ImageDraw

import guilens.device.sim.icons as icons
import guilens.device.sim.ui as ui
from guilens.device.sim.core import Ctx, Phone
from guilens.device.sim.kit import Button, Canvas, Color, Label, View, line_height, mix, wrap

SYSTEMUI = "com.android.systemui"
PERMISSIONS = "com.android.permissioncontroller"
_DEFAULT_PERMISSION = {
    "maps": "location", "search": "location", "messages": "contacts", "contacts": "contacts",
    "shop": "notifications", "calendar": "calendar", "notes": "files and media", "clock": "notifications",
    "expense": "files and media", "calculator": "notifications", "settings": "notifications",
}


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
    bar.add(View(bat, desc="Battery 80 percent", cls="android.widget.ImageView",
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


# --- anomalies ------------------------------------------------------------------------------------

def trigger_anomalies(ctx: Ctx) -> None:
    p = ctx.phone
    if p.foreground == "launcher":
        return
    for i, a in enumerate(p.anomalies):
        if a["shown"] or a["app"] != p.foreground:
            continue
        due = a["at"] == "open" or (isinstance(a["at"], int) and p.step >= a["at"])
        if due and ctx.route.dialog is None:
            a["shown"] = True
            ctx.route.dialog = {"name": "_ad" if a["kind"] == "ad" else "_perm", "index": i}
            return


def resolve_permission(ctx: Ctx, answer: str) -> str:
    spec = ctx.route.dialog or {}
    a = ctx.phone.anomalies[spec.get("index", 0)]
    a["resolved"] = answer
    ctx.route.dialog = None
    return f"{'allowed' if answer == 'allow' else 'denied'} {ctx.app.label} access to {_permission(ctx, a)}"


def _permission(ctx: Ctx, a: dict) -> str:
    return str(a.get("text") or _DEFAULT_PERMISSION.get(a["app"], "notifications"))


def _system_dialog(ctx: Ctx, spec: dict) -> View | None:
    name = spec["name"]
    if name == "_ad":
        return _ad(ctx, spec)
    if name == "_perm":
        return _perm(ctx, spec)
    if name == "_field":
        return _field_menu(ctx, spec)
    return None


def _ad(ctx: Ctx, spec: dict) -> View:
    u = ctx.u
    a = ctx.phone.anomalies[spec["index"]]
    headline = a.get("text") or "Summer Mega Sale: 70% off everything!"

    def close() -> str:
        a["resolved"] = "closed"
        ctx.close_dialog()
        return "closed the ad"

    def cta() -> str:
        a["clicks"] = a.get("clicks", 0) + 1
        return "tapped the ad's button; nothing opened"

    scrim = View((0, 0, ctx.w, ctx.h), blocks=True, cls="android.widget.FrameLayout", paint=ui._scrim, rid="ad_root")
    x1, x2 = u(90), ctx.w - u(90)
    h = u(1250)
    y1 = (ctx.h - h) // 2
    card = View((x1, y1, x2, y1 + h), fill=(255, 255, 255), radius=u(40), blocks=True,
                cls="android.widget.FrameLayout", rid="ad_card")
    hero = (x1, y1, x2, y1 + u(620))
    card.add(View(hero, cls="android.widget.ImageView", desc="Advertisement image", paint=_ad_art))
    badge = View((x1 + u(30), y1 + u(28), x1 + u(110), y1 + u(82)), fill=(60, 60, 60), radius=u(10))
    badge.add(Label(badge.bounds, "Ad", u(32), (255, 255, 255), rid="ad_badge", bold=True, align="center"))
    card.add(badge)
    card.add(Label((x1 + u(60), y1 + u(660), x2 - u(60), y1 + u(860)), headline, u(56), (30, 30, 30),
                   rid="ad_title", bold=True, max_lines=2))
    card.add(Label((x1 + u(60), y1 + u(860), x2 - u(60), y1 + u(980)),
                   "Limited time only. Free shipping on your first order.", u(40), (110, 110, 110), rid="ad_text",
                   max_lines=2))
    card.add(Button((x1 + u(60), y1 + h - u(210), x2 - u(60), y1 + h - u(70)), "Shop now", cta, rid="ad_cta",
                    fill=(255, 87, 34), color=(255, 255, 255), radius=u(70), size=u(46)))
    # the small pale close button, top-right, where real interstitials hide it
    cr = (x2 - u(96), y1 + u(20), x2 - u(20), y1 + u(96))
    card.add(Button(cr, "×", close, rid="ad_close", desc="Close ad", icon=icons.close, color=(235, 235, 235),
                    size=u(40), cls="android.widget.ImageButton", icon_only=True))
    scrim.add(card)
    return scrim


_AD_ART: dict[tuple[int, int], Image.Image] = {}


def _ad_art(c: Canvas, v: View) -> None:
    x1, y1, x2, y2 = v.bounds
    w, h = x2 - x1, y2 - y1
    art = _AD_ART.get((w, h))
    if art is None:
        art = Image.new("RGB", (w, h), (255, 112, 67))
        sub = Canvas(art)
        for i in range(6):
            r = h // (2 + i % 3)
            cx = w * (i + 1) // 7
            cy = h * ((i * 37) % 100) // 100
            sub.ellipse((cx - r // 2, cy - r // 2, cx + r // 2, cy + r // 2), mix((255, 112, 67), (255, 214, 0), i / 6))
        s = min(w, h) // 5
        icons.bag(sub, (w // 2 - s, h // 2 - s, w // 2 + s, h // 2 + s), (255, 255, 255))
        # round the top corners into the card
        mask = Image.new("L", (w, h), 0)
        ImageDraw.Draw(mask).rounded_rectangle((0, 0, w - 1, h + s), radius=w // 25, fill=255)
        art = Image.composite(art, Image.new("RGB", (w, h), (255, 255, 255)), mask)
        _AD_ART[(w, h)] = art
    c.img.paste(art, (x1 - c.ox, y1 - c.oy))


def _perm(ctx: Ctx, spec: dict) -> View:
    u = ctx.u
    a = ctx.phone.anomalies[spec["index"]]
    what = _permission(ctx, a)
    scrim = View((0, 0, ctx.w, ctx.h), blocks=True, cls="android.widget.FrameLayout", paint=ui._scrim,
                 pkg=PERMISSIONS, rid="grant_dialog")
    x1, x2 = u(70), ctx.w - u(70)
    msg = f"Allow {ctx.app.label} to access your {what}?"
    lines = len(wrap(msg, u(50), x2 - x1 - u(120)))
    h = u(220) + lines * line_height(u(50)) + u(360)
    y1 = ctx.bottom - h - u(40)
    card = View((x1, y1, x2, y1 + h), fill=(240, 240, 246), radius=u(56), blocks=True,
                cls="android.widget.LinearLayout", pkg=PERMISSIONS, rid="grant_singleton")
    card.add(View((ctx.w // 2 - u(45), y1 + u(60), ctx.w // 2 + u(45), y1 + u(150)),
                  cls="android.widget.ImageView", paint=lambda c, v: icons.pin(c, v.bounds, (26, 115, 232))))
    card.add(Label((x1 + u(60), y1 + u(180), x2 - u(60), y1 + u(180) + lines * line_height(u(50))), msg, u(50),
                   (30, 30, 30), align="center", max_lines=lines, rid="permission_message"))
    by = y1 + u(220) + lines * line_height(u(50))
    for i, (text, rid, ans) in enumerate((("Allow", "permission_allow_button", "allow"),
                                          ("Deny", "permission_deny_button", "deny"))):
        r = (x1 + u(40), by + i * u(160), x2 - u(40), by + i * u(160) + u(140))
        card.add(Button(r, text, partial(resolve_permission, ctx, ans), rid=rid, fill=(255, 255, 255),
                        color=(26, 115, 232), radius=u(40), size=u(46)))
    scrim.add(card)
    return scrim


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
