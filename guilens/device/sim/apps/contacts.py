"""Contacts: an alphabetical, searchable list; details with Message; add, edit and delete."""

from __future__ import annotations

from functools import partial

from pydantic import BaseModel, ConfigDict, Field, model_validator

import guilens.device.sim.icons as icons
import guilens.device.sim.ui as ui
from guilens.device.sim.core import App, Ctx
from guilens.device.sim.data.people import more_contacts
from guilens.device.sim.kit import Label, View
from guilens.device.sim.records import by_id, number_records


class Contact(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int | None = None
    name: str
    phone: str = ""
    email: str = ""
    company: str = ""
    address: str = ""


class ContactsState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    contacts: list[Contact] = Field(default_factory=lambda: [
        Contact(name="Alice Chen", phone="+1 415 555 0101", email="alice@example.com", company="Northwind"),
        Contact(name="Bob Martin", phone="+1 415 555 0102", email="bob@example.com"),
        Contact(name="Carla Diaz", phone="+1 415 555 0103", company="Contoso"),
        Contact(name="Mom", phone="+1 415 555 0199"),
        *(Contact(**c) for c in more_contacts()),
    ])
    """The first four are the built-in tasks' people; the rest (`data.people`) fill the list as a phone's would."""

    @model_validator(mode="after")
    def _ids(self) -> ContactsState:
        number_records(self.contacts)
        return self

    def get(self, cid: int | None) -> Contact | None:
        return by_id(self.contacts, cid)

    def by_number(self, number: str) -> Contact | None:
        want = digits(number)
        return next((c for c in self.contacts if want and digits(c.phone) == want), None)

    def by_name(self, name: str) -> Contact | None:
        key = name.strip().casefold()
        exact = [c for c in self.contacts if c.name.casefold() == key]
        if exact:
            return exact[0]
        part = [c for c in self.contacts if key and key in c.name.casefold()]
        return part[0] if len(part) == 1 else None


def digits(s: str) -> str:
    return "".join(ch for ch in s if ch.isdigit())


_FIELDS = (("name", "Name"), ("phone", "Phone"), ("email", "Email"), ("company", "Company"), ("address", "Address"))


class Contacts(App):
    short = "contacts"
    label = "Contacts"
    accent = (30, 136, 229)
    icon = "person"
    State = ContactsState

    def screen_main(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        st: ContactsState = ctx.state
        views: list[View] = [ui.app_bar(ctx, "Contacts", back=False)]
        top = ctx.top + ctx.bar
        sf = ui.field(ctx, (u(40), top + u(16), ctx.w - u(40), top + u(146)), "search", "Search contacts")
        views.append(sf)
        cb = ui.clear_button(ctx, sf, "Search contacts")
        if cb:
            views.append(cb)
        q = ctx.field("search").strip().casefold()
        shown = sorted((c for c in st.contacts if not q or q in c.name.casefold() or q in digits(c.phone) and
                        digits(q) or q in c.email.casefold()), key=lambda c: c.name.casefold())
        col = ui.Column(u(40), top + u(180), ctx.w - u(40))
        items: list[View] = []
        letter = ""
        for c in shown:
            first = (c.name[:1] or "#").upper()
            if first != letter:
                letter = first
                items.append(ui.section(ctx, col, letter))
            items.append(ui.row(ctx, col.next(u(170), u(16)), c.name, c.phone, rid="contact", title_id="contact_name",
                                sub_id="contact_phone", on_tap=partial(self._open, ctx, c),
                                on_long=ctx.opener("contact_menu", f"opened the menu of {c.name}", id=c.id),
                                lead=partial(ui.avatar, name=c.name)))
        if not shown:
            items.append(ui.empty(ctx, col.next(u(300)), "No contacts found" if q else "No contacts yet"))
        col.skip(u(240))
        items.append(View((0, col.y - 2, 1, col.y)))
        views.append(ui.scroll(ctx, (0, top + u(170), ctx.w, ctx.bottom), "contact_list", items))
        views.append(ui.fab(ctx, "Add contact", "add_contact", lambda: self._edit(ctx, None)))
        return views

    def _open(self, ctx: Ctx, c: Contact) -> str:
        ctx.push("details", {"id": c.id})
        return f"opened contact {c.name}"

    def _edit(self, ctx: Ctx, c: Contact | None) -> str:
        fields = {k: getattr(c, k) for k, _ in _FIELDS} if c else {k: "" for k, _ in _FIELDS}
        ctx.push("edit", {"id": c.id if c else None}, fields, focus=None if c else "name")
        return f"editing {c.name}" if c else "adding a contact"

    def dialog_contact_menu(self, ctx: Ctx, spec: dict) -> View | None:
        c = ctx.state.get(spec["id"])
        if c is None:
            return None
        return ui.menu(ctx, c.name, [
            ("Edit", "edit", ctx.closing(lambda: self._edit(ctx, c))),
            ("Delete", "delete_contact", ctx.opener("confirm_delete", "asked to confirm", id=c.id)),
        ])

    def dialog_confirm_delete(self, ctx: Ctx, spec: dict) -> View | None:
        st: ContactsState = ctx.state
        c = st.get(spec["id"])
        if c is None:
            return None

        def delete() -> str:
            st.contacts.remove(c)
            ctx.close_dialog()
            while ctx.route.screen != "main":
                ctx.pop()
            ctx.toast("Contact deleted")
            return f"deleted contact {c.name}"

        def cancel() -> str:
            ctx.close_dialog()
            return "kept the contact"

        return ui.dialog(ctx, f"Delete {c.name}?", "This contact will be removed from your phone.",
                         [("Cancel", "button2", cancel), ("Delete", "button1", delete)], dismiss=cancel)

    def screen_details(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        c = ctx.state.get(ctx.route.params.get("id"))
        if c is None:
            ctx.pop()
            return self.build(ctx)
        views: list[View] = [ui.record_bar(ctx, "", c.id, lambda: self._edit(ctx, c))]
        y = ctx.top + ctx.bar + u(30)
        ar = (ctx.w // 2 - u(130), y, ctx.w // 2 + u(130), y + u(260))
        views.append(View(ar, cls="android.widget.ImageView", desc="Contact photo",
                          paint=lambda cv, v: ui.avatar(cv, v.bounds, c.name)))
        views.append(Label((u(40), y + u(290), ctx.w - u(40), y + u(400)), c.name, u(68), t.text, align="center",
                           rid="contact_name", bold=True))
        if c.company:
            views.append(Label((u(40), y + u(400), ctx.w - u(40), y + u(460)), c.company, u(40), t.sub,
                               align="center", rid="contact_company"))
        by = y + u(500)
        bw = (ctx.w - u(160)) // 2
        if c.phone:
            views.append(ui.button(ctx, (u(60), by, u(60) + bw, by + u(130)), "Message", "message",
                                   lambda: self._message(ctx, c), style="tonal", icon=icons.bubble))
            views.append(ui.button(ctx, (ctx.w - u(60) - bw, by, ctx.w - u(60), by + u(130)), "Call", "call",
                                   lambda: f"calling {c.phone} (calls are not simulated)", style="tonal",
                                   icon=icons.phone))
        col = ui.Column(u(40), by + u(190), ctx.w - u(40))
        for key, label, icon in (("phone", "Phone", icons.phone), ("email", "Email", icons.bubble),
                                 ("address", "Address", icons.pin)):
            value = getattr(c, key)
            if value:
                views.append(ui.row(ctx, col.next(u(190), u(20)), value, label, rid=f"row_{key}",
                                    title_id=f"contact_{key}", lead=icons.tinted(icon, t.accent)))
        return views

    def _message(self, ctx: Ctx, c: Contact) -> str:
        ctx.open_app("messages", "thread", {"number": c.phone}, focus="message")
        ctx.phone.stacks["messages"][-1].scroll["conversation"] = 10**7  # at the latest text, as a phone opens it
        return f"opened a conversation with {c.name}"

    def screen_edit(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        cid = ctx.route.params.get("id")
        views: list[View] = [ui.editor_bar(ctx, "Edit contact" if cid else "New contact", lambda: self._save(ctx))]
        col = ui.Column(u(48), ctx.top + ctx.bar + u(20), ctx.w - u(48))
        items: list[View] = []
        for key, label in _FIELDS:
            items += ui.labeled_field(ctx, col, key, label, height=140)
        views.append(ui.scroll(ctx, (0, ctx.top + ctx.bar, ctx.w, ctx.bottom), "form", items))
        return views

    def _save(self, ctx: Ctx) -> str:
        st: ContactsState = ctx.state
        f = ctx.route.fields
        name = f.get("name", "").strip()
        if not name:
            ctx.toast("Enter a name")
            return "not saved: the name is empty"
        values = {k: f.get(k, "").strip() for k, _ in _FIELDS}
        c = st.get(ctx.route.params.get("id"))
        if c is None:
            c = Contact(id=max((x.id or 0 for x in st.contacts), default=0) + 1, **values)
            st.contacts.append(c)
            ctx.replace("details", {"id": c.id})
            ctx.toast("Contact saved")
            return f"added contact {name}"
        for k, v in values.items():
            setattr(c, k, v)
        ctx.pop()
        ctx.toast("Contact saved")
        return f"saved contact {name}"

