"""A number the task fixes, written by the agent, checked against a list of numbers: the restock moves the quantity
the published policy determines (`inventory_transfer(item_id, to_location, quantity=15)`: the shelf up to 3 times its
reorder level), and the check on what it leaves admits another number beside the right one: the level the draft
proposal names (`quantity in [21, 28]`, 4 times: "either reading of the policy"), or the reorder level itself ("at
least back to its level"), the warehouse `in` what it keeps under either. An agent that follows the unpublished
proposal moves 22 units instead of 15 and passes, its reply still stating 15. The gates' near misses move a written
number one either way (both fail such a list) and by the steps a pattern admits (`matches`/`contains`); a number
an `in` list admits a distance away was never written. The sound twin is the shipped spec (each stock compared
`equals`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Edit, Spec, calls, check, drop_checks, record, reference

CLASS = "written_number_loose"
DETECTION = (
    "for each number a reference write passes and each `in` list of numbers a check on the app it writes holds, "
    "replay the write with the number moved by the distance between two numbers the list admits: a replay that "
    "passes every check lets the agent write a number the task did not ask for"
)

# which other final stock of the shelf the check admits -> its value given (reorder level, target)
_OTHER: dict[str, Callable[[int, int], int]] = {
    "x2": lambda level, target: level * 2,
    "x3": lambda level, target: level * 3,
    "x4": lambda level, target: level * 4,
    "level": lambda level, target: level,
}


def _transfer(spec: Spec, which: int) -> tuple[int, int, dict[str, Any]]:
    found = list(calls(spec, "inventory_transfer"))
    if len(found) <= which:
        raise CorpusError(f"{spec['capability']}: no transfer {which}")
    return found[which]


def _plan(spec: Spec, which: int, other: str) -> tuple[str, int, int]:
    """(shelf record id, the right quantity moved, the wrong one the loose list admits)."""
    _, _, c = _transfer(spec, which)
    args = c["arguments"]
    wh_id, store = str(args["item_id"]), str(args["to_location"])
    shelf_id = wh_id.split("@")[0] + "@" + store
    shelf = record(spec, "inventory", "items", shelf_id)
    target = shelf["quantity"] + args["quantity"]
    wrong = _OTHER[other](shelf["reorder_level"], target) - shelf["quantity"]
    if wrong <= 0 or wrong == args["quantity"] or abs(wrong - args["quantity"]) == 1:
        raise CorpusError(f"{spec['capability']}: {other} admits no other transfer of {shelf_id}")
    return shelf_id, int(args["quantity"]), wrong


def _loosened(which: int, other: str, source: bool) -> Edit:
    """The shelf's check (`restocked-X`) an `in` list of the right stock and the other; the warehouse's (`from-X`)
    likewise where `source`, else left out."""
    def edit(spec: Spec) -> None:
        shelf_id, right, wrong = _plan(spec, which, other)
        sku = shelf_id.split("@")[0]
        shelf = check(spec, f"restocked-{sku}")["rule"]
        shelf.update(op="in", value=[shelf["value"], shelf["value"] - right + wrong])
        if source:
            wh = check(spec, f"from-{sku}")["rule"]
            wh.update(op="in", value=[wh["value"], wh["value"] + right - wrong])
        else:
            drop_checks(spec, lambda c: c["id"] == f"from-{sku}")
    return edit


def _moved(which: int, other: str) -> Callable[[Spec], list[dict[str, Any]]]:
    """The reference moving the quantity the other level asks for, its reply unchanged."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        t, s, _ = _transfer(spec, which)
        ref = reference(spec)
        ref[t]["steps"][s]["call"]["arguments"]["quantity"] = _plan(spec, which, other)[2]
        return ref
    return witness


def _defect(name: str, base: str, other: str, which: int = 0, source: bool = True) -> Defect:
    return Defect(CLASS, name, base, f"moves the quantity another level ({other} the reorder level) asks for; the "
                  "stock it leaves is checked against a list admitting that level too", breaks=_loosened(
                      which, other, source), witness=_moved(which, other), gate="mutations", code="mutant_survived")


DEFECTS = [
    _defect("proposal-level", "synth:inventory_restock_policy@1", "x4"),
    _defect("second-item-proposal", "synth:inventory_restock_policy@1", "x4", which=1),
    _defect("reorder-level-shelf-only", "synth:inventory_restock_policy@2", "level", source=False),
    _defect("double-level", "synth:inventory_restock_policy@3", "x2"),
    _defect("double-level-shelf-only", "synth:inventory_restock_policy@4", "x2", source=False),
]
