"""A write whose checks are all replaced by stand-ins, with no guard on its record: ticket triage assigns each
untriaged ticket to the owner the triage file names and sets the priority the file gives its label, and one
ticket's two checks are swapped for a count of calls another step also makes (`tickets_search`, reading the triage
file) and for another ticket's priority; the contact whose new phone number a customer mailed is checked by a count
of contact lookups, or by another contact's phone, and the order check by the lookup before the reply. No check then
concerns the update, so the strict policy trimmed it as incidental: the spec shipped with the ticket left untriaged,
or the old number on the card, passing. The values the write puts (the owner's name, the priority, the new number)
are stated in what the agent is given (the triage file it reads, the customer's mail): the request asks for them.
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls, check, reference
from tests.defects.kept_write_unchecked import without_update

CLASS = "stand_in_write_unchecked"
DETECTION = (
    "a dropped write no check concerns is incidental, unless the values it puts on an existing record (an assignee "
    "by name, a priority) are stated in what the agent is told or shown (the request, a mail, the triage file it "
    "reads): then the request asks for them and the write is unchecked"
)
GATE, CODE = "mutations", "named_write_unchecked"


def _updated(spec: Spec, nth: int) -> str:
    ids = [c["arguments"]["ticket_id"] for _, _, c in calls(spec, "tickets_update")]
    if len(ids) <= max(nth, 1) or any(c["role"] == "guard" and c["rule"]["kind"] == "field" for c in spec["checks"]):
        raise CorpusError(f"{spec['capability']}: fewer than two updated tickets, or a field guard")
    return ids[nth]


def _stand_ins(tool: str, nth: int = 0):  # type: ignore[no-untyped-def]
    """The `nth` updated ticket's assignee check becomes a count of `tool` calls, its priority check another
    ticket's."""
    def edit(spec: Spec) -> None:
        ticket = _updated(spec, nth)
        if not list(calls(spec, tool)):
            raise CorpusError(f"{spec['capability']}: no {tool} call")
        mine = [c for c in spec["checks"] if c["rule"]["kind"] == "field" and c["rule"]["target"]["id"] == ticket]
        other = next(c for c in spec["checks"] if c["rule"]["kind"] == "field" and c["rule"]["target"]["id"] != ticket
                     and c["rule"]["target"]["field"] == "priority")
        if sorted(c["rule"]["target"]["field"] for c in mine) != ["assignee", "priority"]:
            raise CorpusError(f"{spec['capability']}: {ticket} is not checked by assignee and priority")
        for c in mine:
            if c["rule"]["target"]["field"] == "assignee":
                c["rule"] = {"kind": "called", "call": {"tool": tool, "args": {}}, "min_times": 1}
            else:
                c["rule"] = {**other["rule"]}
    return edit


def _untriaged(nth: int = 0):  # type: ignore[no-untyped-def]
    """Witness: the reference without the ticket's update (left unassigned at its old priority)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        return without_update(spec, _updated(spec, nth))
    return witness


def _phone_stand_in(kind: str):  # type: ignore[no-untyped-def]
    """The new phone's check becomes a count of contact searches (`kind` "count") or another contact's phone as it
    is ("other"); the update-before-reply order becomes search-before-reply."""
    def edit(spec: Spec) -> None:
        c = check(spec, kind="field", where=lambda c: c["rule"]["target"]["field"] == "phone")
        if kind == "count":
            c["rule"] = {"kind": "called", "call": {"tool": "contacts_search", "args": {}}, "min_times": 1}
        else:
            other = next(o for o in spec["world"]["apps"]["contacts"]["contacts"]
                         if o["id"] != c["rule"]["target"]["id"] and o.get("phone"))
            c["rule"]["target"]["id"], c["rule"]["value"] = other["id"], other["phone"]
        order = check(spec, kind="order", where=lambda c: c["rule"]["first"]["tool"] == "contacts_update")
        order["rule"]["first"] = {"tool": "contacts_search", "args": {}, "where": []}
    return edit


def _phone_kept(spec: Spec) -> list[dict[str, Any]]:
    """Witness: the reference without the contact update (the old number stays; the reply still states the new)."""
    ref = reference(spec)
    for turn in ref:
        turn["steps"] = [s for s in turn["steps"] if not (s.get("call") and s["call"]["name"] == "contacts_update")]
    return ref


DEFECTS = [
    Defect(CLASS, f"triage-as-{tool.split('_', 1)[1]}-count-{seed}-{nth}", f"synth:ticket_triage_update@{seed}",
           "leaves a ticket untriaged (its checks replaced by a count of calls and another ticket's priority)",
           breaks=_stand_ins(tool, nth), witness=_untriaged(nth), gate=GATE, code=CODE)
    for tool, seed, nth in (("tickets_search", 2, 0), ("files_read_file", 3, 1), ("tickets_search", 5, 1))
] + [
    Defect(CLASS, f"phone-as-{kind}-{seed}", f"synth:contact_phone_update@{seed}",
           "confirms the new number to the customer but leaves the old one on the card (the phone check replaced by a "
           "stand-in)", breaks=_phone_stand_in(kind), witness=_phone_kept, gate=GATE, code=CODE)
    for kind, seed in (("count", 1), ("count", 2), ("other", 3), ("other", 4))
]
