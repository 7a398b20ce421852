"""A write whose only checks are guards: ticket triage assigns each untriaged ticket and sets its priority, which for
some tickets is the one it already had (a guard holds it), and the assignee's check is replaced by a stand-in that
another call also satisfies: a count of `tickets_comment` calls (the duplicate's note), of the searches, or the
assignee of another ticket. Dropping the ticket's update then fails no check, and the strict policy, finding no
non-guard check on what the write changes, trimmed it as incidental: the spec shipped with the ticket left
unassigned passing (the third hunt's `state_to_call_count` on ticket_triage_update 4).
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls, check, reference

CLASS = "kept_write_unchecked"
DETECTION = (
    "a dropped write no non-guard check concerns is incidental, unless it passes a field of a record it changes that a "
    "guard holds (the kept priority) and changes other fields of it that no check reads (the assignee): then the "
    "write belongs to the task and what it changes is unchecked"
)
GATE, CODE = "mutations", "guarded_write_unchecked"


def _kept_ticket(spec: Spec, nth: int = 0) -> str:
    """The `nth` updated ticket whose priority a guard holds."""
    kept = [c["rule"]["target"]["id"] for c in spec["checks"] if c["role"] == "guard" and c["rule"]["kind"] == "field"
            and c["rule"]["target"]["field"] == "priority"]
    if len(kept) <= nth:
        raise CorpusError(f"{spec['capability']}: fewer than {nth + 1} kept priorities")
    return kept[nth]


def _stand_in(kind: str, nth: int = 0):  # type: ignore[no-untyped-def]
    """The assignee check of the kept ticket replaced by `kind`: a count of comments or searches, or another
    ticket's assignee."""
    def edit(spec: Spec) -> None:
        ticket = _kept_ticket(spec, nth)
        c = check(spec, kind="field", where=lambda c: c["rule"]["target"]["id"] == ticket
                  and c["rule"]["target"]["field"] == "assignee")
        if kind in ("tickets_comment", "tickets_search"):
            if not list(calls(spec, kind)):
                raise CorpusError(f"{spec['capability']}: no {kind} call")
            c["rule"] = {"kind": "called", "call": {"tool": kind, "args": {}}, "min_times": 1}
        else:
            other = next(o for o in spec["checks"] if o["rule"]["kind"] == "field" and o["role"] != "guard"
                         and o["rule"]["target"]["field"] == "assignee" and o["rule"]["target"]["id"] != ticket)
            c["rule"] = {**other["rule"]}
    return edit


def without_update(spec: Spec, ticket: str) -> list[dict[str, Any]]:
    """The reference without `ticket`'s update (left as the world put it)."""
    ref = reference(spec)
    for turn in ref:
        turn["steps"] = [s for s in turn["steps"] if not (s.get("call") and s["call"]["name"] == "tickets_update"
                                                           and s["call"]["arguments"].get("ticket_id") == ticket)]
    return ref


def _unassigned(nth: int = 0):  # type: ignore[no-untyped-def]
    """Witness: the reference without the kept ticket's update (left unassigned)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        return without_update(spec, _kept_ticket(spec, nth))
    return witness


DEFECTS = [
    Defect(CLASS, f"assignee-as-{name}-{seed}-{nth}", f"synth:ticket_triage_update@{seed}",
           "leaves a ticket unassigned (its assignee check replaced by a stand-in another call meets)",
           breaks=_stand_in(kind, nth), witness=_unassigned(nth), gate=GATE, code=CODE)
    for name, kind, seed, nth in (("comment-count", "tickets_comment", 4, 1), ("comment-count", "tickets_comment", 6, 0),
                                  ("comment-count", "tickets_comment", 8, 0), ("search-count", "tickets_search", 1, 0),
                                  ("search-count", "tickets_search", 7, 0), ("other-ticket", "other", 4, 0),
                                  ("other-ticket", "other", 10, 0))
]
