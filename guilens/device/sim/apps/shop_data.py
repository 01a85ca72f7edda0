"""The shop's default catalogue, used when a setup does not give `apps.shop.products`.

The first 21 rows are modelled on the MemGUI-Bench and ScenDroid shopping tasks (running shoes
by brand and size, ALDO in black, Sony headphones and a Logitech mouse, a green folding patio
table), with fixed prices, ratings and reviews; the built-in packs read them, so they stay as
they are and first. The rest, about 300 products over eleven categories, is expanded from the
fixed tables of `guilens.device.sim.data.catalogue`.

`default_products()` is the one public source of the full default catalogue (a fresh list of
dicts each call); the shop's state holds only what differs from it (see `apps.shop.ShopState`).
`shared_products()` is the same catalogue uncopied, for readers that build their own values from
it (the shop's frozen products, a template's pool of products): the deep copy of 320 products is
15-20 ms, a good part of checking the built-in packs.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from guilens.device.sim.data.catalogue import catalogue_rows

_SHOE_SIZES = ["7", "8", "9", "10", "11", "12"]

# (id, name, brand, category, price, rating, review_count, sizes, colors, specs, description, keywords)
_ROWS: list[tuple[Any, ...]] = [
    ("p01", "ASICS Gel-Nimbus 25 Men's Running Shoes", "ASICS", "Shoes", 159.95, 4.7, 2841, _SHOE_SIZES,
     ["Black", "Blue", "White"], {"Drop": "8 mm", "Weight": "300 g", "Upper": "Engineered knit"},
     "Soft, cushioned daily trainer for long runs.", ["running", "shoes", "men", "sneakers"]),
    ("p02", "ASICS Gel-Kayano 30 Men's Running Shoes", "ASICS", "Shoes", 164.95, 4.6, 1932, _SHOE_SIZES,
     ["Black", "Grey"], {"Drop": "10 mm", "Weight": "310 g", "Support": "Stability"},
     "Stability running shoe with 4D guidance.", ["running", "shoes", "men", "sneakers"]),
    ("p03", "Nike Pegasus 40 Men's Road Running Shoes", "Nike", "Shoes", 129.99, 4.5, 5120, _SHOE_SIZES,
     ["Black", "White", "Red"], {"Drop": "10 mm", "Weight": "285 g", "Upper": "Mesh"},
     "A springy everyday trainer.", ["running", "shoes", "men", "sneakers"]),
    ("p04", "Adidas Ultraboost Light Men's Running Shoes", "Adidas", "Shoes", 189.99, 4.4, 3377, _SHOE_SIZES,
     ["Black", "White"], {"Drop": "10 mm", "Weight": "300 g", "Midsole": "Light BOOST"},
     "Responsive cushioning for city runs.", ["running", "shoes", "men", "sneakers"]),
    ("p05", "Brooks Ghost 15 Women's Running Shoes", "Brooks", "Shoes", 139.95, 4.8, 4210,
     ["6", "7", "8", "9", "10"], ["Blue", "Pink", "Black"], {"Drop": "12 mm", "Weight": "255 g"},
     "Smooth, balanced cushioning.", ["running", "shoes", "women", "sneakers"]),
    ("p06", "New Balance Fresh Foam 880v13 Men's Running Shoes", "New Balance", "Shoes", 134.99, 4.5, 987,
     _SHOE_SIZES, ["Grey", "Blue"], {"Drop": "10 mm", "Weight": "295 g"},
     "Versatile daily running shoe.", ["running", "shoes", "men", "sneakers"]),
    ("p07", "ALDO Grandspec Men's Oxford Dress Shoes", "ALDO", "Shoes", 110.00, 4.3, 412, _SHOE_SIZES,
     ["Black", "Brown"], {"Upper": "Leather", "Sole": "Rubber"},
     "Polished leather oxfords for the office.", ["dress", "shoes", "men", "formal"]),
    ("p08", "ALDO Brogan Men's Loafers", "ALDO", "Shoes", 95.00, 4.1, 268, _SHOE_SIZES, ["Black", "Tan"],
     {"Upper": "Suede", "Sole": "Rubber"}, "Slip-on suede loafers.", ["loafers", "shoes", "men"]),
    ("p09", "ALDO Women's Block Heel Ankle Boots", "ALDO", "Shoes", 130.00, 4.2, 351,
     ["6", "7", "8", "9"], ["Black", "Brown"], {"Heel": "6 cm", "Upper": "Leather"},
     "Everyday ankle boots with a stable block heel.", ["boots", "shoes", "women"]),
    ("p10", "Sony WH-1000XM5 Wireless Noise Cancelling Headphones", "Sony", "Electronics", 398.00, 4.6, 12894,
     [], ["Black", "Silver"], {"Battery life": "30 hours", "Weight": "250 g", "Bluetooth": "5.2",
                               "Noise cancelling": "Yes"},
     "Industry-leading noise cancelling over-ear headphones.", ["headphones", "wireless", "bluetooth"]),
    ("p11", "Bose QuietComfort 45 Bluetooth Headphones", "Bose", "Electronics", 329.00, 4.5, 8420, [],
     ["Black", "White"], {"Battery life": "24 hours", "Weight": "240 g", "Bluetooth": "5.1"},
     "Comfortable noise cancelling headphones.", ["headphones", "wireless", "bluetooth"]),
    ("p12", "Sony WH-CH720N Wireless Headphones", "Sony", "Electronics", 149.99, 4.3, 3120, [],
     ["Black", "Blue", "White"], {"Battery life": "35 hours", "Weight": "192 g", "Bluetooth": "5.2"},
     "Lightweight noise cancelling headphones.", ["headphones", "wireless", "bluetooth"]),
    ("p13", "Logitech MX Master 3S Wireless Performance Mouse", "Logitech", "Electronics", 99.99, 4.7, 6541,
     [], ["Graphite", "Pale Grey"], {"DPI": "8000", "Battery": "70 days", "Connection": "Bluetooth, USB"},
     "Quiet clicks and a MagSpeed scroll wheel.", ["mouse", "wireless", "computer"]),
    ("p14", "Logitech M185 Wireless Mouse", "Logitech", "Electronics", 14.99, 4.5, 25310, [],
     ["Grey", "Blue", "Red"], {"DPI": "1000", "Battery": "12 months", "Connection": "USB receiver"},
     "Compact, reliable wireless mouse.", ["mouse", "wireless", "computer"]),
    ("p15", "Xiaomi Redmi Note 13 Smartphone 8GB 256GB", "Xiaomi", "Electronics", 199.00, 4.4, 2210, [],
     ["Black", "Blue", "Green"], {"RAM": "8 GB", "Storage": "256 GB", "Charging": "33W fast charging",
                                  "Screen": "6.67 in AMOLED"},
     "Big AMOLED screen and all-day battery.", ["phone", "smartphone", "android"]),
    ("p16", "Outdoor Patio Folding Side Table", "Greenhaven", "Home", 539.99, 4.2, 184, [],
     ["Green", "Black"], {"Material": "Powder-coated steel", "Size": "50 x 50 x 60 cm", "Weight": "6 kg"},
     "A sturdy folding table for balcony and garden.", ["patio", "table", "outdoor", "garden", "folding"]),
    ("p17", "Teak Outdoor Folding Chair", "Greenhaven", "Home", 89.50, 4.0, 96, [], ["Natural"],
     {"Material": "Teak", "Weight": "5 kg"}, "A classic folding teak chair.", ["patio", "chair", "outdoor"]),
    ("p18", "Drip Coffee Maker 12-Cup", "Brewline", "Home", 49.99, 4.3, 7730, [], ["Black", "Silver"],
     {"Capacity": "12 cups", "Power": "900 W", "Timer": "Programmable"},
     "Programmable drip coffee maker with keep-warm plate.", ["coffee", "kitchen", "maker"]),
    ("p19", "Men's Classic Cotton T-Shirt", "Uniqlo", "Clothing", 14.90, 4.4, 4033, ["S", "M", "L", "XL"],
     ["White", "Black", "Navy"], {"Material": "100% cotton", "Fit": "Regular"},
     "Soft everyday crew-neck tee.", ["shirt", "tshirt", "men", "tee"]),
    ("p20", "Women's Lightweight Down Jacket", "Uniqlo", "Clothing", 79.90, 4.6, 2890, ["XS", "S", "M", "L"],
     ["Black", "Beige", "Red"], {"Fill": "90% down", "Packable": "Yes"},
     "Warm, light and packs into its own pouch.", ["jacket", "coat", "women", "down"]),
    ("p21", "Travel Backpack 35L", "Osprey", "Bags", 159.00, 4.8, 1502, [], ["Black", "Green"],
     {"Volume": "35 L", "Weight": "1.3 kg", "Laptop sleeve": "16 in"}, "Carry-on sized travel pack.",
     ["backpack", "bag", "travel"]),
]

_REVIEWS = [
    ("Jordan", 5, "Exactly as described. Very comfortable and arrived quickly."),
    ("Priya", 4, "Great quality for the price, though it runs slightly small."),
    ("Marco", 3, "Decent, but I expected a bit more for this price."),
    ("Lena", 5, "Second one I have bought. Would recommend to anyone."),
    ("Sam", 2, "Stopped working properly after a few weeks."),
    ("Aiko", 4, "Looks great. Took a few days to get used to."),
]


def default_products() -> list[dict[str, Any]]:
    """The full default catalogue as product dicts (the shape of `apps.shop.Product`), in shelf order."""
    return copy.deepcopy(_catalogue())


def shared_products() -> Sequence[Mapping[str, Any]]:
    """The same catalogue, not copied: shared by every caller, so nothing may change it or what it holds."""
    return _catalogue()


@cache
def _catalogue() -> list[dict[str, Any]]:
    out = []
    for i, (pid, name, brand, cat, price, rating, count, sizes, colors, specs, desc, kw) in enumerate(_ROWS):
        reviews = [
            {"author": a, "rating": r, "text": t}
            for a, r, t in (_REVIEWS[(i + k) % len(_REVIEWS)] for k in range(3))
        ]
        out.append({
            "id": pid, "name": name, "brand": brand, "category": cat, "price": price, "rating": rating,
            "review_count": count, "sizes": list(sizes), "colors": list(colors), "specs": dict(specs),
            "description": desc, "keywords": list(kw), "reviews": reviews,
        })
    return out + catalogue_rows(len(_ROWS) + 1)
