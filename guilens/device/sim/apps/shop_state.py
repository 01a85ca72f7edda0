"""The shop's state: products, cart, orders and the search on screen, with the catalogue kept out of it.

The default catalogue (`shop_data.shared_products()`, about 320 products) is static, so the
state does not carry it: a `ShopState` with `catalogue: default` holds in `products` only what
differs from it (a product whose price or stock changed, by id, and products added to it). That
keeps what the runner records per step (`state/NNNN.json`), a snapshot's deep copy and
`SimDevice.state()` the same size however large the catalogue grows. A setup that gives
`products` gets exactly those on sale (`catalogue: none`), as before.

Read the shelf through `shelf()` and `product(id)`; change a product through `edit(id)`, which
makes it this state's own first (the default catalogue's objects are shared and frozen, so a
stray write fails loudly instead of leaking into every other phone).
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from guilens.device.sim.apps.shop_data import shared_products


class Review(BaseModel):
    model_config = ConfigDict(extra="forbid")

    author: str
    rating: int = Field(ge=1, le=5)
    text: str


class Product(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    brand: str
    price: float = Field(ge=0)
    category: str = ""
    rating: float = Field(default=0.0, ge=0, le=5)
    review_count: int = Field(default=0, ge=0)
    sizes: list[str] = []
    colors: list[str] = []
    specs: dict[str, str] = {}
    reviews: list[Review] = []
    description: str = ""
    keywords: list[str] = []
    in_stock: bool = True


class CatalogueProduct(Product):
    """A product of the shared default catalogue: read-only (`ShopState.edit` copies it first)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@cache
def default_catalogue() -> tuple[CatalogueProduct, ...]:
    """The default catalogue as shared, frozen products, built once per process."""
    return tuple(CatalogueProduct(**p) for p in shared_products())  # validation copies what it keeps


@cache
def _default_index() -> dict[str, CatalogueProduct]:
    return {p.id: p for p in default_catalogue()}


class CartItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    product_id: str
    quantity: int = Field(default=1, ge=1)
    size: str = ""
    color: str = ""


class Order(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int
    items: list[CartItem]
    total: float
    placed: datetime


SortKey = Literal["relevance", "price_asc", "price_desc", "rating", "reviews"]
SORTS: dict[SortKey, str] = {
    "relevance": "Relevance", "price_asc": "Price: low to high", "price_desc": "Price: high to low",
    "rating": "Customer rating", "reviews": "Most reviews",
}


class ShopSearch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = ""
    brands: list[str] = []
    sizes: list[str] = []
    colors: list[str] = []
    price_min: float | None = None
    price_max: float | None = None
    sort: SortKey = "relevance"


class ShopState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    catalogue: Literal["default", "none"] = "default"
    """`default`: the default catalogue is on sale and `products` holds only what differs from it;
    `none`: `products` is everything on sale (what a setup that gives `products` gets, unless it
    says `catalogue: default` to add to the catalogue instead)."""
    products: list[Product] = []
    """With `catalogue: default`: products changed from the default catalogue (same id: a new price,
    out of stock) and products added to it; with `catalogue: none`: every product on sale."""
    cart: list[CartItem] = []
    orders: list[Order] = []
    search: ShopSearch = Field(default_factory=ShopSearch)
    """The search on screen: what the last query and filter choices were."""
    history: list[str] = []
    """Past queries, newest first."""

    @model_validator(mode="before")
    @classmethod
    def _own_shelf(cls, data: Any) -> Any:
        # A setup written before the catalogue left the state lists every product it wants on sale.
        if isinstance(data, dict) and "products" in data and "catalogue" not in data:
            return {**data, "catalogue": "none"}
        return data

    @model_validator(mode="after")
    def _known_products(self) -> ShopState:
        ids = [p.id for p in self.products]
        if len(set(ids)) != len(ids):
            raise ValueError("product ids must be unique")
        for item in self.cart:
            if self.product(item.product_id) is None:
                raise ValueError(f"cart item {item.product_id!r} is not a product id")
        return self

    def shelf(self) -> list[Product]:
        """Every product on sale, in shelf order: the default catalogue with this state's changes in
        place, then the products added to it."""
        if self.catalogue == "none":
            return self.products
        base: list[Product] = list(default_catalogue())
        if not self.products:
            return base
        own = {p.id: p for p in self.products}
        index = _default_index()
        return [own.get(p.id, p) for p in base] + [p for p in self.products if p.id not in index]

    def product(self, pid: str) -> Product | None:
        """The product `pid` as on sale (read it; change it through `edit`)."""
        for p in self.products:
            if p.id == pid:
                return p
        return _default_index().get(pid) if self.catalogue == "default" else None

    def edit(self, pid: str) -> Product | None:
        """The product `pid`, made this state's own so that it may be changed (a price change, out of
        stock); None when there is no such product."""
        for p in self.products:
            if p.id == pid:
                return p
        base = _default_index().get(pid) if self.catalogue == "default" else None
        if base is None:
            return None
        own = Product.model_validate(base.model_dump())
        self.products.append(own)
        return own

    def find(self, ref: str) -> Product | None:
        """A product by id, else by its exact name (case aside), for setups and events that name one."""
        return self.product(ref) or next((p for p in self.shelf() if p.name.casefold() == ref.casefold()), None)
