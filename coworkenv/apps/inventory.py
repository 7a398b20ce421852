"""Inventory: stock items with quantities at locations, and a ledger of every stock movement."""

from __future__ import annotations

from typing import Any

from coworkenv.apps._common import clamp, dump, dump_many
from coworkenv.tools import ToolError, Toolkit, read, write
from coworkenv.world import AppDef, AppState, Key, Order, Record, Words


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


class Movement(Record):
    item: str
    delta: int
    reason: str
    by: str = ""
    at: str = ""


class InventoryState(AppState):
    locations: list[Location] = []
    items: list[Item] = []
    movements: list[Movement] = []


class InventoryTools(Toolkit):
    app = "inventory"

    @read
    def list_locations(self) -> list[dict[str, Any]]:
        """List the stock locations."""
        return dump_many(self.world.table("inventory", "locations").select("id"))

    @read
    def search_items(
        self, query: str = "", location: str | None = None, below_reorder: bool = False, limit: int = 50,
    ) -> list[dict[str, Any]]:
        """Find stock items by words in sku or name, sorted by item id.

        Args:
            query: Words that must all occur (empty matches every item).
            location: Only items at this location id.
            below_reorder: Only items whose quantity is below their reorder level.
            limit: Maximum number of items.
        """
        table = self.world.table("inventory", "items")
        sets = [
            # Low stock at one location is one set, not the meet of two large ones.
            (table.key("low_at").ids(location) if below_reorder else table.key("location").ids(location))
            if location is not None else None,
            table.key("low").ids(True) if below_reorder and location is None else None,
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
    "inventory", InventoryState, InventoryTools, "stock items, quantities per location, movement ledger",
    indexes={
        "locations": {"id": Order(lambda loc: loc.id)},
        "items": {
            "text": Words(lambda i: (i.sku, i.name)),
            "location": Key(lambda i: i.location),
            "low": Key(lambda i: i.quantity < i.reorder_level),
            "low_at": Key(lambda i: i.location if i.quantity < i.reorder_level else None),
            "id": Order(lambda i: i.id),
        },
        "movements": {"item": Key(lambda m: m.item), "at": Order(lambda m: m.at)},
    },
)
