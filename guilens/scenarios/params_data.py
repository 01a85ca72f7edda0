"""The pools parameters are drawn from: the simulated phone's default data, read at draw time.

The one place guilens reads the sim's data for templates, through its public entry points: the
shop's catalogue (`shop_data.shared_products()`) and each app's `default_state()` model from the
registry (contacts, search facts, map places and routes). Nothing is copied: the pools grow and
change with the sim's data, so a template drawn from "a product" reaches every product the shop
has. Each item is flattened to the `{name}` and `{name_<field>}` strings a template uses
(`params_spec.FIELDS`), in the data's own order, so a draw by seed is stable for given data.
"""

from __future__ import annotations

import functools
from typing import Any

Item = dict[str, Any]
"""One item of a pool: `name`, then its kind's fields (strings, and numbers where they compare)."""


def _state(app: str) -> Any:
    from guilens.device.sim.registry import ALL

    return ALL[app].default_state()


def _money(x: float) -> str:
    return f"{x:.2f}"


def _products() -> list[Item]:
    from guilens.device.sim.apps.shop_data import shared_products

    return [{"name": p["name"], "id": p["id"], "brand": p.get("brand", ""), "category": p.get("category", ""),
             "price": float(p["price"]), "rating": float(p.get("rating") or 0)} for p in shared_products()]


def _contacts() -> list[Item]:
    return [{"name": c.name, "phone": c.phone, "email": c.email, "company": c.company,
             "first": c.name.split()[0]} for c in _state("contacts").contacts]


def _facts() -> list[Item]:
    return [{"name": f.title, "fact": f.fact, "query": f.keywords[0], "url": f.url, "snippet": f.snippet}
            for f in _state("search").facts]


def _places() -> list[Item]:
    return [{"name": p.name, "address": p.address} for p in _state("maps").places]


def _routes() -> list[Item]:
    out = []
    for r in _state("maps").routes:
        out.append({"name": f"{r.origin} to {r.destination}", "origin": r.origin, "destination": r.destination,
                    "drive": r.drive if r.drive is not None else "", "transit": r.transit if r.transit is not None else "",
                    "walk": r.walk if r.walk is not None else "",
                    "distance_km": r.distance_km if r.distance_km is not None else "", "via": r.via})
    return out


_READERS = {"product": _products, "contact": _contacts, "fact": _facts, "place": _places, "route": _routes}
WHAT = {"product": "product in the sim's catalogue", "contact": "contact in the sim's Contacts",
        "fact": "search fact in the sim's Search app", "place": "place in the sim's Maps",
        "route": "route in the sim's Maps"}
"""How a bad-filter message names each pool."""


@functools.cache
def pool(kind: str) -> tuple[Item, ...]:
    """Every item of a kind, in the data's order (read once per process: the defaults are fixed for it)."""
    return tuple(_READERS[kind]())


def text(field: str, value: Any) -> str:
    """An item's field as a template writes it: a price with two decimals (as the shop shows it),
    other numbers as short as they go (4.7, 2.4, 18)."""
    if field == "price" and isinstance(value, int | float):
        return _money(float(value))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
