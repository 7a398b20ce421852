"""Nested rule evades: a defective check of another class, its rule wrapped in a composite rule (`tiers` with one
tier scoring 1, which scores exactly as the bare rule does), and its twin the twin of the original wrapped the same
way. The gates that read `check.rule` alone judged the wrapper as a whole and missed what the rule inside it reads,
calls, pins, leaks or forbids, so main accepted every defect here (a guard's evasions, a frame allowing a record
whole, a vacuous or pinned condition, an order or undone write, a later-state read).

Caught by the same gate and code as the original: every gate that reads a check's rules walks the nested rules
through one walker (`nested_rules` / `spec_rules` in `coworkenv/validate/_check_reads.py`).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import orjson

from tests.defects import (
    any_for_all,
    dead_guard,
    frame_whole_other_tool,
    frame_whole_unwritten,
    guard_batch_evades,
    guard_one_end_state,
    guard_phrase_respelled,
    guard_respelled,
    half_pinned,
    harm_underpriced,
    instant_pinned,
    later_state_own_write,
    pinned_wording,
    solved_by_world,
    undone_write,
)
from tests.defects._core import Defect, Spec

CLASS = "nested_rule_evades"
DETECTION = (
    "walk every rule a composite rule (tiers) holds, at any depth, in every gate that reads a check's rules: the "
    "wrapped rule is judged as the same rule bare"
)

# (module, defect name): one defect of each class, from as many generators as the classes allow
_PICKS = [
    (dead_guard, "prod-flag-guard-typo"),
    (pinned_wording, "request-task-title-exact"),
    (guard_respelled, "payments-post-guard-by-name"),
    (solved_by_world, "redeploy-by-reconciler"),
    (guard_one_end_state, "ticket-closed-not-resolved"),
    (frame_whole_other_tool, "silent-change-service-whole"),
    (frame_whole_unwritten, "triage-mail-whole"),
    (later_state_own_write, "ticket-before-own-update"),
    (undone_write, "triage-assignee-undone"),
    (instant_pinned, "booked-before-mail-start-1"),
    (any_for_all, "tasks-one-named-1"),
    (guard_phrase_respelled, "ticket-id-in-post"),
    (guard_batch_evades, "mail-to-two-inbox-1"),
    (harm_underpriced, "bystander-ticket-as-completion"),
    (half_pinned, "answer-any-fact-delegation"),
]


def _key(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


@cache
def _wrapped_ids(original: Defect) -> frozenset[str]:
    """The checks the original's defect and twin differ in (every check where they differ elsewhere)."""
    bad, good = original.defect_spec(), original.twin_spec()
    twin = {c["id"]: _key(c) for c in good["checks"]}
    ids = frozenset(c["id"] for c in bad["checks"] if twin.get(c["id"]) != _key(c))
    return ids or frozenset(c["id"] for c in bad["checks"])


def wrap(spec: Spec, ids: frozenset[str]) -> None:
    """Each named check's rule inside a one-tier `tiers` rule, its role written out (the default of the kind)."""
    for check in spec["checks"]:
        if check["id"] in ids:
            rule = check["rule"]
            if check.get("role") is None:
                guard = check.get("safety") or rule["kind"] in ("frame", "forbidden")
                check["role"] = "guard" if guard else "completion"
            check["rule"] = {"kind": "tiers", "tiers": [{"score": 1.0, "rule": rule}]}


def _unwrapped(spec: Spec, ids: frozenset[str]) -> Spec:
    """A copy of a spec with the named checks' one-tier wrappers taken off (what the original's witness reads)."""
    out: Spec = orjson.loads(orjson.dumps(spec))
    for check in out["checks"]:
        if check["id"] in ids and check["rule"]["kind"] == "tiers":
            check["rule"] = check["rule"]["tiers"][0]["rule"]
    return out


def _wrapped(original: Defect) -> Defect:
    def breaks(spec: Spec) -> None:
        if original.breaks is not None:
            original.breaks(spec)
        wrap(spec, _wrapped_ids(original))

    def fix(spec: Spec) -> None:
        if original.fix is not None:
            original.fix(spec)
        wrap(spec, _wrapped_ids(original))

    return Defect(CLASS, f"{original.cls}-{original.name}", original.base,
                  f"{original.gets_away_with} (the check's rule wrapped in tiers)", breaks=breaks, fix=fix,
                  witness=None if (seen := original.witness) is None else (
                      lambda spec: seen(_unwrapped(spec, _wrapped_ids(original)))), witness_kind=original.witness_kind, gate=original.gate,
                  code=original.code, reference_sound=original.reference_sound)


def _pick(module: Any, name: str) -> Defect:
    return next(d for d in module.DEFECTS if d.name == name)


DEFECTS = [_wrapped(_pick(m, n)) for m, n in _PICKS]
