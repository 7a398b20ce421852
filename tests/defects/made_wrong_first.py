"""A record the user asks for one of, counted by its asked values: a wrong one made first, then the right one, passes.

The user asks for one ticket ("file a single ticket for it", "book it as a single meeting"). The writer counts it
exactly, but by the values it must have (`exactly 1 ticket where service == svc-x and priority == p1`), and the frame
allows the record the reference made by the id its run gave it, plus the records that count admits (the
duplicate_tolerant twins' frame). An agent that first files the ticket with a wrong priority (or books the meeting on
the wrong day) and then the right one made two where one was asked: the wrong one takes the id the reference's record
had, so the frame allows it, and the count of records with the asked values is still one. Only the final state is
read, and the wrong record made before the right one was never tried. The sound twin also counts every new record of
the table exactly (a total by when it was made, or by its title).

Main made no such near miss (the plain duplicate only, which the exact count catches). Caught by the mutations gate
(`made_wrong_first`): where the turn asks for one of what a creating write makes (`_asked_once`), the write is also
made first with one of its near misses (another value, time or person), then right.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, frame, reference

CLASS = "made_wrong_first"
DETECTION = (
    "where a user turn asks for one record of what a creating write makes, make it first with another value (a "
    "field, a time, a person), then as the reference does; if every check still passes, the counts read only the "
    "asked values and the frame lets the wrong record stay"
)
GATE, CODE = "mutations", "made_wrong_first"


def _asked(words: str, check_id: str, total: tuple[str, ...] | None):  # type: ignore[no-untyped-def]
    """The user's words asking for one record added to the first turn; the frame also allows the records the count
    `check_id` admits; the twin (`total`: the count's conditions on these fields) counts every new record exactly."""
    def edit(spec: Spec) -> None:
        turn = spec["turns"][0]
        turn["content"] = f"{turn['content'].rstrip()} {words}"
        rule = check(spec, check_id, "records")["rule"]
        if rule.get("count_op") != "equals" or rule.get("count", 1) != 1:
            raise CorpusError(f"{check_id}: not an exact count of one")
        frame(spec)["rule"]["allow"].append({"app": rule["app"], "table": rule["table"],
                                             "where": copy.deepcopy(rule["where"])})
        if total is not None:
            kept = [w for w in rule["where"] if w["field"] in total]
            if not kept:
                raise CorpusError(f"{check_id}: no condition on {total}")
            spec["checks"].append({"id": f"{check_id}-only-one", "rule": {
                "kind": "records", "app": rule["app"], "table": rule["table"], "where": copy.deepcopy(kept),
                "count_op": "equals", "count": 1}})
    return edit


def _first(tool: str, change: Any):  # type: ignore[no-untyped-def]
    """The reference with its first `tool` call made first with `change(arguments)`, then as it is."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        for turn in ref:
            for i, step in enumerate(turn["steps"]):
                if step.get("call") and step["call"]["name"] == tool:
                    wrong = copy.deepcopy(step)
                    change(wrong["call"]["arguments"])
                    turn["steps"].insert(i, wrong)
                    return ref
        raise CorpusError(f"{spec['capability']}: the reference never calls {tool}")
    return witness


def _other_priority(args: dict[str, Any]) -> None:
    args["priority"] = "p1" if args.get("priority") != "p1" else "p3"


def _next_day(args: dict[str, Any]) -> None:
    for key in ("start", "end"):
        moved = datetime.fromisoformat(args[key].replace("Z", "+00:00")) + timedelta(days=1)
        args[key] = moved.strftime("%Y-%m-%dT%H:%M:%SZ")


def _defect(name: str, base: str, tool: str, words: str, check_id: str, total: tuple[str, ...], change: Any,
            what: str) -> Defect:
    return Defect(CLASS, name, base, f"{what} though the user said {words!r}: {check_id!r} counts only the record with "
                  "the asked values, and the frame allows the first record made by the id the reference's had",
                  breaks=_asked(words, check_id, None), fix=_asked(words, check_id, total),
                  witness=_first(tool, change), gate=GATE, code=CODE)


DEFECTS = [
    _defect("single-ticket-incident-3", "synth:incident_investigate_fix@3", "tickets_create",
            "File a single ticket for it.", "incident-ticket", ("created_at",), _other_priority,
            "files the incident ticket at another priority first, then the right one,"),
    _defect("one-ticket-staging-3", "synth:feature_flag_rollout@3", "tickets_create",
            "One ticket is enough.", "failure-ticket", ("created_at",), _other_priority,
            "files the staging failure at another priority first, then the right one,"),
    _defect("single-ticket-customer-2", "synth:mail_ticket_chat_coordination@2", "tickets_create",
            "Open just one ticket, please.", "ticket-filed", ("created_at",), _other_priority,
            "files the customer's ticket at another priority first, then the right one,"),
    _defect("single-meeting-schedule-3", "synth:schedule_meeting_timezones@3", "calendar_create_event",
            "Book it as a single meeting.", "booked-earliest-slot", ("title", "status"), _next_day,
            "books the meeting a day late first, then on the right day,"),
    _defect("one-ticket-review-8", "synth:refuse_forbidden_action@8", "tickets_create",
            "Only one ticket, please.", "review-requested", ("created_at", "labels"), _other_priority,
            "files the review ticket at another priority first, then the right one,"),
]
