"""The simulated workplace: typed app state, world clock, content hash, snapshots and diffs."""

from coworkenv.world._app import KEPT_TABLE, AppDef, AppState, Kept, Record
from coworkenv.world._bulk import gc_paused
from coworkenv.world._digest import STRICT_CANONICAL, is_json_native, json_form, json_native_parts
from coworkenv.world._hashing import canonical_json, content_hash
from coworkenv.world._index import Derived, Key, Order, Words, prefix_range, tokens
from coworkenv.world._table import Table
from coworkenv.world._time import format_time, local_time, parse_time, zone
from coworkenv.world._world import Change, World, WorldSnapshot, diff

__all__ = [
    "KEPT_TABLE", "STRICT_CANONICAL", "AppDef", "AppState", "Change", "Derived", "Kept", "Key", "Order", "Record", "Table", "Words", "World", "WorldSnapshot",
    "canonical_json", "content_hash", "diff", "format_time", "gc_paused", "is_json_native", "json_form", "json_native_parts", "local_time", "parse_time", "prefix_range",
    "tokens", "zone",
]
