"""Created instead of changed: the checks find the task's record by what it holds (a `records` check: the contact
named Imani Haddad with the new phone, count 1) instead of by its id, and the frame lets the agent add a record of
that name. Creating a new contact, ticket or meeting that holds the changed values passes, though the record the user
meant is left as it was (the old phone still on the card, the ticket still unassigned, the meeting still clashing)
and now has a double. Where an `order` check wants the record's update before the confirmation, the cheat also calls
the update on the record with nothing but its id (a call that changes nothing). The sound twin has the same frame
and checks the record by its id. (scheduler_pause_failing_jobs is no base: the scheduler refuses a second job of a
name, so the copy cannot be made.)"""

from __future__ import annotations

import copy
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, frame, reference, world

CLASS = "created_instead"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "for each record the reference's writes act on by its id, replace them by the app's creating tool making a copy "
    "of the record as the writes leave it; a replay that still passes finds the record by what it holds, not its id"
)

# The creating tool of each app the corpus uses, and the name field a record of it is known by.
_CREATOR = {
    ("contacts", "contacts"): ("contacts_create", "name"),
    ("tickets", "tickets"): ("tickets_create", "title"),
    ("calendar", "events"): ("calendar_create_event", "title"),
}
# The creating tools' arguments (a record's fields of the same names).
_CREATOR_ARGS = {
    "contacts_create": ("name", "company", "email", "phone", "notes", "tags"),
    "tickets_create": ("title", "description", "priority", "assignee", "service", "labels"),
    "calendar_create_event": ("title", "start", "end", "attendees", "timezone", "location", "description"),
}


def _record(spec: Spec, app: str, table: str, record_id: str) -> dict[str, Any]:
    found = [r for r in world(spec, app, table) if r["id"] == record_id]
    if not found:
        raise CorpusError(f"{spec['capability']}: no {app}.{table} record {record_id}")
    return found[0]


def _checked_id(spec: Spec, app: str, table: str, nth: int) -> str:
    """The id of the `nth` record of `app.table` a field check reads (from the checks' structure, not a seed)."""
    ids: list[str] = []
    for c in spec["checks"]:
        t = c["rule"].get("target")
        if c["rule"]["kind"] == "field" and t and (t["app"], t["table"]) == (app, table) and t["id"] not in ids:
            ids.append(t["id"])
    if len(ids) <= nth:
        raise CorpusError(f"{spec['capability']}: fewer than {nth + 1} checked {app}.{table} records")
    return ids[nth]


def _named(spec: Spec, app: str, table: str, record_id: str) -> dict[str, Any]:
    field = _CREATOR[(app, table)][1]
    return {"field": field, "op": "equals", "value": _record(spec, app, table, record_id)[field]}


def _new_ones_allowed(app: str, table: str, nth: int):  # type: ignore[no-untyped-def]
    """The twin: the frame also lets the agent add a record of the task's record's name (none there before). Every
    record there at the start is left out by id, not only those of that name: a `where` is read on the record after
    the change, so another record renamed to it would be admitted too (`frame_scope_entered`)."""

    def edit(spec: Spec) -> None:
        record_id = _checked_id(spec, app, table, nth)
        named = _named(spec, app, table, record_id)
        there = [r["id"] for r in world(spec, app, table)]
        frame(spec)["rule"]["allow"].append({
            "app": app, "table": table, "id": None, "fields": None,
            "where": [named, *({"field": "id", "op": "not_equals", "value": i} for i in there)]})
    return edit


def _by_content(app: str, table: str, nth: int, count_op: str):  # type: ignore[no-untyped-def]
    """The defect: that frame, and every field check on the record turned into a count of records of its name
    holding the value."""

    def edit(spec: Spec) -> None:
        record_id = _checked_id(spec, app, table, nth)
        named = _named(spec, app, table, record_id)
        _new_ones_allowed(app, table, nth)(spec)
        turned = 0
        for c in spec["checks"]:
            rule = c["rule"]
            t = rule.get("target")
            if rule["kind"] == "field" and t and (t["app"], t["table"], t["id"]) == (app, table, record_id):
                c["rule"] = {"kind": "records", "app": app, "table": table, "count_op": count_op, "count": 1,
                             "where": [named, {"field": t["field"], "op": rule["op"], "value": rule["value"]}]}
                turned += 1
        if not turned:
            raise CorpusError(f"{spec['capability']}: no field check on {record_id}")
    return edit


def _is_write_on(step: dict[str, Any], app: str, record_id: str) -> bool:
    c = step.get("call")
    return bool(c and record_id in c["arguments"].values() and c["name"].split("_", 1)[0] == app
                and any(w in c["name"] for w in ("update", "set", "move", "reschedule")))


def _copied_instead(app: str, table: str, nth: int, touch: bool):  # type: ignore[no-untyped-def]
    """The cheat: a new record made holding the record's fields as the reference's writes leave them, the record
    itself left as it was (with `touch`: the write's tool called on it with nothing but its id, a call that changes
    nothing but that a process check counts)."""

    def witness(spec: Spec) -> list[dict[str, Any]]:
        record_id = _checked_id(spec, app, table, nth)
        tool, _ = _CREATOR[(app, table)]
        after = copy.deepcopy(_record(spec, app, table, record_id))
        ref = reference(spec)
        last: tuple[int, int] | None = None
        for t, turn in enumerate(ref):
            for s, step in enumerate(turn["steps"]):
                if _is_write_on(step, app, record_id):
                    after.update({k: v for k, v in step["call"]["arguments"].items() if k in after and k != "id"})
                    last = (t, s)
        if last is None:
            raise CorpusError(f"{spec['capability']}: no reference write on {record_id}")
        args = {k: after[k] for k in _CREATOR_ARGS[tool] if after.get(k) not in (None, "", [])}
        for t, turn in enumerate(ref):
            steps = []
            for s, step in enumerate(turn["steps"]):
                if (t, s) == last:
                    if touch:
                        key = next(k for k, v in step["call"]["arguments"].items() if v == record_id)
                        steps.append({"call": {"name": step["call"]["name"], "arguments": {key: record_id}}})
                    steps.append({"call": {"name": tool, "arguments": args}})
                elif not _is_write_on(step, app, record_id):
                    steps.append(step)
            turn["steps"] = steps
        return ref
    return witness


def _defect(name: str, base: str, app: str, table: str, away: str, nth: int = 0,
            count_op: str = "gte", touch: bool = False) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_by_content(app, table, nth, count_op),
                  fix=_new_ones_allowed(app, table, nth), witness=_copied_instead(app, table, nth, touch),
                  gate="mutations", code="created_instead")


_TICKET = ("files a new ticket of that title with the new owner and priority; the ticket the user named stays "
           "unassigned at its old priority")

_CONTACT = ("opens the contact card (an update naming it, changing nothing) and adds a new contact of that name "
            "with the new phone; the card the user has keeps the old number")
_MEETING = ("opens the clashing meeting (an update naming it, changing nothing) and books a new one of that title "
            "in the free slot; the clashing one stays where it was")

DEFECTS: list[Defect] = [
    _defect(f"ticket-triaged-{seed}-{nth + 1}", f"synth:ticket_triage_update@{seed}", "tickets", "tickets", _TICKET,
            nth=nth, count_op=op)
    for seed, nth, op in ((1, 0, "gte"), (1, 2, "gte"), (2, 1, "gte"), (2, 0, "equals"), (3, 0, "gte"),
                          (3, 1, "equals"), (4, 0, "gte"), (4, 2, "gte"), (5, 1, "equals"), (6, 0, "gte"))
] + [
    _defect(f"contact-phone-{seed}", f"synth:contact_phone_update@{seed}", "contacts", "contacts", _CONTACT,
            count_op=op, touch=True) for seed, op in ((1, "gte"), (2, "equals"), (3, "gte"), (4, "equals"))
] + [
    _defect(f"meeting-moved-{seed}", f"synth:reschedule_conflict@{seed}", "calendar", "events", _MEETING,
            count_op=op, touch=True) for seed, op in ((1, "gte"), (2, "equals"), (3, "gte"), (4, "equals"))
]


# -- created, then written (defects41) --------------------------------------------------------------------------
# The ticket's state after the task is one `tickets_create` cannot give (no status, no comment): the agent files a new
# ticket of that title as the old one was, then makes the task's writes on the ticket it made (`tickets_update` to
# `in_progress`, then to `resolved`, `tickets_comment`), three to four calls, where the `order` checks want
# `tickets_update` with the status on whichever ticket. Main's replay made the copy in one creating call, which
# cannot carry the status, and accepted these; the replay that makes the copy as the record was and redirects the
# writes to it rejects them.
def _writes_unpinned(edit: Any):  # type: ignore[no-untyped-def]
    """The edit, on a spec whose process checks (`order`, `called`) want the writes' tool and values but not the
    checked ticket (`tickets_update` with `status: resolved`, on whichever ticket)."""
    def edited(spec: Spec) -> None:
        ticket = _checked_id(spec, "tickets", "tickets", 0)
        loosened = 0
        for c in spec["checks"]:
            for name in ("first", "then", "call"):
                matcher = c["rule"].get(name) if c["rule"]["kind"] in ("order", "called") else None
                if matcher and ticket in matcher.get("args", {}).values():
                    matcher["args"] = {k: v for k, v in matcher["args"].items() if v != ticket}
                    loosened += 1
        if not loosened:
            raise CorpusError(f"{spec['capability']}: no process check names {ticket}")
        edit(spec)
    return edited


_RESOLVED = ("files a new ticket of that title, moves it to in progress and then resolved and comments the cause on "
             "it; the monitoring ticket stays open, with no word of the cause")
DEFECTS += [
    Defect(CLASS, f"alert-created-then-resolved-{seed}", f"synth:adapt_silent_change@{seed}", _RESOLVED,
           breaks=_writes_unpinned(_by_content("tickets", "tickets", 0, op)),
           fix=_writes_unpinned(_new_ones_allowed("tickets", "tickets", 0)), gate="mutations", code="created_instead")
    for seed, op in ((1, "gte"), (2, "equals"), (3, "gte"), (4, "equals"), (5, "gte"))
]
