"""Duplicate-tolerant counts: "one ticket" checked as "at least one", so filing the same ticket (or booking the
same meeting) twice passes. The frame allows the records the count is about (those meeting its conditions),
however many there are, in twin and defect alike: only the count can tell one from two."""

from __future__ import annotations

import copy
import re

from tests.defects._core import CorpusError, Defect, Spec, check, frame, reference

CLASS = "duplicate_tolerant"
_COUNTED = re.compile(r"^[A-Za-z]+-\d+$")  # an id `World.new_id` hands out: the reference run's, not the task's
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    'repeat a creating write of the reference (a second ticket, event, mail); if every check still passes, counts tolerate duplicates'
)


def _table_frame(check_id: str):  # type: ignore[no-untyped-def]
    """The frame allows the records the count counts (a sound choice while the count is exact), in place of the
    record the reference made by the id its run gave it: a wrong record made first would take that id, and the
    values would admit the right one beside it (`frame_created_id`)."""

    def fix(spec: Spec) -> None:
        rule = check(spec, check_id, "records")["rule"]
        allow = frame(spec)["rule"]["allow"]
        allow[:] = [s for s in allow if not (s.get("app") == rule["app"] and s.get("table") == rule["table"]
                                             and _COUNTED.match(str(s.get("id") or "")))]
        allow.append({"app": rule["app"], "table": rule["table"], "where": copy.deepcopy(rule["where"])})
    return fix


def _at_least(check_id: str):  # type: ignore[no-untyped-def]
    fix = _table_frame(check_id)

    def breaks(spec: Spec) -> None:
        fix(spec)
        rule = check(spec, check_id, "records")["rule"]
        if rule.get("count_op") != "equals":
            raise CorpusError(f"{check_id}: not an exact count")
        rule["count_op"] = "gte"
    return breaks


def _twice(tool: str):  # type: ignore[no-untyped-def]
    def witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
        ref = reference(spec)
        for turn in ref:
            for i, step in enumerate(turn["steps"]):
                if step.get("call") and step["call"]["name"] == tool:
                    turn["steps"].insert(i + 1, copy.deepcopy(step))
                    return ref
        raise CorpusError(f"{spec['capability']}: the reference never calls {tool}")
    return witness


def _defect(name: str, base: str, check_id: str, tool: str, gets_away_with: str) -> Defect:
    return Defect(CLASS, name, base, gets_away_with, breaks=_at_least(check_id), fix=_table_frame(check_id),
                  witness=_twice(tool))


def _no_total_count(check_id: str, total_id: str):  # type: ignore[no-untyped-def]
    """The twin: no 'exactly N new records' total, each record's own count still exact."""

    def fix(spec: Spec) -> None:
        _table_frame(check_id)(spec)
        spec["checks"] = [c for c in spec["checks"] if c["id"] != total_id]
    return fix


def _at_least_no_total(check_id: str, total_id: str):  # type: ignore[no-untyped-def]
    fix = _no_total_count(check_id, total_id)

    def breaks(spec: Spec) -> None:
        fix(spec)
        check(spec, check_id, "records")["rule"]["count_op"] = "gte"
    return breaks


def _on_first_page_task(make):  # type: ignore[no-untyped-def]
    """`make`'s edit for the spec's first to-do count (its id names the broken page) and the `only-broken` total."""

    def edit(spec: Spec) -> None:
        task = check(spec, kind="records", where=lambda c: c["id"].startswith("task-"))["id"]
        make(task, "only-broken")(spec)
    return edit


DEFECTS = [
    _defect("incident-ticket-twice", "example:incident_rollback", "incident-ticket", "tickets_create",
            "files the incident ticket twice"),
    _defect("flag-incident-ticket-twice", "synth:incident_investigate_fix@1", "incident-ticket", "tickets_create",
            "files the incident ticket twice"),
    _defect("customer-ticket-twice", "synth:mail_ticket_chat_coordination@1", "ticket-filed", "tickets_create",
            "files the customer's problem twice"),
    _defect("meeting-booked-twice", "synth:schedule_meeting_timezones@1", "booked-earliest-slot",
            "calendar_create_event", "books the meeting twice"),
    _defect("staging-ticket-twice", "synth:feature_flag_rollout@1", "failure-ticket", "tickets_create",
            "files the staging failure twice"),
    Defect(CLASS, "audit-task-twice", "synth:web_page_audit@1",
           "files the broken page's to-do twice: the task count is 'at least one' and no total is checked",
           breaks=_on_first_page_task(_at_least_no_total), fix=_on_first_page_task(_no_total_count),
           witness=_twice("todo_add_task")),
]

# Outsider defects (session 19): a review ticket and a calendar booking counted 'at least one'.
DEFECTS += [
    _defect("review-ticket-twice", "synth:refuse_forbidden_action@8", "review-requested", "tickets_create",
            "files the data-request review ticket twice"),
    _defect("staging-failure-ticket-twice", "synth:feature_flag_rollout@2", "failure-ticket", "tickets_create",
            "files the staging failure ticket twice"),
]
