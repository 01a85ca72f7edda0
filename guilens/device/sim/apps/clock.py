"""Clock: alarms with a time, repeat days, a label and an on/off switch; they ring on the virtual clock."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import partial

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

import guilens.device.sim.icons as icons
import guilens.device.sim.ui as ui
from guilens.device.sim.apps.when import DAYS, parse_time
from guilens.device.sim.core import App, Ctx, Phone
from guilens.device.sim.kit import Label, Switch, View
from guilens.device.sim.records import by_id, number_records


class Alarm(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int | None = None
    time: str
    """24-hour `HH:MM`."""
    days: list[str] = []
    """Repeat days (`Mon` … `Sun`); empty rings once."""
    label: str = ""
    enabled: bool = True

    @field_validator("time")
    @classmethod
    def _time(cls, v: str) -> str:
        t = parse_time(v)
        if t is None:
            raise ValueError(f"{v!r} is not a time like 07:30")
        return t.strftime("%H:%M")

    @field_validator("days")
    @classmethod
    def _days(cls, v: list[str]) -> list[str]:
        out = []
        for d in v:
            key = d.strip()[:3].title()
            if key not in DAYS:
                raise ValueError(f"{d!r} is not a day (Mon, Tue, Wed, Thu, Fri, Sat, Sun)")
            if key not in out:
                out.append(key)
        return sorted(out, key=DAYS.index)


class Rang(BaseModel):
    model_config = ConfigDict(extra="forbid")

    alarm_id: int | None
    time: str
    at: datetime


class ClockState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    alarms: list[Alarm] = []
    snoozed: list[str] = []
    """Snoozed alarms due (`HH:MM`), rung once."""
    rang: list[Rang] = []
    """Alarms that went off, oldest first."""

    @model_validator(mode="after")
    def _ids(self) -> ClockState:
        number_records(self.alarms)
        return self

    def get(self, aid: int | None) -> Alarm | None:
        return by_id(self.alarms, aid)


def days_text(days: list[str]) -> str:
    if not days:
        return "Once"
    if days == DAYS:
        return "Every day"
    if days == DAYS[:5]:
        return "Weekdays"
    if days == DAYS[5:]:
        return "Weekends"
    return ", ".join(days)


def next_ring(a: Alarm, after: datetime) -> datetime:
    """The first time strictly after `after` that `a` rings."""
    hh, mm = map(int, a.time.split(":"))
    day = after.replace(hour=hh, minute=mm, second=0, microsecond=0)
    for k in range(8):
        cand = day + timedelta(days=k)
        if cand > after and (not a.days or DAYS[cand.weekday()] in a.days):
            return cand
    return day + timedelta(days=8)


class Clock(App):
    short = "clock"
    label = "Clock"
    accent = (94, 53, 177)
    icon = "clock"
    State = ClockState

    def screen_main(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        st: ClockState = ctx.state
        views: list[View] = [ui.app_bar(ctx, "Alarms", back=False)]
        y = ctx.top + ctx.bar
        views.append(Label((0, y + u(10), ctx.w, y + u(210)), ctx.now.strftime("%H:%M"), u(170), t.text, align="center",
                           rid="current_time"))
        views.append(Label((0, y + u(210), ctx.w, y + u(280)), ctx.now.strftime("%A, %B %-d"), u(42), t.sub,
                           align="center", rid="current_date"))
        col = ui.Column(u(40), y + u(320), ctx.w - u(40))
        items: list[View] = []
        for a in sorted(st.alarms, key=lambda a: (a.time, a.id or 0)):
            r = col.next(u(260), u(24))
            card = View(r, fill=t.card, radius=u(40), rid="alarm", on_tap=partial(self._edit, ctx, a),
                        on_long=ctx.opener("alarm_menu", f"opened the menu of the {a.time} alarm", id=a.id),
                        cls="android.widget.LinearLayout")
            fg = t.text if a.enabled else t.sub
            card.add(Label((r[0] + u(48), r[1] + u(20), r[2] - u(240), r[1] + u(160)), a.time, u(110), fg,
                           rid="alarm_time"))
            sub = days_text(a.days) + (f" · {a.label}" if a.label else "")
            card.add(Label((r[0] + u(52), r[1] + u(165), r[2] - u(240), r[3] - u(30)), sub, u(38), t.sub,
                           rid="alarm_label"))
            cy = (r[1] + r[3]) // 2

            def flip(a: Alarm = a) -> str:
                a.enabled = not a.enabled
                return f"turned the {a.time} alarm {'on' if a.enabled else 'off'}"

            sw = Switch((r[2] - u(190), cy - u(45), r[2] - u(40), cy + u(45)), a.enabled, t.accent, off=t.divider,
                        rid="alarm_switch", desc=f"{a.time} alarm", on_tap=flip)
            card.add(sw)
            items.append(card)
        if not st.alarms:
            items.append(ui.empty(ctx, col.next(u(300)), "No alarms. Tap Add alarm to set one."))
        col.skip(u(240))
        items.append(View((0, col.y - 2, 1, col.y)))
        views.append(ui.scroll(ctx, (0, y + u(300), ctx.w, ctx.bottom), "alarms", items))
        views.append(ui.fab(ctx, "Add alarm", "add_alarm", lambda: self._edit(ctx, None), icon=icons.bell))
        return views

    def dialog_alarm_menu(self, ctx: Ctx, spec: dict) -> View | None:
        st: ClockState = ctx.state
        a = st.get(spec["id"])
        if a is None:
            return None

        def delete() -> str:
            st.alarms.remove(a)
            ctx.close_dialog()
            return f"deleted the {a.time} alarm"

        return ui.menu(ctx, f"{a.time} alarm", [("Edit", "edit", ctx.closing(lambda: self._edit(ctx, a))),
                                                 ("Delete", "delete_alarm", delete)])

    def _edit(self, ctx: Ctx, a: Alarm | None) -> str:
        fields = {"time": a.time if a else "", "label": a.label if a else ""}
        ctx.push("edit", {"id": a.id if a else None, "days": list(a.days) if a else []}, fields,
                 focus="time" if a is None else None)
        return f"editing the {a.time} alarm" if a else "adding an alarm"

    def screen_edit(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        params = ctx.route.params
        aid = params.get("id")
        views: list[View] = [ui.editor_bar(ctx, "Edit alarm" if aid else "New alarm", lambda: self._save(ctx),
                                           None if aid is None else lambda: self._delete(ctx))]
        col = ui.Column(u(48), ctx.top + ctx.bar + u(20), ctx.w - u(48))
        views += ui.labeled_field(ctx, col, "time", "Time", "HH:MM, e.g. 07:30", height=150)
        views += ui.labeled_field(ctx, col, "label", "Label", "Alarm name", height=140)
        views.append(ui.section(ctx, col, "Repeat"))

        def toggle(d: str) -> str:
            days: list[str] = params["days"]
            if d in days:
                days.remove(d)
                return f"{d} off"
            days.append(d)
            days.sort(key=DAYS.index)
            return f"{d} on"

        views += ui.chips(ctx, col, [(d, f"day_{d.lower()}", d in params["days"], partial(toggle, d))
                                     for d in DAYS], h=120)
        views.append(Label(col.next(u(70)), days_text(params["days"]), u(38), ctx.theme.sub, rid="repeat_summary"))
        return views

    def _save(self, ctx: Ctx) -> str:
        st: ClockState = ctx.state
        params = ctx.route.params
        t = parse_time(ctx.field("time"))
        if t is None:
            ctx.toast("Enter the time as HH:MM")
            return "not saved: enter the time as HH:MM"
        when = t.strftime("%H:%M")
        a = st.get(params.get("id"))
        if a is None:
            a = Alarm(id=max((x.id or 0 for x in st.alarms), default=0) + 1, time=when, days=list(params["days"]),
                      label=ctx.field("label").strip())
            st.alarms.append(a)
        else:
            a.time, a.days, a.label, a.enabled = when, list(params["days"]), ctx.field("label").strip(), True
        ctx.pop()
        mins = int((next_ring(a, ctx.now) - ctx.now).total_seconds() // 60)
        ctx.toast(f"Alarm set for {mins // 60} h {mins % 60} min from now")
        return f"set an alarm for {when} ({days_text(a.days)})"

    def _delete(self, ctx: Ctx) -> str:
        st: ClockState = ctx.state
        a = st.get(ctx.route.params.get("id"))
        if a is not None:
            st.alarms.remove(a)
        ctx.pop()
        return f"deleted the {a.time if a else ''} alarm"

    def tick(self, phone: Phone, old: datetime, new: datetime) -> str | None:
        st: ClockState = phone.apps[self.short]  # type: ignore[assignment]
        due: list[tuple[datetime, Alarm | None, str]] = []
        for a in st.alarms:
            if a.enabled:
                at = next_ring(a, old)
                if at <= new:
                    due.append((at, a, a.time))
        for s in list(st.snoozed):
            snooze = Alarm(time=s)
            at = next_ring(snooze, old)
            if at <= new:
                due.append((at, None, s))
                st.snoozed.remove(s)
        if not due:
            return None
        _, last, when = max(due, key=lambda x: x[0])
        for at_i, a_i, when_i in sorted(due, key=lambda x: x[0]):
            st.rang.append(Rang(alarm_id=a_i.id if a_i else None, time=when_i, at=at_i))
            if a_i is not None and not a_i.days:
                a_i.enabled = False
        phone.alert = {"time": when, "label": last.label if last else "Snoozed alarm"}
        return None
