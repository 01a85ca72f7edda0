"""Ids for the records apps keep (notes, contacts, events, alarms, transactions).

A scenario's setup may leave ids out; each record then gets the smallest free
positive id, so screens and checks can refer to records by id either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar


class _Record(Protocol):
    id: Any


R = TypeVar("R", bound=_Record)


def number_records(records: Sequence[_Record]) -> None:
    """Give every record without an id the smallest id not yet taken, in list order."""
    taken = {r.id for r in records if r.id is not None}
    nxt = 1
    for r in records:
        if r.id is None:
            while nxt in taken:
                nxt += 1
            r.id = nxt
            taken.add(nxt)


def by_id(records: Sequence[R], record_id: int | None) -> R | None:
    return next((r for r in records if r.id == record_id), None)
