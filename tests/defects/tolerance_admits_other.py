"""Tolerance admits another: a text check reads the answer's amount as a `number` with a tolerance wide enough to
take another amount the world offers for it. The user asked what the annual value (or approval limit) of one
account is; the writer's reply check wants the amount "within 10%" or "to the nearest thousand", and the outdated
2025 copy of the same file (or the next account's row) holds a value inside that band: the agent that copies the
wrong row or the stale file's figure passes. The sound twin is the same check with a tolerance that only rounding
needs (0.5 of a euro): no other value the world holds lies in it.

Main's gates missed every one: the reply near misses tried a count one higher (`off_by_one_counts`) only for a
literal count below a thousand, and nothing tried an amount, a decimal, a large count, a `source` value or a relative
tolerance against the numbers the world offers.

Caught by the admitted-number near misses (`content_unchecked`, `_admitted_numbers`): for each text check with a
`number` and a tolerance, the reply states each value the world holds (numeric fields, the numbers written in files,
mails and the user's turns) that lies within the tolerance but is not the expected one, written as the reference
writes the expected one; such a reply must fail a check.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from coworkenv.validate.entities import leaves
from tests.defects._core import CorpusError, Defect, Spec, reference, with_say

CLASS = "tolerance_admits_other"
DETECTION = (
    "for each text check with a numeric tolerance, replay the reference's reply with each number the world offers "
    "(numeric fields, numbers written in its files, mails and the user's turns) that lies within the tolerance but "
    "is not the expected value written in its place; a replay that passes every check admits the wrong value"
)

_AMOUNT = re.compile(r"\bEUR (\d{1,3}(?:,\d{3})+)\b")
_ROUNDING = 0.5  # the twin's tolerance: rounding to the euro, which no other amount of these worlds lies within


def _value(text: str) -> int:
    return int(text.replace(",", ""))


def _answer(spec: Spec) -> tuple[str, int]:
    """The last reply and the amount it states."""
    says = [s["say"] for s in spec["reference"][-1]["steps"] if s.get("say")]
    if not says or not (m := _AMOUNT.search(says[-1])):
        raise CorpusError(f"{spec['capability']}: the last reply states no EUR amount")
    return says[-1], _value(m.group(1))


def _other(spec: Spec) -> int:
    """The world's other amount nearest the answer (the outdated copy's, or the next account's)."""
    _, right = _answer(spec)
    others = {_value(m.group(1)) for m in _AMOUNT.finditer(json.dumps(spec["world"]))} - {right}
    if not others:
        raise CorpusError(f"{spec['capability']}: the world offers no other EUR amount")
    return min(others, key=lambda v: (abs(v - right), v))


def _cite_source(spec: Spec) -> None:
    """The last reply names the file the amount was read from, and a `reply_states` check wants it named (as
    lookup_answer_source's reply does): the answer states two facts, of which the file is read exactly."""
    paths = [s["call"]["arguments"]["path"] for s in spec["reference"][-1]["steps"]
             if s.get("call") and s["call"]["name"] == "files_read_file"]
    if not paths:
        raise CorpusError(f"{spec['capability']}: the reference reads no file")
    step = [s for s in spec["reference"][-1]["steps"] if s.get("say")][-1]
    step["say"] = f"{step['say'].rstrip('.')} (source: {paths[-1]})."
    spec["checks"].append({"id": "reply-names-source", "description": "the reply names the file it read",
                           "rule": {"kind": "reply_states", "turn": len(spec["turns"]) - 1, "format": "raw",
                                    "source": {"app": "files", "table": "files", "id": paths[-1], "field": "id"}}})


def _amount_check(tolerance: Callable[[Spec], tuple[float, bool]], cite: bool = False) -> Callable[[Spec], None]:
    """The writer's reply check: the amount as a `number`, with `tolerance` (value, relative) of the spec; where
    `cite`, the reply names its source too (`_cite_source`)."""
    def edit(spec: Spec) -> None:
        if cite:
            _cite_source(spec)
        _, right = _answer(spec)
        value, relative = tolerance(spec)
        spec["checks"].append({"id": "reply-states-amount", "description": "the reply states the amount",
                               "rule": {"kind": "text", "scope": "final", "turn": len(spec["turns"]) - 1,
                                        "number": {"value": right, "tolerance": value, "relative": relative}}})
    return edit


def _wide(relative: bool, value: float) -> Callable[[Spec], tuple[float, bool]]:
    """A writer's tolerance that admits the world's nearest other amount (CorpusError where it does not)."""
    def tolerance(spec: Spec) -> tuple[float, bool]:
        _, right = _answer(spec)
        slack = value * right if relative else value
        if abs(_other(spec) - right) > slack:
            raise CorpusError(f"{spec['capability']}: no other amount within {value} of {right}")
        return value, relative
    return tolerance


def _stated_other(spec: Spec) -> list[dict[str, Any]]:
    """The reply stating the world's other amount in the right one's place."""
    say, right = _answer(spec)
    return with_say(spec, say.replace(f"{right:,}", f"{_other(spec):,}"), ref=reference(spec))


def _case(name: str, base: str, value: float, relative: bool, away: str, cite: bool = False) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_amount_check(_wide(relative, value), cite),
                  fix=_amount_check(lambda _: (_ROUNDING, False), cite), witness=_stated_other,
                  gate="mutations", code="content_unchecked")


def _stock_fields(spec: Spec) -> tuple[dict[str, Any], int]:
    """The store item the reference restocks (its field check on `quantity`) and the stock it ends with."""
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "field" and rule["target"]["field"] == "quantity" and "@store" in rule["target"]["id"]:
            return rule["target"], int(rule["value"])
    raise CorpusError(f"{spec['capability']}: no check on a store item's quantity")


def _world_counts(spec: Spec) -> set[int]:
    """The whole numbers the world's records hold (quantities, reorder points, targets)."""
    return {v for v in leaves(spec["world"]) if isinstance(v, int) and not isinstance(v, bool)}


def _near_stock(spec: Spec, slack: int) -> int:
    _, right = _stock_fields(spec)
    near = sorted((w for w in _world_counts(spec) if 0 < abs(w - right) <= slack), key=lambda w: (abs(w - right), w))
    if not near:
        raise CorpusError(f"{spec['capability']}: no other count within {slack} of {right}")
    return near[0]


def _stock_check(slack: float) -> Callable[[Spec], None]:
    """The reply also tells the store's stock after the move, and the writer's check reads it from the state
    (`source`: the store item's quantity) give or take `slack` units."""
    def edit(spec: Spec) -> None:
        target, right = _stock_fields(spec)
        if slack:
            _near_stock(spec, int(slack))
        step = [s for s in spec["reference"][-1]["steps"] if s.get("say")][-1]
        store = target["id"].split("@", 1)[1]
        step["say"] = f"{step['say'].rstrip('.')}; {store} now holds {right} of {target['id'].split('@')[0]}."
        spec["checks"].append({"id": "reply-states-stock", "description": "the reply states the store's new stock",
                               "rule": {"kind": "text", "scope": "final", "turn": len(spec["turns"]) - 1,
                                        "number": {"source": target, "tolerance": slack}}})
    return edit


def _stated_near_stock(spec: Spec) -> list[dict[str, Any]]:
    """The reply stating another count the world holds for the store's new stock."""
    _, right = _stock_fields(spec)
    ref = reference(spec)
    step = [s for s in ref[-1]["steps"] if s.get("say")][-1]
    step["say"] = step["say"].replace(f"now holds {right} ", f"now holds {_near_stock(spec, 2)} ")
    return ref


def _stock_case(seed: int) -> Defect:
    return Defect(CLASS, f"store-stock-give-or-take-2-{seed}", f"synth:inventory_restock_policy@{seed}",
                  "tells the user another count the world holds as the store's new stock: the reply check reads the "
                  "stock from the state give or take 2 units", breaks=_stock_check(2), fix=_stock_check(0),
                  witness=_stated_near_stock, gate="mutations", code="content_unchecked")


_STALE = "tells the user the outdated 2025 copy's figure: the reply check takes any amount within {}"
_ROW = "tells the user another account's figure from the same file: the reply check takes any amount within {}"

DEFECTS = [
    _case("stale-annual-value-10pct-2", "synth:lookup_answer_source@2", 0.1, True, _STALE.format("10%")),
    _case("stale-approval-limit-10pct-11", "synth:lookup_answer_source@11", 0.1, True, _STALE.format("10%")),
    _case("stale-annual-value-5pct-15", "synth:lookup_answer_source@15", 0.05, True, _STALE.format("5%")),
    _case("stale-annual-value-thousand-47", "synth:lookup_answer_source@47", 1000, False,
          _STALE.format("EUR 1,000")),
    _case("reply-other-row-10pct-14", "synth:inbox_triage_reply@14", 0.1, True, _ROW.format("10%"), cite=True),
    _case("draft-other-row-10pct-32", "synth:draft_only_reply@32", 0.1, True, _ROW.format("10%"), cite=True),
    _stock_case(1),
    _stock_case(2),
    _stock_case(8),
]
