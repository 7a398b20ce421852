"""Wrong expected value: a check expects something the task does not ask for (the other priority, the local
time written as UTC, the bad release), so the correct reference fails it."""

from __future__ import annotations

from tests.defects._core import CorpusError, Defect, Spec, check, cond

CLASS = "wrong_expected"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    'the reference fails its own checks (oracle gate)'
)
GATE, CODE = "oracle", "oracle_check_failed"


def _set_value(check_id: str, value: object):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        check(spec, check_id)["rule"]["value"] = value
    return breaks


def _set_cond(check_id: str, field: str, value: object):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        cond(check(spec, check_id), field)["value"] = value
    return breaks


def _bad_release(spec: Spec) -> None:
    rule = check(spec, "fixed")["rule"]
    bad = spec["turns"][1]["changes"][0]["record"]["version"]
    rule["value"] = bad


def _paused_unsorted(spec: Spec) -> None:
    rule = check(spec, "recorded")["rule"]
    names = rule["value"].split(",")
    if len(names) < 2:
        raise CorpusError(f"{spec['capability']}: one paused job, no order to get wrong")
    rule["value"] = ",".join(reversed(names))



def _mail_body_pinned(spec: Spec) -> None:
    """The sound twin of the declared-tools triage: the mail to the on-call names the issue in its body too."""
    issue = check(spec, "priority_raised")["rule"]["target"]["id"]
    check(spec, "mailed_on_call")["rule"]["where"].append({"field": "body", "op": "contains", "value": issue})

def _due_local_as_utc(spec: Spec) -> None:
    """The check wants the sender's local clock time written as UTC (the offset dropped)."""
    for c in spec["checks"]:
        for w in c["rule"].get("where", []) if c["rule"]["kind"] == "records" else []:
            if w["field"] == "due":
                title = next(x["value"] for x in c["rule"]["where"] if x["field"] == "title")
                local = next(cl["arguments"]["due"] for t in spec["reference"] for st in t["steps"]
                             if (cl := st.get("call")) and cl["name"] == "todo_add_task" and title in cl["arguments"]["title"])
                if not local.endswith("Z"):
                    w["value"] = local[:19] + "Z"
                    return
    raise CorpusError(f"{spec['capability']}: every due time is already UTC")


DEFECTS = [
    Defect(CLASS, "priority-p1-not-p2", "synth:incident_investigate_fix@1",
           "the task asks for a P2 ticket; the check wants p1", breaks=_set_cond("incident-ticket", "priority", "p1"),
           gate=GATE, code=CODE, reference_sound=False),
    Defect(CLASS, "local-time-as-utc", "synth:reschedule_conflict@1",
           "the check wants the colleague's local clock time written as UTC",
           breaks=lambda s: _set_value("moved-to-free-slot", check(s, "mate-told")["rule"]["where"][2]["value"].join(
               (check(s, "moved-to-free-slot")["rule"]["value"][:11], ":00Z")))(s), gate=GATE, code=CODE, reference_sound=False),
    Defect(CLASS, "expects-bad-release", "synth:adapt_silent_change@1",
           "the check wants the crashing release the task says to roll away from", breaks=_bad_release,
           gate=GATE, code=CODE, reference_sound=False),
    Defect(CLASS, "timezone-of-attendee", "synth:schedule_meeting_timezones@1",
           "the check wants the event in UTC though the user asked for their own time zone",
           breaks=_set_cond("in-my-timezone", "timezone", "UTC"), gate=GATE, code=CODE, reference_sound=False),
    Defect(CLASS, "config-version-bad", "example:incident_rollback",
           "the check wants the bad config v4 kept", breaks=_set_value("config-rolled-back", 4), gate=GATE, code=CODE, reference_sound=False),
    Defect(CLASS, "archive-folder-misnamed", "synth:inbox_triage_reply@1",
           "the check wants the mail in 'inbox' (the writer confused source and destination)",
           breaks=lambda s: _set_value(check(s, kind="field")["id"], "inbox")(s), gate=GATE, code=CODE, reference_sound=False),
    Defect(CLASS, "paused-jobs-not-alphabetical", "synth:scheduler_pause_failing_jobs@1",
           "the task asks for the names in alphabetical order; the check wants them reversed",
           breaks=_paused_unsorted, gate=GATE, code=CODE, reference_sound=False),
    Defect(CLASS, "declared-tool-word-as-stored", "example:triage_escalation_declared_tools",
           "the check wants the declared tool's word 'highest' where the tickets app stores p1",
           breaks=lambda s: (_mail_body_pinned(s), check(s, "priority_raised")["rule"].update(value="highest")),
           # 'highest' is no value of the stored priority (p1..p4): the references gate names it before the oracle plays.
           fix=_mail_body_pinned, gate="references", code="value_never_held", reference_sound=False),
    Defect(CLASS, "due-local-time-as-utc", "synth:todo_track_mail_requests@1",
           "the check wants the requester's local deadline written as UTC, hours off the time they asked for",
           # The wrong value is the request mail's own clock time, so the isolation gate may see it first.
           breaks=_due_local_as_utc, reference_sound=False),
]
