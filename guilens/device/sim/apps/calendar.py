"""Calendar: a day view on an hour grid, an agenda, event details, create and edit.

"Today" is the virtual clock's date; the day view opens on it and swipes (or the
arrows) move a day at a time.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from functools import partial
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

import guilens.device.sim.icons as icons
import guilens.device.sim.ui as ui
from guilens.device.sim.apps.when import parse_date, parse_time
from guilens.device.sim.core import App, Ctx
from guilens.device.sim.kit import Button, Canvas, Label, View, mix
from guilens.device.sim.records import by_id, number_records


class Event(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int | None = None
    title: str
    start: datetime
    end: datetime | None = None
    """An hour after `start` when left out."""
    location: str = ""
    attendees: list[str] = []
    notes: str = ""
    organizer: str = ""
    """Who sent the invitation (an event that arrived as one; `guilens.device.sim.events`)."""
    response: Literal["pending", "accepted", "declined"] | None = None
    """An invitation's answer, given with Accept or Decline on the event; None for the user's own events."""

    @model_validator(mode="after")
    def _end(self) -> Event:
        if self.end is None:
            self.end = self.start + timedelta(hours=1)
        if self.end < self.start:
            raise ValueError("end is before start")
        return self


class CalendarState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    events: list[Event] = []

    @model_validator(mode="after")
    def _ids(self) -> CalendarState:
        number_records(self.events)
        return self

    def get(self, eid: int | None) -> Event | None:
        return by_id(self.events, eid)

    def on(self, day: date) -> list[Event]:
        return sorted((e for e in self.events if e.start.date() <= day <= (e.end or e.start).date()),
                      key=lambda e: (e.start, e.id or 0))


_FIELDS = (("title", "Title"), ("date", "Date (YYYY-MM-DD)"), ("start", "Start time"), ("end", "End time"),
           ("location", "Location"), ("attendees", "Attendees (comma separated)"), ("notes", "Notes"))
HOUR = 170


def _when(e: Event) -> str:
    end = e.end or e.start
    return f"{e.start:%H:%M} - {end:%H:%M}"


class Calendar(App):
    short = "calendar"
    label = "Calendar"
    accent = (63, 81, 181)
    icon = "calendar"
    State = CalendarState

    def _day(self, ctx: Ctx) -> date:
        d = ctx.route.params.get("date")
        return date.fromisoformat(d) if d else ctx.now.date()

    def _go(self, ctx: Ctx, delta: int) -> str:
        d = self._day(ctx) + timedelta(days=delta)
        ctx.route.params["date"] = d.isoformat()
        return f"showing {d:%A, %B %-d}"

    def _today(self, ctx: Ctx) -> str:
        ctx.route.params.pop("date", None)
        return "showing today"

    def swipe(self, ctx: Ctx, direction: str) -> str | None:
        if ctx.route.screen != "main" or ctx.route.dialog:
            return None
        return self._go(ctx, 1 if direction == "left" else -1)

    def screen_main(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        st: CalendarState = ctx.state
        day = self._day(ctx)
        views: list[View] = [ui.app_bar(ctx, "Calendar", back=False, actions=[
            ui.BarAction(icons.calendar, "Today", "today",
                         lambda: self._today(ctx), text="Today"),
            ui.BarAction(icons.sort, "Agenda", "agenda", ctx.pusher("agenda", "opened the agenda")),
        ])]
        y = ctx.top + ctx.bar
        nav = View((0, y, ctx.w, y + u(140)), fill=t.surface, cls="android.widget.LinearLayout")
        nav.add(Button((u(20), y + u(10), u(140), y + u(130)), "", lambda: self._go(ctx, -1), rid="prev_day",
                       desc="Previous day", icon=icons.chevron("left"), color=t.text, size=u(60),
                       cls="android.widget.ImageButton"))
        label = f"{day:%A, %B %-d}" + (" · Today" if day == ctx.now.date() else "")
        nav.add(Label((u(150), y, ctx.w - u(150), y + u(140)), label, u(46), t.text, align="center", rid="day_title",
                      bold=True))
        nav.add(Button((ctx.w - u(140), y + u(10), ctx.w - u(20), y + u(130)), "", lambda: self._go(ctx, 1),
                       rid="next_day", desc="Next day", icon=icons.chevron("right"), color=t.text, size=u(60),
                       cls="android.widget.ImageButton"))
        views.append(nav)
        top = y + u(150)
        items: list[View] = []
        gx = u(150)
        for h in range(24):
            hy = top + h * u(HOUR)
            items.append(View((0, hy, ctx.w, hy + u(HOUR)), cls="android.view.View",
                              paint=partial(self._hour, ctx, h=h)))
        events = st.on(day)
        lanes: list[datetime] = []
        for e in events:
            start = max(e.start, datetime.combine(day, datetime.min.time()))
            end = min(e.end or e.start, datetime.combine(day + timedelta(days=1), datetime.min.time()))
            lane = next((i for i, free in enumerate(lanes) if free <= start), len(lanes))
            if lane == len(lanes):
                lanes.append(end)
            else:
                lanes[lane] = end
            ey1 = top + round((start.hour + start.minute / 60) * u(HOUR))
            ey2 = max(ey1 + u(90), top + round(((end - datetime.combine(day, datetime.min.time())).total_seconds()
                                                  / 3600) * u(HOUR)) - u(6))
            lw = (ctx.w - gx - u(30)) // (1 + min(lane, 1))
            ex = gx + lane * lw if lane < 2 else gx + lw
            b = View((ex, ey1, ex + lw - u(10), ey2), fill=mix(t.accent, t.surface, 0.78), radius=u(20), rid="event",
                     on_tap=partial(self._open, ctx, e), text="", cls="android.widget.LinearLayout")
            b.add(Label((ex + u(24), ey1 + u(10), ex + lw - u(30), ey1 + u(70)), e.title, u(40),
                        mix(t.accent, t.text, 0.5), rid="event_title", bold=True))
            if ey2 - ey1 > u(130):
                meta = _when(e) + (f" · {e.location}" if e.location else "")
                b.add(Label((ex + u(24), ey1 + u(70), ex + lw - u(30), ey1 + u(124)), meta, u(34), t.sub,
                            rid="event_time"))
            items.append(b)
        default = (min((e.start.hour for e in events), default=8) - 1) * u(HOUR)
        ctx.route.scroll.setdefault(f"day_{day.isoformat()}", max(0, default))
        views.append(ui.scroll(ctx, (0, top, ctx.w, ctx.bottom), f"day_{day.isoformat()}", items))
        views.append(ui.fab(ctx, "New event", "new_event", lambda: self._edit(ctx, None)))
        return views

    def _hour(self, ctx: Ctx, c: Canvas, v: View, h: int) -> None:
        u = ctx.u
        t = ctx.theme
        x1, y1, x2, _ = v.bounds
        c.text(x1 + u(30), y1 - u(22), f"{h:02d}:00", u(32), t.sub, ctx.theme.bg)
        c.rect((x1 + u(140), y1, x2, y1 + 2), t.divider)
        day = self._day(ctx)
        if day == ctx.now.date() and ctx.now.hour == h:
            ny = y1 + ctx.now.minute * u(HOUR) // 60
            c.rect((x1 + u(140), ny - 3, x2, ny + 3), (229, 57, 53))
            c.ellipse((x1 + u(128), ny - u(12), x1 + u(152), ny + u(12)), (229, 57, 53))

    def screen_agenda(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        st: CalendarState = ctx.state
        views: list[View] = [ui.app_bar(ctx, "Agenda")]
        col = ui.Column(u(40), ctx.top + ctx.bar + u(10), ctx.w - u(40))
        items: list[View] = []
        last = None
        upcoming = sorted((e for e in st.events if (e.end or e.start) >= datetime.combine(ctx.now.date(),
                                                                                         datetime.min.time())),
                          key=lambda e: (e.start, e.id or 0))
        for e in upcoming:
            if e.start.date() != last:
                last = e.start.date()
                today = " · Today" if last == ctx.now.date() else ""
                items.append(ui.section(ctx, col, f"{last:%A, %B %-d}{today}"))
            sub = _when(e) + (f" · {e.location}" if e.location else "")
            if e.response == "pending":  # an invitation still to answer stands out in the list
                sub = f"Invitation from {e.organizer} · {sub}"
            items.append(ui.row(ctx, col.next(u(190), u(16)), e.title, sub, rid="agenda_event", title_id="event_title",
                                sub_id="event_time", on_tap=partial(self._open, ctx, e),
                                lead=lambda c, lr: icons.dot(c, lr, ctx.theme.accent)))
        if not upcoming:
            items.append(ui.empty(ctx, col.next(u(300)), "No upcoming events"))
        views.append(ui.scroll(ctx, (0, ctx.top + ctx.bar, ctx.w, ctx.bottom), "agenda_list", items))
        return views

    def _open(self, ctx: Ctx, e: Event) -> str:
        ctx.push("event", {"id": e.id})
        return f"opened event {e.title!r}"

    def screen_event(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        e = ctx.state.get(ctx.route.params.get("id"))
        if e is None:
            ctx.pop()
            return self.build(ctx)
        views: list[View] = [ui.record_bar(ctx, "Event", e.id, lambda: self._edit(ctx, e))]
        col = ui.Column(u(56), ctx.top + ctx.bar + u(30), ctx.w - u(56))
        views.append(Label(col.next(u(150), u(20)), e.title, u(64), t.text, rid="event_title", bold=True, max_lines=2,
                           valign="top"))
        end = e.end or e.start
        when = f"{e.start:%a, %b %-d} · {_when(e)}" if end.date() == e.start.date() else \
            f"{e.start:%b %-d %H:%M} - {end:%b %-d %H:%M}"
        rows = [(icons.clock, when, "event_time"), (icons.pin, e.location, "event_location"),
                (icons.person, ", ".join(e.attendees), "event_attendees"), (icons.note, e.notes, "event_notes")]
        for icon, text, rid in rows:
            if text:
                views.append(ui.row(ctx, col.next(u(170), u(16)), text, rid=f"{rid}_row", title_id=rid, card=False,
                                    lead=icons.tinted(icon, t.accent)))
        if e.response is not None:
            views += self._invitation(ctx, e, col)
        return views

    def _invitation(self, ctx: Ctx, e: Event, col: ui.Column) -> list[View]:
        """An invitation's answer and its Accept / Decline buttons (either can change it later)."""
        u = ctx.u
        said = {"pending": "Invitation: not answered yet", "accepted": "Invitation: accepted",
                "declined": "Invitation: declined"}[e.response or "pending"]
        views: list[View] = [Label(col.next(u(80), u(10)), f"From {e.organizer}" if e.organizer else "Invitation",
                                   u(38), ctx.theme.sub, rid="event_organizer"),
                             Label(col.next(u(80), u(20)), said, u(42), ctx.theme.text, rid="event_response",
                                   bold=True)]

        def answer(response: Literal["accepted", "declined"]) -> str:
            e.response = response
            ctx.toast(f"Invitation {response}")
            return f"{response} the invitation {e.title!r}"

        x1, y1, x2, y2 = col.next(u(140), u(20))
        half = (x2 - x1 - u(30)) // 2
        views.append(ui.button(ctx, (x1, y1, x1 + half, y2), "Accept", "accept", partial(answer, "accepted"),
                               style="filled" if e.response != "accepted" else "tonal"))
        views.append(ui.button(ctx, (x2 - half, y1, x2, y2), "Decline", "decline", partial(answer, "declined"),
                               style="outline"))
        return views

    def dialog_confirm_delete(self, ctx: Ctx, spec: dict) -> View | None:
        st: CalendarState = ctx.state
        e = st.get(spec["id"])
        if e is None:
            return None

        def delete() -> str:
            st.events.remove(e)
            ctx.close_dialog()
            ctx.pop()
            ctx.toast("Event deleted")
            return f"deleted event {e.title!r}"

        def cancel() -> str:
            ctx.close_dialog()
            return "kept the event"

        return ui.dialog(ctx, "Delete event?", f"“{e.title}” will be removed from your calendar.",
                         [("Cancel", "button2", cancel), ("Delete", "button1", delete)], dismiss=cancel)

    def _edit(self, ctx: Ctx, e: Event | None) -> str:
        if e is None:
            day = self._day(ctx) if ctx.route.screen == "main" else ctx.now.date()
            start = (ctx.now + timedelta(hours=1)).replace(minute=0)
            fields = {"title": "", "date": day.isoformat(), "start": f"{start:%H:%M}",
                      "end": f"{(start + timedelta(hours=1)):%H:%M}", "location": "", "attendees": "", "notes": ""}
        else:
            fields = {"title": e.title, "date": e.start.date().isoformat(), "start": f"{e.start:%H:%M}",
                      "end": f"{(e.end or e.start):%H:%M}", "location": e.location,
                      "attendees": ", ".join(e.attendees), "notes": e.notes}
        ctx.push("edit", {"id": e.id if e else None}, fields, focus="title" if e is None else None)
        return f"editing event {e.title!r}" if e else "creating an event"

    def screen_edit(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        eid = ctx.route.params.get("id")
        views: list[View] = [ui.editor_bar(ctx, "Edit event" if eid else "New event", lambda: self._save(ctx))]
        col = ui.Column(u(48), ctx.top + ctx.bar + u(10), ctx.w - u(48))
        items: list[View] = []
        for key, label in _FIELDS:
            items += ui.labeled_field(ctx, col, key, label, height=130, multiline=key == "notes")
        col.skip(u(200))
        items.append(View((0, col.y - 2, 1, col.y)))
        views.append(ui.scroll(ctx, (0, ctx.top + ctx.bar, ctx.w, ctx.bottom), "form", items))
        return views

    def _save(self, ctx: Ctx) -> str:
        st: CalendarState = ctx.state
        f = ctx.route.fields
        title = f.get("title", "").strip()
        day = parse_date(f.get("date", ""), ctx.now.date())
        start, end = parse_time(f.get("start", "")), parse_time(f.get("end", ""))
        problem = ("Enter a title" if not title else "Enter the date as YYYY-MM-DD" if day is None else
                   "Enter the start time as HH:MM" if start is None else
                   "Enter the end time as HH:MM" if end is None else "")
        if problem:
            ctx.toast(problem)
            return f"not saved: {problem.lower()}"
        assert day is not None and start is not None and end is not None
        s_dt, e_dt = datetime.combine(day, start), datetime.combine(day, end)
        if e_dt <= s_dt:
            e_dt += timedelta(days=1)  # ends after midnight
        values: dict[str, Any] = {"title": title, "start": s_dt, "end": e_dt, "location": f.get("location", "").strip(),
                  "attendees": [a.strip() for a in f.get("attendees", "").split(",") if a.strip()],
                  "notes": f.get("notes", "").strip()}
        e = st.get(ctx.route.params.get("id"))
        if e is None:
            e = Event(id=max((x.id or 0 for x in st.events), default=0) + 1, **values)
            st.events.append(e)
            ctx.pop()
            if ctx.route.screen == "main":
                ctx.route.params["date"] = day.isoformat()
            ctx.toast("Event saved")
            return f"created event {title!r} on {day:%b %-d} at {s_dt:%H:%M}"
        for k, v in values.items():
            setattr(e, k, v)
        ctx.pop()
        ctx.toast("Event saved")
        return f"saved event {title!r}"
