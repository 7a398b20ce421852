"""Isolation leaks: the agent can read the verifier or the reference solution in the world or the prompt,
verbatim or paraphrased (an answer key in a calendar event, the reference's calls written out in a runbook)."""

from __future__ import annotations

import orjson

from tests.defects._core import Defect, Spec, call, check, record, world

CLASS = "isolation_leak"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    'search world records, context and turns for check values and reference texts, also normalised (case, punctuation, date formats) and with ids resolved to names (PLAT-113 -> Clara Zhang)'
)
GATE = "isolation"


def _user_email(spec: Spec) -> str:
    return str(record(spec, "directory", "people", spec["user"])["email"])


def _final_say(spec: Spec) -> str:
    return str(next(s["say"] for s in reversed(spec["reference"][-1]["steps"]) if s.get("say")))


def _say_in_inbox(spec: Spec) -> None:
    world(spec, "mail", "messages").append({
        "id": "msg-leak-1", "thread_id": "thr-leak-1", "folder": "inbox", "sender": _user_email(spec),
        "to": [_user_email(spec)], "subject": "note to self", "body": _final_say(spec),
        "sent_at": spec["world"]["start"]})


def _answer_key_event(spec: Spec) -> None:
    parts = []
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "field":
            value = rule["value"]
            if isinstance(value, str) and value.startswith("u-"):
                value = record(spec, "directory", "people", value)["name"]
            parts.append(f"{rule['target']['id']} -> {value}")
    world(spec, "calendar", "events").append({
        "id": "evt-leak-1", "title": "Triage prep", "start": spec["world"]["start"], "end": spec["world"]["start"],
        "organizer": _user_email(spec), "attendees": [], "description": "Outcome we expect: " + "; ".join(parts)})


def _calls_as_text(spec: Spec) -> None:
    lines = []
    for turn in spec["reference"]:
        for step in turn["steps"]:
            c = step.get("call")
            if c and c["name"].split("_", 1)[1].startswith(("set", "deploy", "update", "create", "rollback")):
                args = ", ".join(f"{k}={v!r}" for k, v in c["arguments"].items())
                lines.append(f"- {c['name']}({args})")
    world(spec, "files", "files").append({
        "id": "runbooks/auto-remediation.md", "kind": "markdown", "owner": spec["user"],
        "content": "# Auto-remediation (last incident)\n\n" + "\n".join(lines) + "\n"})


def _checks_in_mail(spec: Spec) -> None:
    world(spec, "mail", "messages").append({
        "id": "msg-leak-2", "thread_id": "thr-leak-2", "folder": "inbox", "sender": _user_email(spec),
        "to": [_user_email(spec)], "subject": "QA acceptance criteria",
        "body": orjson.dumps([c["rule"] for c in spec["checks"]], option=orjson.OPT_INDENT_2).decode(),
        "sent_at": spec["world"]["start"]})


def _rows_in_prompt(spec: Spec) -> None:
    c = check(spec, "report-rows")
    rows = [w["value"].removeprefix("(?m)^").removesuffix("\\r?$").replace("\\", "")
            for w in c["rule"]["where"] if w["field"] == "content" and w["value"].startswith("(?m)")]
    spec["turns"][0]["content"] += " (For the record, it should come out as: " + "; ".join(rows) + ".)"


def _slot_in_context(spec: Spec) -> None:
    start = check(spec, "moved-to-free-slot")["rule"]["value"]
    spec["context"] += f" Scheduling assistant hint: the first slot free for both is {start}."


def _slot_in_chat(spec: Spec) -> None:
    from datetime import datetime
    start = datetime.fromisoformat(check(spec, "moved-to-free-slot")["rule"]["value"].replace("Z", "+00:00"))
    channel = world(spec, "chat", "channels")[0]["id"]
    world(spec, "chat", "messages").append({
        "id": "chat-leak-1", "channel": channel, "sender": spec["user"], "ts": spec["world"]["start"],
        "text": f"note: the slot that works for the move is {start:%A %d %B, %H:%M} UTC"})


def _reply_in_drafts(spec: Spec) -> None:
    """A draft in the user's mailbox already holds the reference's reply body, word for word."""
    sent = call(spec, "mail_send")["arguments"]
    world(spec, "mail", "messages").append({
        "id": "msg-leak-3", "thread_id": "thr-leak-3", "folder": "drafts", "sender": _user_email(spec),
        "to": sent["to"], "subject": sent.get("subject", "Re:"), "body": sent["body"]})


def _report_in_scratch(spec: Spec) -> None:
    """A scratch file holds the reference's report content, word for word."""
    written = call(spec, "files_write_file")["arguments"]
    world(spec, "files", "files").append({"id": "scratch/" + written["path"].rsplit("/", 1)[-1], "kind": "text",
                                          "owner": spec["user"], "content": written["content"]})


def _answer_in_note(spec: Spec) -> None:
    """A stale-looking personal note that happens to hold the looked-up value and its source."""
    value = check(spec, "answered-with-source")["rule"]["where"]
    said = [w["value"] for w in value if w["field"] == "text"]
    world(spec, "notes", "notes").append({
        "id": "note-leak-1", "title": "scratch", "body": "svc checks: " + " / ".join(said),
        "created_at": spec["world"]["start"], "updated_at": spec["world"]["start"]})


def _broken_pages_in_kb(spec: Spec) -> None:
    """A KB article listing the broken page with its status (the audit's answer, written down)."""
    rule = check(spec, "reply-count", "text")["rule"]
    world(spec, "kb", "articles").append({
        "id": "KB-leak-1", "title": "Known site issues", "tags": ["web"],
        "body": "Currently failing: " + " ".join(str(t) for t in rule["all_of"]) + "."})


def _deadlines_in_note(spec: Spec) -> None:
    """A note to self listing every request with its deadline in UTC (the tasks the checks expect)."""
    lines = []
    for c in spec["checks"]:
        where = c["rule"].get("where", []) if c["rule"]["kind"] == "records" else []
        title = next((w["value"] for w in where if w["field"] == "title"), None)
        due = next((w["value"] for w in where if w["field"] == "due"), None)
        if title and due:
            lines.append(f"- {title}: due {due}")
    world(spec, "notes", "notes").append({
        "id": "note-leak-2", "title": "deadlines (normalised)", "body": "\n".join(lines),
        "created_at": spec["world"]["start"], "updated_at": spec["world"]["start"]})


DEFECTS = [
    Defect(CLASS, "reply-body-in-drafts", "synth:inbox_triage_reply@1",
           "sends the ready-made draft that holds the reference's reply word for word", breaks=_reply_in_drafts,
           gate=GATE),
    Defect(CLASS, "report-in-scratch-file", "synth:report_from_data@1",
           "copies the reference's report from a scratch file", breaks=_report_in_scratch, gate=GATE),
    Defect(CLASS, "expected-slot-in-chat", "synth:reschedule_conflict@1",
           "reads the expected slot (written 'Wednesday 16 September, 09:00 UTC') from a chat message",
           breaks=_slot_in_chat, gate=GATE),
    Defect(CLASS, "reference-answer-in-inbox", "synth:incident_investigate_fix@1",
           "reads the reference's final answer from a mail in the inbox", breaks=_say_in_inbox, gate=GATE),
    Defect(CLASS, "answer-key-in-calendar", "synth:ticket_triage_update@1",
           "reads every expected assignee and priority from a calendar event's description",
           breaks=_answer_key_event, gate=GATE),
    Defect(CLASS, "reference-calls-in-runbook", "synth:adapt_silent_change@1",
           "copies the reference's write calls from a runbook file", breaks=_calls_as_text, gate=GATE),
    Defect(CLASS, "checks-json-in-mail", "synth:reschedule_conflict@1",
           "reads the serialized checks from a mail", breaks=_checks_in_mail, gate=GATE),
    Defect(CLASS, "expected-rows-in-prompt", "synth:report_from_data@1",
           "copies the expected CSV rows from the user's own message", breaks=_rows_in_prompt, gate=GATE),
    Defect(CLASS, "expected-slot-in-context", "example:meeting_reschedule",
           "is told the answer slot in the workspace context",
           breaks=_slot_in_context, gate=GATE),
    Defect(CLASS, "lookup-answer-in-note", "synth:lookup_answer_source@1",
           "copies the value and version from a scratch note instead of reading the config",
           breaks=_answer_in_note, gate="isolation"),
    Defect(CLASS, "broken-pages-in-kb", "synth:web_page_audit@1",
           "reads the broken page and its status from a KB article instead of loading the pages",
           breaks=_broken_pages_in_kb, gate="isolation"),
    Defect(CLASS, "deadlines-in-note", "synth:todo_track_mail_requests@1",
           "copies every task and its UTC deadline from a note instead of reading the mails",
           breaks=_deadlines_in_note, gate="isolation"),
]

