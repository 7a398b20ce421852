"""A reply's number term given a second alternative of another value: the writer's text check gives the number the
reply must state (the quantity moved, a page's status code) an alternative the world also holds: the quantity moved
or the shelf's stock before the move arrived (`["57", "0"]`), or the warehouse's stock before it left; the status
301 or 200 (`["301", "200"]`, the status a healthy page answers), or another broken page's status. Alternatives of
one term are meant as one answer spelled otherwise; two different numbers are two answers, and the agent that reports
the shelf's old stock as the quantity moved, or a broken page as answering 200, passes. Found by the outsider's
sixth hunt (`benchmarks/hunt_mutants.py --family d94`, `reply_before_change`: on inventory_restock_policy 1 the shelf
held 0 and the check's `["57", "0"]` passed `Moved 0 x WRAP-43`). The sound twin is the shipped spec (the one
number alone)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Edit, Spec, calls, reference

CLASS = "reply_number_alternative"
DETECTION = (
    "for each term of a text check on a reply whose alternatives are numbers of different values, where the reply "
    "states one and the world offers the other, replay the reply with the other in its place: a replay that passes "
    "lets the agent state the wrong number (the value before the change, another record's)"
)


def _before(spec: Spec, which: int, where: str) -> tuple[str, str]:
    """(the quantity moved by the `which`-th transfer, the `where` record's quantity before the move: `shelf` the
    store's, `warehouse` the source's)."""
    moves = list(calls(spec, "inventory_transfer"))
    if len(moves) <= which:
        raise CorpusError(f"{spec['capability']}: no transfer {which}")
    args = moves[which][2]["arguments"]
    item = args["item_id"]
    rid = item if where == "warehouse" else item.split("@")[0] + "@" + args["to_location"]
    rec = next((r for r in spec["world"]["apps"]["inventory"]["items"] if r["id"] == rid), None)
    if rec is None or round(rec["quantity"]) == round(args["quantity"]):
        raise CorpusError(f"{spec['capability']}: {rid} holds no other quantity before the move")
    return str(args["quantity"]), str(rec["quantity"])


def _admitted(which: int, where: str) -> Edit:
    def edit(spec: Spec) -> None:
        moved, old = _before(spec, which, where)
        check = next(c for c in spec["checks"] if c["id"] == "reply-moves")
        terms = check["rule"]["all_of"]
        if moved not in terms:
            raise CorpusError(f"{spec['capability']}: the reply check wants no {moved}")
        terms[terms.index(moved)] = [moved, old]
    return edit


def _restated(spec: Spec, said: str, instead: str) -> list[dict[str, Any]]:
    """The reference whose first reply stating `said` states `instead` there."""
    ref = reference(spec)
    for turn in ref:
        for step in turn["steps"]:
            if step.get("say") and said in step["say"]:
                step["say"] = step["say"].replace(said, instead, 1)
                return ref
    raise CorpusError(f"{spec['capability']}: no reply states {said!r}")


def _stated(which: int, where: str) -> Callable[[Spec], list[dict[str, Any]]]:
    """The reference whose reply states the quantity before the move as the quantity moved."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        moved, old = _before(spec, which, where)
        return _restated(spec, f"{moved} x ", f"{old} x ")
    return witness


def _defect(name: str, seed: int, which: int, where: str) -> Defect:
    return Defect(CLASS, name, f"synth:inventory_restock_policy@{seed}",
                  f"reports the {where}'s stock before the move as the quantity moved, and passes: the reply check's "
                  "term for the quantity admits that number too", breaks=_admitted(which, where),
                  witness=_stated(which, where), gate="mutations", code="content_unchecked")


def _status(seed: int, right: str, other: str) -> Defect:
    """web_page_audit: the reply's status term for a broken page admits `other` too (200, or another page's)."""
    def edit(spec: Spec) -> None:
        terms = next(c for c in spec["checks"] if c["id"] == "reply-count")["rule"]["all_of"]
        if right not in terms:
            raise CorpusError(f"{spec['capability']}: the reply check wants no status {right}")
        terms[terms.index(right)] = [right, other]

    def witness(spec: Spec) -> list[dict[str, Any]]:
        return _restated(spec, f" {right}", f" {other}")
    return Defect(CLASS, f"status-{right}-or-{other}-{seed}", f"synth:web_page_audit@{seed}",
                  f"reports a broken page's status as {other}, and passes: the reply check's term for the status "
                  f"({right}) admits {other} too", breaks=edit, witness=witness, gate="mutations",
                  code="content_unchecked")


DEFECTS = [
    _defect("shelf-before-1", 1, 1, "shelf"),
    _defect("shelf-before-2", 2, 0, "shelf"),
    _defect("shelf-before-3", 3, 0, "shelf"),
    _defect("shelf-before-4", 4, 0, "shelf"),
    _defect("shelf-before-5", 5, 1, "shelf"),
    _defect("warehouse-before-1", 1, 0, "warehouse"),
    _defect("warehouse-before-3", 3, 1, "warehouse"),
    _status(1, "301", "200"),
    _status(2, "301", "200"),
    _status(3, "500", "410"),
]
