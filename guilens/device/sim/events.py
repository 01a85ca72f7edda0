"""Scheduled events: what reaches the phone at a clock time without the user doing anything.

ScenDroid's days are not only the user's own tasks: a message arrives at 10:15,
a colleague sends a calendar invitation, a shop changes a price overnight, and
later tasks depend on them ("reply to the message that came this morning").
A scenario declares them in its setup:

    setup:
      events:
        - {at: "2026-11-23T10:15", kind: message, from: Mom, text: "Call me after lunch?"}
        - {at: "2026-11-24T09:00", kind: invitation, from: Alice Chen, title: Design review,
           start: "2026-11-26T15:00", end: "2026-11-26T16:00", location: Room 4}
        - {at: "2026-11-25T00:00", kind: price, product: p16, price: 449.99}

The sim delivers each one itself when its virtual clock passes `at` (an action's
5 s, a wait, or the runner setting the clock for the next task): exactly once,
in time order, through the apps' own state models (a message joins its thread
unread, an invitation is a calendar event waiting for Accept or Decline, a price
is the product's price from then on). The schedule and what was delivered when
live in the phone's state (`Phone.events`, `state()["events"]`), so a snapshot
holds them and a check can read them. Nothing here reads the real clock.

Written by hand: it is the sim's own schedule of its own apps' state; no library
knows those models.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator, model_validator

from guilens.device.sim.apps.calendar import CalendarState, Event
from guilens.device.sim.apps.contacts import ContactsState, digits
from guilens.device.sim.apps.messages import receive
from guilens.device.sim.apps.shop import ShopState
from guilens.device.sim.core import Phone


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    at: datetime
    """When the event reaches the phone (the virtual clock's time, `2026-11-23T10:15`)."""

    @field_validator("at")
    @classmethod
    def _naive(cls, v: datetime) -> datetime:
        """The virtual clock has no time zone and whole seconds; so does the schedule."""
        return v.replace(tzinfo=None, microsecond=0)


class MessageEvent(_Event):
    """An incoming text: it joins the sender's thread, unread, with a notification."""

    kind: Literal["message"]
    sender: str = Field(alias="from", min_length=1)
    """A contact's name (as in Contacts) or a phone number."""
    text: str = Field(min_length=1)


class InvitationEvent(_Event):
    """A calendar invitation: a Calendar event waiting for Accept or Decline."""

    kind: Literal["invitation"]
    sender: str = Field(alias="from", min_length=1)
    """Who invites: the organizer, shown on the event."""
    title: str = Field(min_length=1)
    start: datetime
    end: datetime | None = None
    location: str = ""
    attendees: list[str] = []

    @model_validator(mode="after")
    def _order(self) -> InvitationEvent:
        if self.end is not None and self.end <= self.start:
            raise ValueError(f"the invitation {self.title!r} ends ({self.end:%Y-%m-%dT%H:%M}) before it starts")
        return self


class PriceEvent(_Event):
    """A shop price change: the product costs `price` from `at` on."""

    kind: Literal["price"]
    product: str = Field(min_length=1)
    """The product's id (`p16`) or its exact name."""
    price: float = Field(ge=0)


ScheduledEvent = Annotated[MessageEvent | InvitationEvent | PriceEvent, Field(discriminator="kind")]
_ADAPTER: TypeAdapter[MessageEvent | InvitationEvent | PriceEvent] = TypeAdapter(ScheduledEvent)


def _contact_names(contacts: ContactsState) -> str:
    names = [c.name for c in contacts.contacts]
    return ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")


def check_events(events: list[Any], apps: Any) -> list[Any]:
    """Events that name what the phone has: a known contact (or a number), a known product.

    `apps` is the setup's apps (a model with one optional state per app); an app left out
    is checked against its default state. Raises ValueError with one line naming the event
    and the value that is wrong.
    """
    contacts = getattr(apps, "contacts", None) or ContactsState()
    shop: ShopState | None = getattr(apps, "shop", None)
    for i, e in enumerate(events):
        where = f"event {i + 1} ({e.kind} at {e.at:%Y-%m-%dT%H:%M})"
        if isinstance(e, MessageEvent | InvitationEvent):
            is_number = len(digits(e.sender)) >= 3 and all(ch.isdigit() or ch in "+-() ." for ch in e.sender)
            if not is_number and contacts.by_name(e.sender) is None:
                raise ValueError(f"{where}: from {e.sender!r} is no contact (contacts: {_contact_names(contacts)})"
                                 " and no phone number")
        if isinstance(e, PriceEvent):
            shop = shop or ShopState()
            if shop.find(e.product) is None:
                shelf = shop.shelf()
                raise ValueError(f"{where}: no product {e.product!r} in the shop (give its id, e.g. "
                                 f"{shelf[0].id if shelf else 'p1'}, or its exact name)")
    return events


def schedule(events: list[Any]) -> list[dict[str, Any]]:
    """The phone's schedule: each event as plain data (snapshots deep-copy it), not yet delivered."""
    rows = [e.model_dump(mode="json", by_alias=True) | {"delivered": None} for e in events]
    return sorted(rows, key=lambda r: r["at"])


def deliver(phone: Phone, now: datetime) -> str | None:
    """Deliver every event due by `now` that was not delivered yet, oldest first; return the notification
    of the last one that gives one (the status-bar heads-up the sim shows as a toast)."""
    note = None
    for row in phone.events:
        if row["delivered"] is not None or datetime.fromisoformat(row["at"]) > now:
            continue
        event = _ADAPTER.validate_python({k: v for k, v in row.items() if k != "delivered"})
        said = _apply(phone, event)
        row["delivered"] = now.isoformat()
        note = said or note
    return note


def _apply(phone: Phone, e: MessageEvent | InvitationEvent | PriceEvent) -> str | None:
    if isinstance(e, MessageEvent):
        return _message(phone, e)
    if isinstance(e, InvitationEvent):
        return _invitation(phone, e)
    shop: ShopState = phone.apps["shop"]  # type: ignore[assignment]
    found = shop.find(e.product)
    own = shop.edit(found.id) if found is not None else None  # the state's own copy, not the catalogue's
    if own is not None:
        own.price = round(e.price, 2)
    return None


def _message(phone: Phone, e: MessageEvent) -> str:
    contacts: ContactsState = phone.apps["contacts"]  # type: ignore[assignment]
    contact = contacts.by_name(e.sender)
    number = contact.phone if contact is not None and contact.phone else e.sender
    name = contact.name if contact is not None else ""
    receive(phone, number, name, e.text, e.at)
    return f"New message from {name or number}"


def _invitation(phone: Phone, e: InvitationEvent) -> str:
    st: CalendarState = phone.apps["calendar"]  # type: ignore[assignment]
    end = e.end or e.start + timedelta(hours=1)
    attendees = [e.sender, *(a for a in e.attendees if a != e.sender)]
    st.events.append(Event(id=max((x.id or 0 for x in st.events), default=0) + 1, title=e.title, start=e.start,
                           end=end, location=e.location, attendees=attendees, organizer=e.sender,
                           response="pending"))
    return f"Invitation from {e.sender}: {e.title}"
