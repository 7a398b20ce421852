"""Undone filing: the writer checks a ticket the task files by its service, priority, assignee and text, but not that
it is still open, and the agent is given `tickets_update`, which closes it (no tool deletes a ticket). An agent that
files the ticket and closes it again passes: the lead is handed nothing. The sound twin (the shipped spec) also wants
`status: open`, the status a filed ticket starts in and the task leaves it in.

Caught by the removal replay (`undone_unchecked`, `created_writes` in `_undone`): a record the reference creates that
no tool of its app deletes or cancels is closed at the end of the last turn by the app's update tool with a closing
value of its status enum (`tickets_update` with `status: closed`), where the agent is given it; a replay that still
passes checks a ticket that was filed, not one that is open.
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, reference, replay_defect, with_call
from tests.defects.undone_created import _created

CLASS = "undone_filed_ticket"
DETECTION = (
    "replay the reference with each ticket it files closed at the end by the tickets app's update tool "
    "(`tickets_update` with `status: closed`), where the agent is given it; a replay that still passes checks a "
    "ticket that was filed, not one that is still open"
)


def _any_status(spec: Spec) -> None:
    """The `status equals open` condition dropped from every check on the tickets that wants it."""
    hits = 0
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] != "records" or (rule["app"], rule["table"]) != ("tickets", "tickets"):
            continue
        where = rule["where"]
        if any(w["field"] == "status" and w.get("op", "equals") == "equals" and w["value"] == "open" for w in where):
            rule["where"] = [w for w in where if w["field"] != "status"]
            hits += 1
    if not hits:
        raise CorpusError(f"{spec['capability']}: no check wants a ticket open")


def _closed(spec: Spec) -> list[dict[str, Any]]:
    """The reference, then every ticket it filed closed by `tickets_update`."""
    ref = reference(spec)
    for rid in _created(spec, "tickets", "tickets"):
        ref = with_call(spec, "tickets_update", {"ticket_id": rid, "status": "closed"}, ref=ref)
    return ref


def _defect(name: str, base: str, away: str) -> Defect:
    return replay_defect(CLASS, "undone_unchecked", name, base, _any_status, away, _closed, "cheat")


_KEPT = "the check wants a ticket with the service, priority, assignee and text, which the closed ticket still has"
_AWAY = f"files the ticket and closes it again: {_KEPT}"

DEFECTS = [
    *(_defect(f"mail-ticket-closed-{n}", f"synth:mail_ticket_chat_coordination@{n}",
              "files the customer's ticket, replies and posts its id, and closes it: " + _KEPT)
      for n in (1, 2, 3)),
    *(_defect(f"incident-ticket-closed-{n}", f"synth:incident_investigate_fix@{n}",
              "fixes the incident, files the ticket for the owner's lead and closes it: " + _KEPT)
      for n in (1, 2, 3)),
    *(_defect(f"rollout-ticket-closed-{n}", f"synth:feature_flag_rollout@{n}",
              "rolls staging back, files the failure ticket for the lead and closes it: " + _KEPT)
      for n in (1, 2, 3)),
    *(_defect(f"request-ticket-closed-{n}", f"synth:refuse_forbidden_action@{n}",
              "refuses, files the freeze-exception or data-request ticket and closes it: " + _KEPT)
      for n in (5, 6, 8)),
    _defect("incident-example-closed", "example:incident_rollback", _AWAY),
    _defect("report-example-closed", "example:report_from_files", _AWAY),
]
