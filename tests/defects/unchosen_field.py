"""Checks on a field the agent does not choose: "the ticket is for Jon" checked through `reporter` (always the
user), "the reply went to Elif" through `sender` (always the user): the check holds whoever gets the work."""

from __future__ import annotations

from tests.defects._core import (
    Defect,
    Spec,
    call,
    check,
    cond,
    frame,
    has_cond,
    record,
    unpin,
    with_args,
    world,
)

CLASS = "unchosen_field"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    'change the recipient/assignee of a write to another person; a check that reads a field the agent does not choose (reporter, sender, organizer) lets it survive'
)


def _other_person(spec: Spec, *avoid: str) -> dict:  # type: ignore[type-arg]
    return next(p for p in world(spec, "directory", "people") if p["id"] not in (*avoid, spec["user"])
                and p["email"] not in avoid)


def _reporter_not_assignee(check_id: str):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        c = cond(check(spec, check_id), "assignee")
        c["field"], c["value"] = "reporter", spec["user"]
    return breaks


def _ticket_to_other(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    assignee = call(spec, "tickets_create")["arguments"]["assignee"]
    return with_args(spec, "tickets_create", {}, assignee=_other_person(spec, assignee)["id"])


def _sender_not_recipient(check_id: str):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        c = cond(check(spec, check_id), "to")
        c["field"], c["op"], c["value"] = "sender", "equals", record(spec, "directory", "people", spec["user"])["email"]
    return breaks


def _mail_to_other(tool: str):  # type: ignore[no-untyped-def]
    def witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
        to = call(spec, tool)["arguments"]["to"]
        return with_args(spec, tool, {}, to=[_other_person(spec, *to)["email"]])
    return witness


def _organizer_not_attendees(spec: Spec) -> None:
    c = check(spec, "booked-earliest-slot")
    attendees = cond(c, "attendees")
    unpin(spec, "attendees", attendees["value"])
    attendees["field"], attendees["op"] = "organizer", "equals"
    attendees["value"] = record(spec, "directory", "people", spec["user"])["email"]


def _invite_nobody(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    return with_args(spec, "calendar_create_event", {}, attendees=[])


def _dm_by_sender(spec: Spec) -> None:
    """'Anya got the answer' checked as 'the user posted the answer' (sender), in check and frame alike."""
    c = check(spec, kind="records", where=has_cond("channel"))
    c["rule"]["where"] = [w for w in c["rule"]["where"] if w["field"] != "channel"]
    allow = frame(spec)["rule"]["allow"]
    for sel in allow:
        sel["where"] = [w for w in sel.get("where") or [] if w["field"] != "channel"]
    allow.append({"app": "chat", "table": "channels"})  # a DM may open its channel


def _dm_other(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    person = call(spec, "chat_send_dm")["arguments"]["person"]
    return with_args(spec, "chat_send_dm", {}, person=_other_person(spec, person)["id"])


def _recorded_by_user(spec: Spec) -> None:
    """'The entry lists the paused jobs' checked as 'the user updated the entry' (updated_by)."""
    c = check(spec, "recorded")
    c["rule"]["target"]["field"], c["rule"]["value"] = "updated_by", spec["user"]


DEFECTS = [
    Defect(CLASS, "event-organizer", "synth:schedule_meeting_timezones@1",
           "books the meeting with nobody invited: the check reads the organizer", breaks=_organizer_not_attendees,
           witness=_invite_nobody),
    Defect(CLASS, "incident-ticket-reporter", "synth:incident_investigate_fix@1",
           "assigns the incident ticket to anyone: the check reads the reporter", witness=_ticket_to_other,
           breaks=_reporter_not_assignee("incident-ticket")),
    Defect(CLASS, "customer-ticket-reporter", "synth:mail_ticket_chat_coordination@1",
           "assigns the customer's ticket to anyone: the check reads the reporter", witness=_ticket_to_other,
           breaks=_reporter_not_assignee("ticket-filed")),
    Defect(CLASS, "staging-ticket-reporter", "synth:feature_flag_rollout@1",
           "files the staging failure for anyone: the check reads the reporter", witness=_ticket_to_other,
           breaks=_reporter_not_assignee("failure-ticket")),
    Defect(CLASS, "reply-sender", "synth:inbox_triage_reply@1",
           "sends the answer to someone else: the check reads the sender", witness=_mail_to_other("mail_send"),
           breaks=_sender_not_recipient("question-answered")),
    Defect(CLASS, "draft-sender", "synth:draft_only_reply@1",
           "drafts the reply to someone else: the check reads the sender", witness=_mail_to_other("mail_save_draft"),
           breaks=_sender_not_recipient("draft-ready")),
    Defect(CLASS, "answer-dm-sender", "synth:lookup_answer_source@1",
           "sends the answer to someone else: the check reads who posted it, not the channel",
           breaks=_dm_by_sender, witness=_dm_other),
    Defect(CLASS, "paused-jobs-updated-by", "synth:scheduler_pause_failing_jobs@1",
           "writes anything to ops/paused-jobs: the check reads who updated the entry",
           breaks=_recorded_by_user, witness=lambda s: with_args(s, "config_set", {}, value="none")),
]
