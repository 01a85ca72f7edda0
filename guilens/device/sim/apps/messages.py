"""Messages: conversations, compose to a contact or a number, send; incoming messages on the clock."""

from __future__ import annotations

from datetime import datetime
from functools import partial

from pydantic import BaseModel, ConfigDict, Field

import guilens.device.sim.icons as icons
import guilens.device.sim.ui as ui
from guilens.device.sim.apps.contacts import Contact, ContactsState, digits
from guilens.device.sim.apps.settings import online
from guilens.device.sim.core import App, Ctx, Phone
from guilens.device.sim.data.people import default_threads
from guilens.device.sim.kit import Button, Label, View, line_height, text_width, wrap


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str
    outgoing: bool = False
    time: datetime | None = None


class Thread(BaseModel):
    model_config = ConfigDict(extra="forbid")

    number: str
    """The other party's phone number (contacts supply the name when it matches)."""
    name: str = ""
    messages: list[Message] = []
    unread: bool = False


class Incoming(BaseModel):
    """A message that arrives when the virtual clock reaches `at`."""

    model_config = ConfigDict(extra="forbid")

    number: str
    text: str
    at: datetime
    name: str = ""


class MessagesState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    threads: list[Thread] = Field(default_factory=lambda: [Thread(**t) for t in default_threads()])
    """Conversations; by default the phone's dated histories with its contacts (`data.people`)."""
    scheduled: list[Incoming] = []

    def thread(self, number: str) -> Thread | None:
        want = digits(number)
        return next((t for t in self.threads if digits(t.number) == want and want), None)

    def thread_for(self, number: str, name: str = "") -> Thread:
        """The conversation with `number`, started now if there is none."""
        th = self.thread(number)
        if th is None:
            th = Thread(number=number, name=name)
            self.threads.append(th)
        return th


def receive(phone: Phone, number: str, name: str, text: str, at: datetime) -> Thread:
    """An incoming message: it joins its conversation, unread unless that conversation is on the
    screen now (then it scrolls to it). Scheduled messages and scenario events both arrive so."""
    st: MessagesState = phone.apps["messages"]  # type: ignore[assignment]
    th = st.thread_for(number, name)
    th.messages.append(Message(text=text, outgoing=False, time=at))
    top = phone.stacks.get("messages", [])
    viewing = phone.foreground == "messages" and top and top[-1].screen == "thread" and \
        digits(top[-1].params.get("number", "")) == digits(number)
    th.unread = not viewing
    if viewing:
        top[-1].scroll["conversation"] = 10**7
    return th


def _when(t: datetime, now: datetime) -> str:
    """A conversation's time in the list, as phones write it: the time today, else the date."""
    return t.strftime("%H:%M") if t.date() == now.date() else f"{t:%b} {t.day}"


def _last_time(t: Thread) -> datetime:
    times = [m.time for m in t.messages if m.time is not None]
    return max(times) if times else datetime.min


class Messages(App):
    short = "messages"
    label = "Messages"
    accent = (0, 150, 136)
    icon = "bubble"
    State = MessagesState

    def _name(self, ctx: Ctx | Phone, t: Thread | str) -> str:
        apps = ctx.phone.apps if isinstance(ctx, Ctx) else ctx.apps
        number = t.number if isinstance(t, Thread) else t
        contacts: ContactsState = apps["contacts"]  # type: ignore[assignment]
        c = contacts.by_number(number)
        if c is not None:
            return str(c.name)
        return (t.name if isinstance(t, Thread) else "") or number

    def screen_main(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        st: MessagesState = ctx.state
        views: list[View] = [ui.app_bar(ctx, "Messages", back=False)]
        col = ui.Column(u(40), ctx.top + ctx.bar + u(20), ctx.w - u(40))
        items: list[View] = []
        order = sorted(range(len(st.threads)), key=lambda i: (_last_time(st.threads[i]), -i), reverse=True)
        for i in order:
            th = st.threads[i]
            last = th.messages[-1] if th.messages else None
            snippet = ("You: " if last and last.outgoing else "") + (last.text if last else "")
            when = _when(last.time, ctx.now) if last and last.time else ""
            name = self._name(ctx, th)
            r = col.next(u(200), u(16))
            items.append(ui.row(ctx, r, name, snippet, rid="thread", title_id="thread_name", sub_id="thread_snippet",
                                on_tap=partial(self._open, ctx, th.number),
                                on_long=ctx.opener("thread_menu", "opened the conversation menu", number=th.number),
                                lead=partial(ui.avatar, name=name), trailing=when,
                                trailing_id="thread_time", trailing_color=t.accent if th.unread else None))
        if not st.threads:
            items.append(ui.empty(ctx, col.next(u(300)), "No conversations yet"))
        col.skip(u(240))
        items.append(View((0, col.y - 2, 1, col.y)))
        views.append(ui.scroll(ctx, (0, ctx.top + ctx.bar, ctx.w, ctx.bottom), "threads", items))
        views.append(ui.fab(ctx, "Start chat", "new_message", lambda: self._compose(ctx), icon=icons.bubble))
        return views

    def _open(self, ctx: Ctx, number: str) -> str:
        ctx.push("thread", {"number": number}, scroll={"conversation": 10**7})
        th = ctx.state.thread(number)
        if th is not None:
            th.unread = False
        return f"opened the conversation with {self._name(ctx, number)}"

    def _compose(self, ctx: Ctx) -> str:
        ctx.push("compose", focus="recipient")
        return "started a new message"

    def dialog_thread_menu(self, ctx: Ctx, spec: dict) -> View | None:
        st: MessagesState = ctx.state
        th = st.thread(spec["number"])
        if th is None:
            return None

        def delete() -> str:
            st.threads.remove(th)
            ctx.close_dialog()
            return f"deleted the conversation with {self._name(ctx, th)}"

        return ui.menu(ctx, self._name(ctx, th), [("Delete conversation", "delete_thread", delete)])

    # --- compose -------------------------------------------------------------------------------
    def screen_compose(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        contacts: ContactsState = ctx.app_state("contacts")
        views: list[View] = [ui.app_bar(ctx, "New message")]
        top = ctx.top + ctx.bar + u(20)
        rf = ui.field(ctx, (u(40), top, ctx.w - u(40), top + u(140)), "recipient", "To: name or number",
                      submit=lambda: self._pick_typed(ctx), on_change=lambda: ctx.route.params.clear())
        views.append(rf)
        cb = ui.clear_button(ctx, rf, "To")
        if cb:
            views.append(cb)
        q = ctx.field("recipient").strip().casefold()
        matches = [c for c in sorted(contacts.contacts, key=lambda c: c.name.casefold())
                   if c.phone and (not q or q in c.name.casefold() or (digits(q) and digits(q) in digits(c.phone)))]
        col = ui.Column(u(40), top + u(170), ctx.w - u(40))
        items: list[View] = []
        chosen = ctx.route.params.get("number")
        if not chosen:
            for c in matches:
                def pick(c: Contact = c) -> str:
                    ctx.route.fields["recipient"] = c.name
                    ctx.route.params["number"] = c.phone
                    ctx.route.focus = "message"
                    return f"chose {c.name}"

                items.append(ui.row(ctx, col.next(u(170), u(12)), c.name, c.phone, rid="suggestion",
                                    title_id="suggestion_name", sub_id="suggestion_number", on_tap=pick,
                                    lead=partial(ui.avatar, name=c.name), card=False))
        views.append(ui.scroll(ctx, (0, top + u(160), ctx.w, ctx.bottom - u(200)), "suggestions", items))
        views += self._composer(ctx)
        return views

    def _pick_typed(self, ctx: Ctx) -> str:
        number = self._resolve(ctx, ctx.field("recipient"))
        if number is None:
            return "no contact or number matches"
        ctx.route.params["number"] = number
        ctx.route.focus = "message"
        return f"chose {self._name(ctx, number)}"

    def _resolve(self, ctx: Ctx, text: str) -> str | None:
        text = text.strip()
        if not text:
            return None
        contacts: ContactsState = ctx.app_state("contacts")
        c = contacts.by_name(text)
        if c is not None and c.phone:
            return c.phone
        if len(digits(text)) >= 3 and all(ch.isdigit() or ch in "+-() ." for ch in text):
            return text
        return None

    def _composer(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        y = ctx.bottom - u(180)
        mf = ui.field(ctx, (u(30), y, ctx.w - u(190), y + u(150)), "message", "Text message",
                      submit=lambda: self._send(ctx))
        send = Button((ctx.w - u(170), y + u(5), ctx.w - u(30), y + u(145)), "", lambda: self._send(ctx),
                      rid="send", desc="Send", icon=icons.send, fill=t.accent, color=t.on_accent, radius=u(70),
                      size=u(56), cls="android.widget.ImageButton")
        return [View((0, y - u(24), ctx.w, ctx.bottom), fill=t.surface), mf, send]

    def _send(self, ctx: Ctx) -> str:
        st: MessagesState = ctx.state
        route = ctx.route
        text = route.fields.get("message", "").strip()
        number = route.params.get("number")
        if route.screen == "compose" and not number:
            number = self._resolve(ctx, route.fields.get("recipient", ""))
        if not number:
            ctx.toast("Choose a contact or enter a number")
            return "not sent: no recipient"
        if not text:
            return "not sent: the message is empty"
        if not online(ctx.phone.apps):
            ctx.toast("Not sent: no network (airplane mode)")
            return "not sent: the phone is offline"
        th = st.thread_for(number)
        th.messages.append(Message(text=text, outgoing=True, time=ctx.now))
        route.fields["message"] = ""
        who = self._name(ctx, number)
        if route.screen == "compose":
            ctx.replace("thread", {"number": th.number})
            ctx.route.focus = "message"
            ctx.route.scroll["conversation"] = 10**7
        else:
            route.scroll["conversation"] = 10**7
        return f"sent {text!r} to {who}"

    # --- conversation --------------------------------------------------------------------------
    def screen_thread(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        st: MessagesState = ctx.state
        number = ctx.route.params["number"]
        th = st.thread(number)
        name = self._name(ctx, number)
        views: list[View] = [ui.app_bar(ctx, name, subtitle=number if name != number else "")]
        items: list[View] = []
        y = ctx.top + ctx.bar + u(30)
        size = u(42)
        lh = line_height(size)
        max_w = ctx.w * 7 // 10
        last_day = None
        for i, m in enumerate(th.messages if th else []):
            if m.time is not None and m.time.date() != last_day:
                last_day = m.time.date()
                items.append(Label((0, y, ctx.w, y + u(70)), m.time.strftime("%a, %b %-d"), u(34), t.sub,
                                   align="center", rid="day"))
                y += u(90)
            lines = wrap(m.text, size, max_w - u(80))
            bw = max(text_width(ln, size) for ln in lines) + u(80)
            bh = lh * len(lines) + u(60)
            x1 = ctx.w - u(40) - bw if m.outgoing else u(40)
            fill = t.accent if m.outgoing else t.card
            fg = t.on_accent if m.outgoing else t.text
            b = View((x1, y, x1 + bw, y + bh), fill=fill, radius=u(44), rid="message_bubble",
                     cls="android.widget.LinearLayout",
                     on_long=ctx.opener("message_menu", "opened the message menu", index=i))
            b.add(Label((x1 + u(40), y + u(30), x1 + bw - u(30), y + bh - u(30)), m.text, size, fg, rid="message_text",
                        max_lines=len(lines), valign="top"))
            items.append(b)
            y += bh + u(10)
            if m.time is not None:
                items.append(Label((x1, y, x1 + bw, y + u(50)), m.time.strftime("%H:%M"), u(30), t.sub,
                                   align="right" if m.outgoing else "left", rid="message_time"))
                y += u(60)
        if not th or not th.messages:
            items.append(ui.empty(ctx, (0, y, ctx.w, y + u(200)), f"Send a message to {name}"))
        views.append(ui.scroll(ctx, (0, ctx.top + ctx.bar, ctx.w, ctx.bottom - u(210)), "conversation", items))
        views += self._composer(ctx)
        return views

    def dialog_message_menu(self, ctx: Ctx, spec: dict) -> View | None:
        th = ctx.state.thread(ctx.route.params["number"])
        if th is None or spec["index"] >= len(th.messages):
            return None
        m = th.messages[spec["index"]]

        def copy() -> str:
            ctx.phone.clipboard = m.text
            ctx.close_dialog()
            ctx.toast("Copied")
            return f"copied {m.text!r}"

        def delete() -> str:
            th.messages.remove(m)
            ctx.close_dialog()
            return "deleted the message"

        return ui.menu(ctx, "Message", [("Copy text", "copy", copy), ("Delete", "delete_message", delete)])

    # --- clock ---------------------------------------------------------------------------------
    def tick(self, phone: Phone, old: datetime, new: datetime) -> str | None:
        st: MessagesState = phone.apps[self.short]  # type: ignore[assignment]
        due = [m for m in st.scheduled if m.at <= new]
        if not due:
            return None
        note = None
        for m in sorted(due, key=lambda m: m.at):
            st.scheduled.remove(m)
            th = receive(phone, m.number, m.name, m.text, m.at)
            note = f"New message from {self._name(phone, th)}"
        return note
