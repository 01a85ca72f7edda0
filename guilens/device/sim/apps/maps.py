"""Maps: find a place, and a route between two places with drive, transit and walk times from the setup.

Places and routes match what was typed by name or address, either way round,
so "Apple Park" and "One Apple Park Way" both find the same route.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

import guilens.device.sim.icons as icons
import guilens.device.sim.ui as ui
from guilens.device.sim.core import App, Ctx
from guilens.device.sim.data.places import more_places, more_routes
from guilens.device.sim.kit import Button, Canvas, Label, View, mix

Mode = Literal["drive", "transit", "walk"]
MODES: list[tuple[Mode, str, icons.Icon]] = [("drive", "Drive", icons.car), ("transit", "Transit", icons.bus),
                                             ("walk", "Walk", icons.walk)]


class Place(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    address: str = ""


class MapRoute(BaseModel):
    model_config = ConfigDict(extra="forbid")

    origin: str
    destination: str
    drive: int | None = Field(default=None, ge=0)
    """Minutes; None where the mode has no route."""
    transit: int | None = Field(default=None, ge=0)
    walk: int | None = Field(default=None, ge=0)
    distance_km: float | None = None
    via: str = ""


class MapsState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    places: list[Place] = Field(default_factory=lambda: [
        Place(name="Apple Park", address="One Apple Park Way, Cupertino, CA 95014"),
        Place(name="Cupertino Apartments", address="10100 Torre Ave, Cupertino, CA 95014"),
        Place(name="San Jose Airport", address="1701 Airport Blvd, San Jose, CA 95110"),
        Place(name="Stanford University", address="450 Jane Stanford Way, Stanford, CA 94305"),
        *(Place(**p) for p in more_places()),
    ])
    routes: list[MapRoute] = Field(default_factory=lambda: [
        MapRoute(origin="Cupertino Apartments", destination="Apple Park", drive=6, transit=18, walk=32,
                 distance_km=2.4, via="Stevens Creek Blvd"),
        MapRoute(origin="Apple Park", destination="San Jose Airport", drive=17, transit=48, walk=210,
                 distance_km=15.8, via="I-280 S"),
        MapRoute(origin="Apple Park", destination="Stanford University", drive=22, transit=65, walk=290,
                 distance_km=21.5, via="I-280 N"),
        *(MapRoute(**r) for r in more_routes()),
    ])
    origin: str = ""
    """The last directions asked for (what the directions screen shows)."""
    destination: str = ""
    mode: Mode = "drive"


def _norm(s: str) -> str:
    return " ".join(s.lower().replace(",", " ").split())


def _same(a: str, b: str) -> bool:
    a, b = _norm(a), _norm(b)
    return bool(a and b) and (a == b or (len(a) >= 4 and a in b) or (len(b) >= 4 and b in a))


def find_place(st: MapsState, text: str) -> Place | None:
    return next((p for p in st.places if _same(text, p.name) or (p.address and _same(text, p.address))), None)


def _names(st: MapsState, text: str) -> list[str]:
    p = find_place(st, text)
    return [text] + ([p.name, p.address] if p else [])


def find_route(st: MapsState, origin: str, destination: str) -> tuple[MapRoute, bool] | None:
    """The route and whether it was stored the other way round."""
    o, d = _names(st, origin), _names(st, destination)
    for r in st.routes:
        if any(_same(x, r.origin) for x in o) and any(_same(y, r.destination) for y in d):
            return r, False
        if any(_same(x, r.destination) for x in o) and any(_same(y, r.origin) for y in d):
            return r, True
    return None


def fmt_minutes(m: int | None) -> str:
    if m is None:
        return "-"
    return f"{m} min" if m < 60 else f"{m // 60} h {m % 60} min" if m % 60 else f"{m // 60} h"


def draw_map(c: Canvas, r: tuple[int, int, int, int], dark: bool, seed: str = "") -> None:
    x1, y1, x2, y2 = r
    land, road, park, water = ((40, 44, 52), (70, 74, 86), (38, 60, 48), (30, 50, 80)) if dark else \
        ((236, 233, 224), (255, 255, 255), (200, 230, 190), (170, 205, 240))
    c.rect(r, land)
    w, h = x2 - x1, y2 - y1
    c.rect((x1 + w * 6 // 10, y1 + h // 8, x1 + w * 9 // 10, y1 + h * 3 // 8), park, radius=w // 30, bg=None)
    c.rect((x1 + w // 12, y1 + h * 6 // 10, x1 + w * 3 // 10, y1 + h * 8 // 10), park, radius=w // 30, bg=None)
    c.line([(x1, y1 + h * 0.45), (x1 + w * 0.3, y1 + h * 0.5), (x1 + w * 0.55, y1 + h * 0.42), (x2, y1 + h * 0.55)],
           water, max(8, w // 25))
    for i in range(1, 8):
        c.line([(x1 + w * i // 8, y1), (x1 + w * i // 8, y2)], road, 6 if i % 3 else 14)
    for i in range(1, 10):
        c.line([(x1, y1 + h * i // 10), (x2, y1 + h * i // 10)], road, 6 if i % 4 else 14)
    c.line([(x1, y2 - h // 10), (x2, y1 + h // 6)], mix(road, (255, 200, 80), 0.6), 18)


class Maps(App):
    short = "maps"
    label = "Maps"
    accent = (15, 157, 88)
    icon = "pin"
    State = MapsState

    def screen_main(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        st: MapsState = ctx.state
        dark = t.dark
        views: list[View] = [View((0, ctx.top, ctx.w, ctx.bottom), cls="android.view.View", desc="Map", rid="map",
                                  paint=lambda c, v: draw_map(c, v.bounds, dark))]
        y = ctx.top + u(30)
        box = View((u(40), y, ctx.w - u(40), y + u(150)), fill=t.surface, radius=u(75), cls="android.widget.FrameLayout")
        views.append(box)
        f = ui.field(ctx, (u(60), y + u(10), ctx.w - u(60), y + u(140)), "search", "Search here",
                     submit=lambda: self._find(ctx))
        f.box = t.surface
        f.line = t.surface
        views.append(f)
        cb = ui.clear_button(ctx, f, "Search here")
        if cb:
            views.append(cb)
        pname = ctx.route.params.get("place")
        p = next((x for x in st.places if x.name == pname), None)
        if p is not None:
            cx, cy = ctx.w // 2, ctx.h * 2 // 5
            views.append(View((cx - u(60), cy - u(120), cx + u(60), cy), cls="android.widget.ImageView",
                              desc=f"Pin: {p.name}", paint=lambda c, v: icons.pin(c, v.bounds, (219, 68, 55))))
            r = (u(30), ctx.bottom - u(520), ctx.w - u(30), ctx.bottom - u(30))
            card = View(r, fill=t.surface, radius=u(48), rid="place_card", cls="android.widget.LinearLayout")
            card.add(Label((r[0] + u(48), r[1] + u(40), r[2] - u(48), r[1] + u(130)), p.name, u(60), t.text,
                           rid="place_name", bold=True))
            card.add(Label((r[0] + u(48), r[1] + u(140), r[2] - u(48), r[1] + u(260)), p.address, u(40), t.sub,
                           rid="place_address", max_lines=2, valign="top"))
            card.add(ui.button(ctx, (r[0] + u(48), r[3] - u(180), r[0] + u(500), r[3] - u(50)), "Directions",
                               "directions", lambda: self._directions(ctx, destination=p.name), icon=icons.car))
            views.append(card)
        else:
            views.append(ui.fab(ctx, "Directions", "directions", lambda: self._directions(ctx), icon=icons.car))
        return views

    def _find(self, ctx: Ctx) -> str:
        st: MapsState = ctx.state
        q = ctx.field("search").strip()
        p = find_place(st, q)
        if p is None:
            ctx.route.params.pop("place", None)
            ctx.toast(f"No results for “{q}”")
            return f"no place matches {q!r}"
        ctx.route.params["place"] = p.name
        return f"found {p.name}"

    def _directions(self, ctx: Ctx, destination: str = "") -> str:
        st: MapsState = ctx.state
        origin, dest = ("" if destination else st.origin), (destination or st.destination)
        ctx.push("directions", fields={"origin": origin, "destination": dest},
                 focus="origin" if not origin else ("destination" if not dest else None),
                 params={"shown": True} if origin and dest else None)
        return "opened directions"

    def screen_directions(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        st: MapsState = ctx.state
        views: list[View] = [ui.app_bar(ctx, "Directions")]
        y = ctx.top + ctx.bar
        panel = View((0, y, ctx.w, y + u(560)), fill=t.surface, cls="android.widget.LinearLayout")
        views.append(panel)
        for i, (key, hint) in enumerate((("origin", "Choose starting point"), ("destination", "Choose destination"))):
            fy = y + u(20) + i * u(160)
            f = ui.field(ctx, (u(40), fy, ctx.w - u(170), fy + u(140)), key, hint, submit=lambda: self._route(ctx),
                         on_change=lambda: self._clear_route(ctx))
            views.append(f)
            cb = ui.clear_button(ctx, f, hint, on_change=lambda: self._clear_route(ctx))
            if cb:
                views.append(cb)
        views.append(Button((ctx.w - u(150), y + u(100), ctx.w - u(30), y + u(220)), "", lambda: self._swap(ctx),
                            rid="swap", desc="Swap start and destination", icon=icons.sort, color=t.text, size=u(56),
                            cls="android.widget.ImageButton"))
        found = find_route(st, ctx.field("origin"), ctx.field("destination")) if ctx.route.params.get("shown") else None
        tab_y = y + u(360)
        tw = (ctx.w - u(100)) // 3
        for i, (mode, label, icon) in enumerate(MODES):
            mins = getattr(found[0], mode) if found else None
            text = f"{label} {fmt_minutes(mins)}" if found else label
            r = (u(40) + i * (tw + u(10)), tab_y, u(40) + i * (tw + u(10)) + tw, tab_y + u(130))

            def pick(mode: Mode = mode) -> str:
                st.mode = mode
                return f"showing {mode} directions"

            on = st.mode == mode
            b = ui.button(ctx, r, text, f"mode_{mode}", pick, style="filled" if on else "outline", icon=icon)
            b.size = u(36)
            b.selected = on
            b.desc = label
            views.append(b)
        top = y + u(580)
        if found is None:
            msg = "Enter a start and a destination, then press enter." if not ctx.route.params.get("shown") else \
                "No route found between these places."
            views.append(View((0, top, ctx.w, ctx.bottom), cls="android.view.View", paint=lambda c, v: draw_map(
                c, v.bounds, t.dark)))
            views.append(ui.empty(ctx, (u(60), top + u(60), ctx.w - u(60), top + u(260)), msg))
            return views
        route, _rev = found
        mins = getattr(route, st.mode)
        views.append(View((0, top, ctx.w, ctx.bottom - u(430)), cls="android.view.View", desc="Route map",
                          paint=lambda c, v: self._route_map(c, v, t.accent, t.dark)))
        r = (u(30), ctx.bottom - u(410), ctx.w - u(30), ctx.bottom - u(30))
        card = View(r, fill=t.surface, radius=u(48), rid="route_card", cls="android.widget.LinearLayout")
        card.add(Label((r[0] + u(48), r[1] + u(40), r[2] - u(48), r[1] + u(170)),
                       fmt_minutes(mins) if mins is not None else f"No {st.mode} route", u(96),
                       (15, 157, 88) if mins is not None else t.sub, rid="duration", bold=True))
        dist = f"{route.distance_km:g} km" if route.distance_km is not None else ""
        card.add(Label((r[0] + u(48), r[1] + u(180), r[2] - u(48), r[1] + u(250)), dist, u(44), t.text,
                       rid="distance"))
        card.add(Label((r[0] + u(48), r[1] + u(260), r[2] - u(48), r[1] + u(340)),
                       f"via {route.via}" if route.via else f"{ctx.field('origin')} to {ctx.field('destination')}",
                       u(40), t.sub, rid="route_summary"))
        views.append(card)
        return views

    def _route_map(self, c: Canvas, v: View, accent: tuple[int, int, int], dark: bool) -> None:
        draw_map(c, v.bounds, dark)
        x1, y1, x2, y2 = v.bounds
        w, h = x2 - x1, y2 - y1
        pts = [(x1 + w * 0.2, y1 + h * 0.8), (x1 + w * 0.2, y1 + h * 0.5), (x1 + w * 0.62, y1 + h * 0.5),
               (x1 + w * 0.62, y1 + h * 0.25), (x1 + w * 0.8, y1 + h * 0.25)]
        c.line([(round(x), round(y)) for x, y in pts], accent, max(10, w // 70))
        s = w // 14
        icons.pin(c, (round(pts[-1][0]) - s, round(pts[-1][1]) - 2 * s, round(pts[-1][0]) + s, round(pts[-1][1])),
                  (219, 68, 55))
        sx, sy = round(pts[0][0]), round(pts[0][1])
        c.ellipse((sx - s // 3, sy - s // 3, sx + s // 3, sy + s // 3), (255, 255, 255), accent, max(4, s // 8))

    def _clear_route(self, ctx: Ctx) -> None:
        ctx.route.params.pop("shown", None)

    def _route(self, ctx: Ctx) -> str:
        st: MapsState = ctx.state
        o, d = ctx.field("origin").strip(), ctx.field("destination").strip()
        if not o or not d:
            ctx.route.focus = "destination" if o else "origin"
            return "enter both a start and a destination"
        st.origin, st.destination = o, d
        ctx.route.params["shown"] = True
        ctx.route.focus = None
        found = find_route(st, o, d)
        if found is None:
            return f"no route found from {o!r} to {d!r}"
        r = found[0]
        return (f"route from {o} to {d}: drive {fmt_minutes(r.drive)}, transit {fmt_minutes(r.transit)}, "
                f"walk {fmt_minutes(r.walk)}")

    def _swap(self, ctx: Ctx) -> str:
        f = ctx.route.fields
        f["origin"], f["destination"] = f.get("destination", ""), f.get("origin", "")
        if ctx.route.params.get("shown"):
            return self._route(ctx)
        return "swapped start and destination"
