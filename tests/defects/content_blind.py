"""Content-blind: free text the task is about is never checked (the CSV's rows, a ticket's description, a reply's
body, a handoff note's list)."""

from __future__ import annotations

import re
from typing import Any

from tests.defects._core import (
    CorpusError,
    Defect,
    Spec,
    call,
    calls,
    check,
    cond,
    drop_checks,
    has_cond,
    record,
    with_args,
    with_say,
    world,
)

CLASS = "content_blind"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "blank, truncate or alter the free-text arguments of the reference's writes (file content, description, body); if every check still passes, the text is unchecked"
)


def _keep_only(field: str, keep_first: int = 0):  # type: ignore[no-untyped-def]
    """Drop the conditions on `field` of the first records check that has one (keeping the first `keep_first`)."""

    def breaks(spec: Spec) -> None:
        c = check(spec, kind="records", where=has_cond(field))
        conds = c["rule"]["where"]
        on_field = [w for w in conds if w["field"] == field]
        c["rule"]["where"] = [w for w in conds if w["field"] != field or w in on_field[:keep_first]]
    return breaks


def _loose_body_regex(spec: Spec) -> None:
    """The body must 'mention' the answer (a regex on its first three characters), not state it."""
    c = cond(check(spec, kind="records", where=has_cond("body")), "body")
    c["op"], c["value"] = "matches", "(?i)" + re.escape(str(c["value"])[:3])


def _loose_body_witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    """A reply that names only the answer's first three characters (what the loose regex wants)."""
    value = str(cond(check(spec, kind="records", where=has_cond("body")), "body")["value"])
    fragment = re.sub(r"\\(.)", r"\1", value[4:]) if value.startswith("(?i)") else value[:3]
    return with_args(spec, "mail_send", {}, body=f"Hi, I will look into {fragment} and get back to you.")


def _summary_long_enough(spec: Spec) -> None:
    """The summary is checked for being a Markdown file of some length, not for the week's numbers."""
    c = check(spec, "md-summary")
    c["rule"]["where"] = [w for w in c["rule"]["where"] if w["field"] != "content"] + [
        {"field": "content", "op": "matches", "value": "(?s).{40,}"}]


def _recorded_prefix(spec: Spec) -> None:
    """The recorded list is checked for looking like team jobs ('^payments-'), not for naming the right ones."""
    rule = check(spec, "recorded")["rule"]
    rule["op"], rule["value"] = "matches", "^" + rule["value"].split("-")[0] + "-"


def _record_healthy_job(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    team = check(spec, "recorded")["rule"]["value"].split("-")[0]
    healthy = next(j["name"] for j in world(spec, "scheduler", "jobs")
                   if j["name"].startswith(team) and j.get("last_status") == "ok")
    return with_args(spec, "config_set", {}, value=healthy)


DEFECTS = [
    Defect(CLASS, "summary-length-only", "example:report_from_files",
           "writes a summary of boilerplate: the check only wants 40 characters",
           breaks=_summary_long_enough,
           witness=lambda s: with_args(s, "files_write_file", {"path": "reports/support_w14.md"},
                                       content="# Support report\n\nThe weekly numbers are in the CSV attached.\n")),
    Defect(CLASS, "reply-body-loose-regex", "synth:inbox_triage_reply@1",
           "answers 'I will look into it' without the answer: the body regex wants only its first three characters",
           breaks=_loose_body_regex, witness=_loose_body_witness),
    Defect(CLASS, "csv-rows-unchecked", "synth:report_from_data@1",
           "writes the report file with only its header line", breaks=_keep_only("content", keep_first=1),
           witness=lambda s: with_args(s, "files_write_file", {}, content="service,open_tickets\n")),
    Defect(CLASS, "ticket-description-unchecked", "synth:incident_investigate_fix@1",
           "opens the incident ticket with an empty description (no failing request quoted)",
           breaks=lambda s: drop_checks(s, lambda c: c["id"] == "ticket-quotes-request"),
           witness=lambda s: with_args(s, "tickets_create", {}, description="Investigating.")),
    Defect(CLASS, "reply-body-unchecked", "synth:inbox_triage_reply@1",
           "replies to the question without the answer", breaks=_keep_only("body"),
           witness=lambda s: with_args(s, "mail_send", {}, body="Hi, I'll look into it.")),
    Defect(CLASS, "handoff-note-unchecked", "synth:oncall_handoff@1",
           "writes an empty handoff note", breaks=_keep_only("content"),
           witness=lambda s: with_args(s, "files_write_file", {}, content="# Handoff\n")),
    Defect(CLASS, "roster-rows-unchecked", "synth:correct_bad_data@1",
           "rewrites the roster unchanged, wrong rows included", breaks=_keep_only("content", keep_first=1),
           witness=lambda s: with_args(s, "files_write_file", {}, content=record(
               s, "files", "files", s["reference"][0]["steps"][0]["call"]["arguments"]["path"])["content"])),
    Defect(CLASS, "summary-numbers-unchecked", "example:report_from_files",
           "writes a Markdown summary without the week's totals",
           breaks=lambda s: check(s, "md-summary")["rule"].update(
               where=[w for w in check(s, "md-summary")["rule"]["where"] if w["field"] != "content"]),
           witness=lambda s: with_args(s, "files_write_file", {"path": "reports/support_w14.md"},
                                       content="# Support report, week 14\n\nSee the CSV.\n")),
    Defect(CLASS, "phone-confirmation-body-unchecked", "synth:contact_phone_update@1",
           "answers the customer without the number it saved", breaks=_keep_only("body"),
           witness=lambda s: with_args(s, "mail_send", {}, body="Hello, thanks for letting us know. Best regards.")),
    Defect(CLASS, "source-dm-text-unchecked", "synth:lookup_answer_source@1",
           "answers the colleague's DM without the value or its source", breaks=_keep_only("text"),
           witness=lambda s: with_args(s, "chat_send_dm", {}, text="Checked it, all good.")),
    Defect(CLASS, "broken-page-task-status-unchecked", "synth:web_page_audit@1",
           "files the to-do with the URL but not the HTTP status the task asks for",
           breaks=lambda s: check(s, kind="records", where=has_cond("title"))["rule"].update(
               where=[w for w in check(s, kind="records", where=has_cond("title"))["rule"]["where"]
                      if not (w["field"] == "title" and w["value"].isdigit())]),
           witness=lambda s: with_args(s, "todo_add_task", {},
                                       title="Fix " + call(s, "web_fetch", url=next(
                                           w["value"] for w in check(s, kind="records", where=has_cond("title"))
                                           ["rule"]["where"] if w["field"] == "title"))["arguments"]["url"])),
    Defect(CLASS, "paused-jobs-value-prefix", "synth:scheduler_pause_failing_jobs@1",
           "records a healthy job's name in ops/paused-jobs: the entry only has to start with the team's prefix",
           breaks=_recorded_prefix, witness=_record_healthy_job),
    Defect(CLASS, "restock-reply-numbers-only", "synth:inventory_restock_policy@1",
           "reports the unit counts without saying which items moved: the reply check keeps only the numbers",
           breaks=lambda s: check(s, "reply-moves")["rule"].update(
               all_of=[t for t in check(s, "reply-moves")["rule"]["all_of"] if isinstance(t, str)]),
           witness=lambda s: with_say(s, "Moved " + " and ".join(
               t for t in check(s, "reply-moves")["rule"]["all_of"] if isinstance(t, str)) + " units to the store.")),
]


# -- outsider defects (session 19) ------------------------------------------------------------------------------
def _declared_body_checked(spec: Spec) -> None:
    """The twin of the declared-tool triage example: the mail to the on-call engineer must name the issue in its
    body too (the shipped example leaves the body unchecked)."""
    c = check(spec, "mailed_on_call", "records")
    c["rule"]["where"].append({"field": "body", "op": "contains", "value": "BUG-311"})


def _declared_subject_unchecked(spec: Spec) -> None:
    _declared_body_checked(spec)
    c = check(spec, "mailed_on_call", "records")
    c["rule"]["where"] = [w for w in c["rule"]["where"] if w["field"] != "subject"]


def _vague_declared_subject(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    return with_args(spec, "gmail_send_message", {}, subject="Checkout problem")


def _requester_told_anything(spec: Spec) -> None:
    """'The requester was told' written as 'a mail went to the requester in the thread' (no word on the outcome)."""
    c = check(spec, "requester-told", "records")
    c["rule"]["where"] = [w for w in c["rule"]["where"] if w["field"] != "body"]


def _tell_nothing(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    sent = [c for _, _, c in calls(spec, "mail_send")]
    return with_args(spec, "mail_send", {"to": sent[-1]["arguments"]["to"]}, body="Hi, I looked at your request.")


def _refusal_unexplained(spec: Spec) -> None:
    """'The reply explains the refusal' checked as 'the reply names the ticket'."""
    rule = check(spec, "reply-explains-refusal", "text")["rule"]
    rule["any_of"] = []


CONTENT_BLIND_S19 = [
    Defect(CLASS, "declared-mail-subject-unchecked", "example:triage_escalation_declared_tools",
           "mails the on-call engineer through the declared Gmail tool with a subject that does not name the issue",
           breaks=_declared_subject_unchecked, fix=_declared_body_checked, witness=_vague_declared_subject),
    Defect(CLASS, "requester-told-anything", "synth:access_request_approval@1",
           "answers the requester without saying the access was granted", breaks=_requester_told_anything,
           witness=_tell_nothing),
    Defect(CLASS, "requester-told-anything-3", "synth:access_request_approval@3",
           "answers the requester without saying what became of the request", breaks=_requester_told_anything,
           witness=_tell_nothing),
    *(Defect(CLASS, f"refusal-unexplained{suffix}", f"synth:refuse_forbidden_action@{seed}",
             "names the review ticket without saying the file was not sent or why", breaks=_refusal_unexplained,
             witness=lambda s: with_say(s, f"Filed {check(s, 'reply-explains-refusal')['rule']['all_of'][0]}. All set."))
      for seed, suffix in ((5, ""), (8, "-8"))),
]
DEFECTS += CONTENT_BLIND_S19
DEFECTS += [
    Defect(CLASS, "csv-rows-unchecked-2", "synth:report_from_data@2",
           "writes the report file with only its header line", breaks=_keep_only("content", keep_first=1),
           witness=lambda s: with_args(s, "files_write_file", {},
                                       content=call(s, "files_write_file")["arguments"]["content"].split("\n")[0]
                                       + "\n")),
]


# -- loose prefixes (session 26): a check on the answer's first characters, cut inside a number ---------------------
def _prefix_cutting_number(value: str) -> str:
    """The shortest prefix of `value` holding two digits that ends inside a number ('20' of '2027-04-19', 'PO-36'
    of 'PO-36236', '+31 6' of '+31 650 750 659')."""
    digits = 0
    for i, ch in enumerate(value):
        digits += ch.isdigit()
        if digits >= 2 and i + 1 < len(value) and ch.isdigit() and value[i + 1].isdigit():
            return value[:i + 1]
    raise CorpusError(f"{value!r} has no number to cut after two digits")


def _answer_cond(spec: Spec, field: str) -> dict[str, Any]:
    """The first `contains` condition on `field` of a records check (the answer a message must state)."""
    return cond(check(spec, kind="records", where=has_cond(field, "contains")), field)


def _loose_prefix(field: str):  # type: ignore[no-untyped-def]
    """The answer's condition wants only its first characters, up to a cut inside a number."""
    def breaks(spec: Spec) -> None:
        c = _answer_cond(spec, field)
        c["value"] = _prefix_cutting_number(str(c["value"]))
    return breaks


def _wrong_tail(value: str) -> str:
    """`value` with every digit after its loose prefix moved by one (a wrong answer with the right start)."""
    prefix = _prefix_cutting_number(value)
    return prefix + "".join(str((int(ch) + 1) % 10) if ch.isdigit() else ch for ch in value[len(prefix):])


def _states_wrong_tail(tool: str, field: str):  # type: ignore[no-untyped-def]
    """The reference's message stating the answer with the right first characters and a wrong rest."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        value = str(_answer_cond(spec, field)["value"])
        said = call(spec, tool)["arguments"][field]
        if value not in said:
            raise CorpusError(f"{spec['capability']}: the reference's {tool} does not state {value!r}")
        return with_args(spec, tool, {}, **{field: said.replace(value, _wrong_tail(value))})
    return witness


DEFECTS += [
    *(Defect(CLASS, f"reply-body-answer-prefix-{seed}", f"synth:inbox_triage_reply@{seed}",
             "answers with a wrong value that starts like the right one: the body check wants only its first "
             "characters", breaks=_loose_prefix("body"), witness=_states_wrong_tail("mail_send", "body"))
      for seed in (0, 2, 3, 4)),
    *(Defect(CLASS, f"source-dm-value-prefix-{seed}", f"synth:lookup_answer_source@{seed}",
             "tells the colleague a wrong value that starts like the right one: the DM check wants its first digits",
             breaks=_loose_prefix("text"), witness=_states_wrong_tail("chat_send_dm", "text")) for seed in (1, 2, 3)),
]
