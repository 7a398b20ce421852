"""A frame that allows a record the agent creates by the id the reference's run gave it, beside the records an exact
count admits by their values: a wrong record made first, then the right one, passes.

The writer counts the new ticket (meeting) exactly by the values it must have (`exactly 1 ticket where service ==
svc-x and priority == p1`) and lets the frame allow those records, but keeps the frame's selector for the record the
reference made (`{table: tickets, id: TCK-105}`). Ids are handed out in creation order, so that selector allows
whatever record the agent makes first: an agent that files the ticket at a wrong priority (or books the meeting a day
late), then the right one, leaves two records; the wrong one holds the id, the right one the values, and the count by
values still finds one. No turn asks for one record (that is `made_wrong_first`), so main never tried it. The sound
twin allows the new record by its values only.

Caught by the mutations gate (`frame_created_id`): where a frame allows a created record by a counted id no turn names
beside another selector on that table, each creating write of the app is also made first with a near miss, then
right.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, frame
from tests.defects.made_wrong_first import _first, _next_day, _other_priority

CLASS = "frame_created_id"
DETECTION = (
    "where a frame allows a created record by the counted id the reference's run gave it (no turn names it) beside a "
    "selector admitting that table's records by value, make each creating write first with a near miss, then right; "
    "if every check still passes, the wrong record kept the id the frame allows"
)
GATE, CODE = "mutations", "frame_created_id"
_COUNTED = re.compile(r"^[A-Za-z]+-\d+$")


def _by_values(check_id: str, keep_id: bool):  # type: ignore[no-untyped-def]
    """The frame also allows the records the exact count `check_id` admits; the twin (`keep_id` False) drops the
    frame's selectors by counted id on that table."""
    def edit(spec: Spec) -> None:
        rule = check(spec, check_id, "records")["rule"]
        if rule.get("count_op") != "equals" or rule.get("count", 1) != 1:
            raise CorpusError(f"{check_id}: not an exact count of one")
        allow = frame(spec)["rule"]["allow"]
        pinned = [s for s in allow if s.get("app") == rule["app"] and s.get("table") == rule["table"]
                  and _COUNTED.match(str(s.get("id") or ""))]
        if not pinned:
            raise CorpusError(f"{check_id}: the frame allows no {rule['table']} record by a counted id")
        if not keep_id:
            allow[:] = [s for s in allow if s not in pinned]
        allow.append({"app": rule["app"], "table": rule["table"], "where": copy.deepcopy(rule["where"])})
    return edit


def _defect(name: str, base: str, tool: str, check_id: str, change: Any, what: str) -> Defect:
    return Defect(CLASS, name, base, f"{what}: {check_id!r} counts only the record with the asked values, and the "
                  "frame allows the first record made by the id the reference's had",
                  breaks=_by_values(check_id, True), fix=_by_values(check_id, False),
                  witness=_first(tool, change), gate=GATE, code=CODE)


DEFECTS = [
    _defect("incident-ticket-id-allowed-2", "synth:incident_investigate_fix@2", "tickets_create", "incident-ticket",
            _other_priority, "files the incident ticket at another priority first, then the right one"),
    _defect("staging-ticket-id-allowed-4", "synth:feature_flag_rollout@4", "tickets_create", "failure-ticket",
            _other_priority, "files the staging failure at another priority first, then the right one"),
    _defect("customer-ticket-id-allowed-3", "synth:mail_ticket_chat_coordination@3", "tickets_create", "ticket-filed",
            _other_priority, "files the customer's ticket at another priority first, then the right one"),
    _defect("meeting-id-allowed-2", "synth:schedule_meeting_timezones@2", "calendar_create_event",
            "booked-earliest-slot", _next_day, "books the meeting a day late first, then on the right day"),
    _defect("rollback-ticket-id-allowed", "example:incident_rollback", "tickets_create", "incident-ticket",
            _other_priority, "files the rollback incident at another priority first, then the right one"),
]
