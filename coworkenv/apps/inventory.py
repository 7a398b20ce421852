"""Inventory: stock items with quantities at locations, suppliers and prices, a ledger of every stock movement,
and purchase orders."""

from __future__ import annotations

from typing import Any, Literal

from coworkenv.apps._common import clamp, dump, dump_many
from coworkenv.tools import ToolError, Toolkit, read, service_args, write
from coworkenv.world import AppDef, AppState, Key, Order, Record, Words, format_time


class Location(Record):
    name: str
    kind: str = "warehouse"


class Item(Record):
    """Stock of one product at one location; id is `<sku>@<location>`."""

    sku: str
    name: str
    location: str
    quantity: int = 0
    reorder_level: int = 0
    unit: str = "pcs"
    category: str = ""
    supplier: str = ""
    # int | float: a whole price stays an int, so its JSON form is the same validated or not (record digests)
    unit_cost: int | float | None = None  # what one unit costs to buy
    unit_price: int | float | None = None  # what one unit sells for
    lead_time_days: int | None = None  # days from a purchase order to the delivery
    notes: str = ""


class Movement(Record):
    item: str
    delta: int
    reason: str
    by: str = ""
    at: str = ""


class PurchaseOrder(Record):
    """An order of units of an item from a supplier; the stock changes when the delivery is received."""

    item: str
    quantity: int
    supplier: str
    status: Literal["placed", "received", "cancelled"] = "placed"
    expected_at: str | None = None  # ISO-8601 UTC: order time + the item's lead time, when it has one
    by: str = ""
    at: str = ""


class InventoryState(AppState):
    locations: list[Location] = []
    items: list[Item] = []
    movements: list[Movement] = []
    orders: list[PurchaseOrder] = []


class InventoryTools(Toolkit):
    app = "inventory"

    @read
    def list_locations(self) -> list[dict[str, Any]]:
        """List the stock locations."""
        return dump_many(self.world.table("inventory", "locations").select("id"))

    @read
    def search_items(
        self, query: str = "", location: str | None = None, below_reorder: bool = False, limit: int = 50,
        category: str | None = None, supplier: str | None = None,
    ) -> list[dict[str, Any]]:
        """Find stock items by words in sku, name, category or supplier, sorted by item id.

        Args:
            query: Words that must all occur (empty matches every item).
            location: Only items at this location id.
            below_reorder: Only items whose quantity is below their reorder level.
            limit: Maximum number of items.
            category: Only items of this category (exact, any case).
            supplier: Only items from this supplier (exact, any case).
        """
        table = self.world.table("inventory", "items")
        sets = [
            # Low stock at one location is one set, not the meet of two large ones.
            (table.key("low_at").ids(location) if below_reorder else table.key("location").ids(location))
            if location is not None else None,
            table.key("low").ids(True) if below_reorder and location is None else None,
            table.key("category").ids(category.strip().lower()) if category is not None else None,
            table.key("supplier").ids(supplier.strip().lower()) if supplier is not None else None,
        ]
        return dump_many(table.select("id", words=("text", query), sets=sets, limit=clamp(limit)))

    @read
    def get_item(self, item_id: str) -> dict[str, Any]:
        """Get a stock item and its recent movements (newest first).

        Args:
            item_id: Item id, `<sku>@<location>`.
        """
        item = self._item(item_id)
        table = self.world.table("inventory", "movements")
        moves = table.select("at", sets=[table.key("item").ids(item_id)], reverse=True, limit=10)
        return {**dump(item), "movements": dump_many(moves, "delta", "reason", "at")}

    @read
    def list_orders(self, item_id: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """List purchase orders, newest first.

        Args:
            item_id: Only orders of this item.
            limit: Maximum number of orders.
        """
        table = self.world.table("inventory", "orders")
        sets = [table.key("item").ids(item_id) if item_id is not None else None]
        return dump_many(table.select("at", sets=sets, reverse=True, limit=clamp(limit)))

    @write
    @service_args("as_written")
    def create_order(self, item_id: str, quantity: int, supplier: str | None = None,
                     as_written: bool = False) -> dict[str, Any]:
        """Order units of an item from a supplier (the stock rises when the delivery is received, not now).

        Args:
            item_id: Item id, `<sku>@<location>`.
            quantity: Units to order (positive).
            supplier: Supplier to order from; default the item's supplier.
            as_written: Record the order as given, as an ordering service that checks nothing does: an item id no
                item has (the id as written; such an order has no item to restock and no expected delivery), any
                quantity, no supplier (else these are refused).
        """
        item = self._item(item_id) if not as_written or item_id in self.world.table("inventory", "items") else None
        if quantity <= 0 and not as_written:
            raise ToolError(f"quantity must be positive, not {quantity}")
        source = (supplier or (item.supplier if item is not None else "")).strip()
        if not source and not as_written:
            raise ToolError(f"{item_id} has no supplier on record; name the supplier to order from")
        lead = item.lead_time_days if item is not None else None
        expected = format_time(self.world.clock + lead * 86400) if lead is not None else None
        order = PurchaseOrder(id=self.world.new_id("po", "inventory", "orders"), item=item_id, quantity=quantity,
                              supplier=source, expected_at=expected, by=self.world.user or "", at=self.world.now_iso)
        self.put("orders", order)
        return dump(order)

    @write
    def adjust(self, item_id: str, delta: int, reason: str) -> dict[str, Any]:
        """Add (positive delta) or remove (negative) stock of an item, with the reason recorded.

        Args:
            item_id: Item id, `<sku>@<location>`.
            delta: Units to add or remove.
            reason: Why (e.g. restock, damaged, count correction).
        """
        item = self._item(item_id)
        if delta == 0:
            raise ToolError("delta is 0: nothing to change")
        if not reason.strip():
            raise ToolError("give a reason for the stock change")
        if item.quantity + delta < 0:
            raise ToolError(f"{item_id} has {item.quantity} {item.unit}; cannot remove {-delta}")
        return self._move(item, delta, reason)

    @write
    def transfer(self, item_id: str, to_location: str, quantity: int) -> dict[str, Any]:
        """Move units of an item to another location (creates the item there if needed).

        Args:
            item_id: Item id of the source, `<sku>@<location>`.
            to_location: Target location id.
            quantity: Units to move (positive).
        """
        item = self._item(item_id)
        self.require("locations", to_location, "location", "use inventory_list_locations")
        if quantity <= 0 or quantity > item.quantity:
            raise ToolError(f"quantity must be between 1 and {item.quantity} (the stock of {item_id})")
        if to_location == item.location:
            raise ToolError(f"{item_id} is already at {to_location}")
        target_id = f"{item.sku}@{to_location}"
        target = self.world.table("inventory", "items").get(target_id)
        if target is None:
            target = item.model_copy(update={"id": target_id, "location": to_location, "quantity": 0})
        self._move(item, -quantity, f"transfer to {to_location}")
        moved = self._move(target, quantity, f"transfer from {item.location}")
        return {"from": item_id, "to": target_id, "quantity": quantity, "stock_at_target": moved["quantity"]}

    def _move(self, item: Item, delta: int, reason: str) -> dict[str, Any]:
        updated = item.model_copy(update={"quantity": item.quantity + delta})
        self.put("items", updated)
        self.put("movements", Movement(id=self.world.new_id("mv", "inventory", "movements"), item=item.id, delta=delta,
                                       reason=reason, by=self.world.user or "", at=self.world.now_iso))
        return dump(updated, "id", "quantity")

    def _item(self, item_id: str) -> Item:
        return self.require("items", item_id, "item", "use inventory_search_items")  # type: ignore[no-any-return]


APP = AppDef(
    "inventory", InventoryState, InventoryTools, "stock items with suppliers and prices, quantities per location, movement ledger, purchase orders",
    indexes={
        "locations": {"id": Order(lambda loc: loc.id)},
        "items": {
            "text": Words(lambda i: (i.sku, i.name, i.category, i.supplier)),
            "category": Key(lambda i: i.category.lower() or None),
            "supplier": Key(lambda i: i.supplier.lower() or None),
            "location": Key(lambda i: i.location),
            "low": Key(lambda i: i.quantity < i.reorder_level),
            "low_at": Key(lambda i: i.location if i.quantity < i.reorder_level else None),
            "id": Order(lambda i: i.id),
        },
        "movements": {"item": Key(lambda m: m.item), "at": Order(lambda m: m.at)},
        "orders": {"item": Key(lambda o: o.item), "at": Order(lambda o: (o.at, o.id))},
    },
)
