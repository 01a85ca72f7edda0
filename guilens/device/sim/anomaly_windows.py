"""The windows of the anomalies (`guilens.device.sim.anomalies`), drawn as Android draws its own.

The ad is an in-app interstitial with its small, pale close button in the card's top-right corner
(where AndroidLens's agents looked for it and missed); the permission dialog is the permission
controller's; the low-battery warning and the crash notice are AlertDialogs of SystemUI and of
the system (`android`), with Android's resource ids (`alertTitle`, `button1`/`button2`,
`aerr_close`/`aerr_app_info`), so the same rules find them on a real phone.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from PIL import Image, ImageDraw

import guilens.device.sim.icons as icons
import guilens.device.sim.ui as ui
from guilens.device.sim.anomalies import (
    ANDROID,
    PERMISSIONS,
    SYSTEMUI,
    app_label,
    permission_of,
    resolve,
    resolve_permission,
)
from guilens.device.sim.core import Ctx
from guilens.device.sim.kit import Button, Canvas, Label, View, line_height, mix, text_width, wrap


def window(ctx: Ctx, spec: dict[str, Any]) -> View | None:
    """The window of the anomaly a route's dialog names, or None if it names none."""
    name = spec.get("name")
    draw = {"_ad": _ad, "_perm": _perm, "_battery": _battery, "_crash": _crash}.get(str(name))
    return draw(ctx, int(spec.get("index", 0))) if draw is not None else None


def _ad(ctx: Ctx, index: int) -> View:
    u = ctx.u
    a = ctx.phone.anomalies[index]
    headline = a.get("text") or "Summer Mega Sale: 70% off everything!"
    route = ctx.route

    def close() -> str:
        resolve(ctx.phone, index, "closed", route)
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
    c.paste(("ad art", w, h), art, v.bounds)


def _perm(ctx: Ctx, index: int) -> View:
    u = ctx.u
    a = ctx.phone.anomalies[index]
    what = permission_of(a)
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


def _alert(ctx: Ctx, pkg: str, root_id: str, title: str, message: str,
           buttons: list[tuple[str, str, Any]]) -> View:
    """An AlertDialog as Android draws one: a title, a message, text buttons at the bottom right."""
    u = ctx.u
    scrim = View((0, 0, ctx.w, ctx.h), blocks=True, cls="android.widget.FrameLayout", paint=ui._scrim,
                 pkg=pkg, rid=root_id)
    x1, x2 = u(80), ctx.w - u(80)
    tl = len(wrap(title, u(56), x2 - x1 - u(140)))
    ml = len(wrap(message, u(44), x2 - x1 - u(140))) if message else 0
    body = tl * line_height(u(56)) + (u(30) + ml * line_height(u(44)) if ml else 0)
    h = u(80) + body + u(60) + u(130) + u(40)
    y1 = (ctx.h - h) // 2
    card = View((x1, y1, x2, y1 + h), fill=(250, 250, 252), radius=u(44), blocks=True,
                cls="android.widget.LinearLayout", pkg=pkg, rid="parentPanel")
    y = y1 + u(80)
    card.add(Label((x1 + u(70), y, x2 - u(70), y + tl * line_height(u(56))), title, u(56), (25, 25, 30),
                   bold=True, max_lines=tl, rid="alertTitle"))
    y += tl * line_height(u(56))
    if ml:
        y += u(30)
        card.add(Label((x1 + u(70), y, x2 - u(70), y + ml * line_height(u(44))), message, u(44), (80, 80, 90),
                       max_lines=ml, rid="message"))
    by = y1 + h - u(40) - u(130)
    right = x2 - u(40)
    for text, rid, fn in reversed(buttons):
        w = text_width(text, u(46)) + u(80)
        card.add(Button((right - w, by, right, by + u(130)), text, fn, rid=rid, color=(26, 115, 232),
                        radius=u(30), size=u(46)))
        right -= w + u(20)
    scrim.add(card)
    return scrim


def _battery(ctx: Ctx, index: int) -> View:
    a = ctx.phone.anomalies[index]
    level = str(a.get("text") or "15%").rstrip("%")
    route = ctx.route

    def saver() -> str:
        resolve(ctx.phone, index, "battery_saver", route)
        return "turned on Battery saver"

    def close() -> str:
        resolve(ctx.phone, index, "dismissed", route)
        return "dismissed the low-battery warning"

    return _alert(ctx, SYSTEMUI, "battery_warning", f"Battery low: {level}% remaining",
                  "Turn on Battery saver to extend battery life.",
                  [("Battery saver", "button1", saver), ("Close", "button2", close)])


def _crash(ctx: Ctx, index: int) -> View:
    a = ctx.phone.anomalies[index]
    label = app_label(a)
    route = ctx.route

    def close_app() -> str:
        resolve(ctx.phone, index, "closed_app", route)
        return f"closed {label} after it stopped"

    def app_info() -> str:
        resolve(ctx.phone, index, "app_info", route)
        ctx.open_app("settings")
        return f"opened Settings for {label}'s app info"

    return _alert(ctx, ANDROID, "aerr_dialog", f"{label} keeps stopping", "",
                  [("App info", "aerr_app_info", app_info), ("Close app", "aerr_close", close_app)])
