"""Vacuous in practice: checks that can fail in theory but hold for anything an agent plausibly does
("count >= 1" on a channel that already has posts, "subject != X", "assignee in everyone")."""

from __future__ import annotations

from tests.defects._core import (
    CorpusError,
    Defect,
    Spec,
    call,
    check,
    cond,
    field_check,
    noop_reference,
    with_args,
    with_call,
    without,
    world,
)

CLASS = "vacuous"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "a non-guard check that holds on the initial state, on noop and on every near miss decides nothing; probe op/value pairs that admit everything ('in' all people, 'contains []', 'not_equals' a value the field never has)"
)


def _any_sent_mail(spec: Spec) -> None:
    c = check(spec, "report-mailed")
    subject = call(spec, "mail_send")["arguments"]["subject"]
    c["rule"]["where"] = [cond(c, "folder"), {"field": "subject", "op": "not_equals", "value": subject}]


def _status_not_blocked(spec: Spec) -> None:
    rule = check(spec, "in-progress")["rule"]
    rule["op"], rule["value"] = "not_equals", "blocked"


def _assignee_in_everyone(spec: Spec) -> None:
    rule = field_check(spec, "assignee")["rule"]
    rule["op"], rule["value"] = "in", [p["id"] for p in world(spec, "directory", "people")]


def _any_post_in_channel(check_id: str):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        c = check(spec, check_id)
        c["rule"]["where"] = [w for w in c["rule"]["where"] if w["field"] == "channel"]
        c["rule"]["count_op"], c["rule"]["count"] = "gte", 1
    return breaks


def _any_leads_post(spec: Spec) -> None:
    """Any post in the channel counts (text, sender and date conditions dropped)."""
    _any_post_in_channel("headline-posted")(spec)


def _status_reopened(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    """Moves the ticket to in progress as asked, then back to open before answering."""
    ticket = check(spec, "in-progress")["rule"]["target"]["id"]
    return with_call(spec, "tickets_update", {"ticket_id": ticket, "status": "open"})


def _count_at_most(check_id: str, count: int):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        check(spec, check_id, "records")["rule"].update(count_op="lte", count=count)
    return breaks


DEFECTS = [
    Defect(CLASS, "mail-subject-not-x", "example:report_from_files",
           "mails Grace without the reports attached: last week's sent mail already has another subject",
           breaks=_any_sent_mail, witness=lambda s: with_args(s, "mail_send", {}, attachments=[])),
    Defect(CLASS, "status-not-blocked", "synth:delegate_and_follow_up@1",
           "leaves the ticket open in the end (open is 'not blocked')", breaks=_status_not_blocked,
           witness=_status_reopened),
    Defect(CLASS, "assignee-in-everyone", "synth:ticket_triage_update@1",
           "assigns the ticket to anyone at all", breaks=_assignee_in_everyone,
           witness=lambda s: with_args(s, "tickets_update",
                                       {"ticket_id": field_check(s, "assignee")["rule"]["target"]["id"]},
                                       assignee=s["user"])),
    Defect(CLASS, "incidents-has-a-post", "example:incident_rollback",
           "posts nothing about the incident: #incidents already had a reminder in it",
           breaks=_any_post_in_channel("incident-announced"),
           witness=lambda s: with_args(s, "chat_post_message", {"channel": "#incidents"}, text="Looking.")),
    Defect(CLASS, "incidents-has-a-post-synth", "synth:incident_investigate_fix@1",
           "announces nothing useful: #incidents already had posts in it", breaks=_any_post_in_channel("announced"),
           witness=lambda s: with_args(s, "chat_post_message", {"channel": "#incidents"}, text="Looking.")),
    Defect(CLASS, "leads-channel-has-a-post", "example:report_from_files",
           "posts no headline numbers: the channel already had a post", breaks=_any_leads_post,
           witness=lambda s: with_args(s, "chat_post_message", {}, text="Report is out.")),
    Defect(CLASS, "attendees-kept-empty-list", "example:meeting_reschedule",
           "drops the original attendees when adding Elena: 'contains []' holds for any list",
           breaks=lambda s: check(s, "attendees-kept")["rule"].update(value=[]),
           witness=lambda s: with_args(s, "calendar_update_event", {"attendees": cond_value(s)},
                                       attendees=["elena.rossi@brightline.test"])),
    Defect(CLASS, "audit-at-most-five-tasks", "synth:web_page_audit@1",
           "files a to-do for a healthy page too: 'exactly one new task' became 'at most five'",
           breaks=_count_at_most("only-broken", 5),
           witness=lambda s: with_call(s, "todo_add_task", {
               "list_id": call(s, "todo_add_task")["arguments"]["list_id"],
               "title": "Fix " + call(s, "web_fetch")["arguments"]["url"] + " (HTTP 200)"})),
    Defect(CLASS, "label-not-equals-string", "synth:todo_track_mail_requests@1",
           "never labels the mails: 'labels != tracked' compares a list with a string and always holds",
           breaks=lambda s: [c["rule"].update(op="not_equals") for c in s["checks"]
                             if c["rule"]["kind"] == "field" and c["rule"]["target"]["field"] == "labels"],
           witness=lambda s: without(s, "mail_label")),
    Defect(CLASS, "job-enabled-either-way", "synth:scheduler_pause_failing_jobs@1",
           "leaves the failing jobs running: 'enabled in [true, false]' holds either way",
           breaks=lambda s: [c["rule"].update(op="in", value=[True, False]) for c in s["checks"]
                             if c["rule"]["kind"] == "field" and c["rule"]["target"]["field"] == "enabled"],
           witness=lambda s: without(s, "scheduler_update_job")),
]



def cond_value(spec: Spec) -> list[str]:
    """The attendee list the reference's second update sets (original attendees plus Elena)."""
    return [*list(check(spec, "attendees-kept")["rule"]["value"]), "elena.rossi@brightline.test"]


__all__ = ["DEFECTS", "noop_reference"]


# -- outsider defects (session 19) -------------------------------------------------------------------------------
def _paused_all_of_filtered(spec: Spec) -> None:
    """'Every failing job of the team is now disabled' written in Python: the filter spells the run status
    'failure' (the scheduler says 'failed'), so it keeps no job and all() holds on any state."""
    team = check(spec, kind="frame")  # the jobs the frame allows are the ones to pause
    ids = [a["id"] for a in team["rule"]["allow"] if a.get("table") == "jobs" and a.get("id")]
    paused = [c for c in spec["checks"] if c["rule"]["kind"] == "field" and c["rule"]["target"]["field"] == "enabled"]
    first = paused[0]
    first["rule"] = {"kind": "python", "entrypoint": "check", "apps": ["scheduler"], "code": (
        "def check(state, audit, messages):\n"
        "    jobs = state['apps']['scheduler']['jobs']\n"
        f"    failing = [j for j in jobs if j['id'] in {ids!r} and j['last_status'] == 'failure']\n"
        "    return all(not j['enabled'] for j in failing)\n")}
    spec["checks"] = [c for c in spec["checks"] if c not in paused[1:]]
    if not ids:
        raise CorpusError(f"{spec['capability']}: the frame names no job")


DEFECTS += [
    Defect(CLASS, "python-all-over-empty-filter", "synth:scheduler_pause_failing_jobs@2",
           "pauses none of the failing jobs: the Python check's all() runs over a list its misspelt status filter "
           "leaves empty", breaks=_paused_all_of_filtered,
           witness=lambda s: without(s, "scheduler_update_job")),
]
