"""The shop's default catalogue: hundreds of products kept out of the per-step state, strict
all-words search, and results that come a page at a time."""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
import sys

import pytest
from pydantic import ValidationError
from sim_helpers import Driver

from guilens.device.sim import SimDevice
from guilens.device.sim.apps.shop import PAGE_SIZE, ShopSearch, ShopState, search_products
from guilens.device.sim.apps.shop_data import default_products
from guilens.device.sim.apps.shop_search import matches

_DIGEST = ("import hashlib, json; from guilens.device.sim.apps.shop_data import default_products; "
           "print(hashlib.sha256(json.dumps(default_products(), sort_keys=True).encode()).hexdigest())")


def test_catalogue_has_hundreds_of_products_over_many_categories() -> None:
    rows = default_products()
    assert len(rows) >= 300
    assert len({r["category"] for r in rows}) >= 10
    assert len({r["id"] for r in rows}) == len(rows)
    assert len({r["name"] for r in rows}) == len(rows)
    assert all(len(r["name"]) <= 52 and r["price"] > 0 and 0 < r["rating"] <= 5 and r["reviews"] for r in rows)
    shoes = [r for r in rows if r["category"] == "Shoes"]
    assert all(r["sizes"] for r in shoes)
    state = ShopState()  # every row is a valid product on the default shelf
    assert len(state.shelf()) == len(rows)


def test_catalogue_keeps_the_first_rows_and_is_the_same_in_every_process() -> None:
    rows = default_products()
    assert [r["id"] for r in rows[:21]] == [f"p{i:02d}" for i in range(1, 22)]
    p16 = rows[15]
    assert (p16["name"], p16["price"], p16["colors"]) == ("Outdoor Patio Folding Side Table", 539.99, ["Green", "Black"])
    assert (rows[9]["name"], rows[9]["price"]) == ("Sony WH-1000XM5 Wireless Noise Cancelling Headphones", 398.00)
    here = hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()
    there = subprocess.run([sys.executable, "-c", _DIGEST], capture_output=True, text=True, check=True).stdout.strip()
    assert here == there
    rows[0]["price"] = 1.0  # a caller's copy: changing it changes nothing for the next caller
    assert default_products()[0]["price"] == 159.95


def test_search_needs_every_word_so_appended_text_narrows_to_nothing() -> None:
    st = ShopState()
    assert [p.id for p in search_products(st, ShopSearch(query="Drip Coffee Maker 12-Cup"))][:1] == ["p18"]
    assert search_products(st, ShopSearch(query="patio side tableDrip Coffee Maker 12-Cup")) == []
    assert search_products(st, ShopSearch(query="patio side table coffee")) == []
    wide = search_products(st, ShopSearch(query="running shoes"))
    narrow = search_products(st, ShopSearch(query="running shoes hoka"))
    assert len(wide) > len(narrow) > 0 and all(p.brand == "Hoka" for p in narrow)
    # case and simple plurals fold; filler words are dropped
    assert matches(st.shelf(), "BOOTS") == matches(st.shelf(), "boot") == matches(st.shelf(), "the boots")
    assert matches(st.shelf(), "watches") == matches(st.shelf(), "watch") != []


def test_no_results_screen_names_the_query() -> None:
    d = Driver()
    d.open("shop")
    d.tap("id:search_box")
    d.type("patio side tableDrip Coffee Maker 12-Cup")
    assert d.key("enter") == "searched for 'patio side tableDrip Coffee Maker 12-Cup': 0 results"
    assert d.has("No results for “patio side tableDrip Coffee Maker 12-Cup”. Check the spelling, use fewer "
                 "words or remove filters.")
    assert d.texts("product_name") == []


def test_home_search_box_is_empty_after_a_search() -> None:
    d = Driver()
    d.open("shop")
    d.tap("id:search_box")
    d.type("patio side table")
    d.key("enter")
    d.key("back")
    assert d.state()["fields"].get("search_box", "") == ""
    d.tap("id:search_box")
    d.type("Drip Coffee Maker 12-Cup")
    d.key("enter")
    assert d.texts("product_name")[0] == "Drip Coffee Maker 12-Cup"


def _results_footer(d: Driver) -> str:
    d.scroll_to("id:results_page", tries=12)
    return d.node("id:results_page").text


def test_results_come_a_page_at_a_time() -> None:
    d = Driver()
    d.open("shop")
    d.tap("id:search_box")
    d.type("shoes")
    d.key("enter")
    total = len(search_products(ShopState(), ShopSearch(query="shoes")))
    pages = math.ceil(total / PAGE_SIZE)
    assert pages >= 3
    assert d.node("id:result_count").text == f"{total} results for “shoes”"
    assert _results_footer(d) == f"Page 1 of {pages} · {PAGE_SIZE} of {total} shown"
    assert d.tap("Load more") == f"loaded more results: page 2 of {pages}, {2 * PAGE_SIZE} of {total} shown"
    assert d.state()["route"]["page"] == 2
    assert _results_footer(d) == f"Page 2 of {pages} · {2 * PAGE_SIZE} of {total} shown"
    # scrolling on past the end loads the next page, as infinite scroll does
    assert d.swipe_up(1200) == f"loaded more results: page 3 of {pages}, {min(total, 3 * PAGE_SIZE)} of {total} shown"
    # a new search starts again at page 1
    d.fill("search_box", "boots")
    d.key("enter")
    assert "page" not in d.state()["route"]


def test_products_beyond_the_first_page_are_reached_by_scrolling() -> None:
    d = Driver()
    d.open("shop")
    d.tap("id:search_box")
    d.type("shoes")
    d.key("enter")
    found = search_products(ShopState(), ShopSearch(query="shoes"))
    eleventh = found[PAGE_SIZE].name
    seen: list[str] = []
    for _ in range(6):
        seen += d.texts("product_name")
        d.swipe_up(1200)
    assert eleventh in seen and found[0].name in seen


def test_catalogue_stays_out_of_the_state_and_snapshots() -> None:
    dev = SimDevice()
    shop = dev.state()["apps"]["shop"]
    assert shop["catalogue"] == "default" and shop["products"] == []
    small = len(json.dumps(shop))
    full = SimDevice(setup={"apps": {"shop": {"products": default_products()}}})
    assert full.state()["apps"]["shop"]["catalogue"] == "none"
    assert len(json.dumps(full.state()["apps"]["shop"])) > 100 * small
    snap = dev.snapshot()
    assert snap.apps["shop"].products == []  # type: ignore[attr-defined]


def test_a_changed_product_is_the_only_one_in_the_state() -> None:
    dev = SimDevice()
    st: ShopState = dev._phone.apps["shop"]  # type: ignore[assignment]
    p = st.edit("p16")
    assert p is not None
    p.price = 499.0
    assert [x["id"] for x in dev.state()["apps"]["shop"]["products"]] == ["p16"]
    assert st.product("p16").price == 499.0  # type: ignore[union-attr]
    assert [x.price for x in st.shelf() if x.id == "p16"] == [499.0]
    assert len(st.shelf()) == len(default_products())
    assert ShopState().product("p16").price == 539.99  # type: ignore[union-attr]  # other phones keep the default
    with pytest.raises(ValidationError):
        ShopState().product("p17").price = 1.0  # type: ignore[union-attr]  # defaults are shared: read-only
    assert st.edit("nope") is None and st.find("drip coffee maker 12-cup").id == "p18"  # type: ignore[union-attr]


def test_setup_products_replace_or_join_the_catalogue() -> None:
    extra = [{"id": "x1", "name": "Green Widget", "brand": "Acme", "price": 5}]
    alone = ShopState.model_validate({"products": extra})
    assert [p.id for p in alone.shelf()] == ["x1"]
    joined = ShopState.model_validate({"catalogue": "default", "products": extra})
    assert len(joined.shelf()) == len(default_products()) + 1 and joined.shelf()[-1].id == "x1"
    with pytest.raises(ValidationError, match="not a product id"):
        ShopState.model_validate({"products": extra, "cart": [{"product_id": "p01"}]})
    assert ShopState.model_validate({"cart": [{"product_id": "p200"}]}).cart[0].product_id == "p200"
