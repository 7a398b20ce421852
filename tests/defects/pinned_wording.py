"""Pinned wording: a check wants a free-text field (a to-do's title, a mail's subject, a DM) to equal the spec
writer's own phrasing, which nothing the agent reads states; an agent that does the work in other words fails
(the sound twin checks the facts the text must state)."""

from __future__ import annotations

from tests.defects._core import Defect, Spec, call, check, has_cond, with_args

CLASS = "pinned_wording"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "a condition `equals` on a free-text field (title, subject, body, text, note) whose value of several words no "
    "turn, context or world record states: the reference's wording, so an honest paraphrase fails"
)


def _title_exact(tool: str):  # type: ignore[no-untyped-def]
    """The title conditions of the first records check on titles become 'equals the reference's title'."""

    def breaks(spec: Spec) -> None:
        c = check(spec, kind="records", where=has_cond("title"))
        contains = [w["value"] for w in c["rule"]["where"] if w["field"] == "title"]
        title = next(cl["arguments"]["title"] for cl in _calls(spec, tool) if all(v in cl["arguments"]["title"]
                                                                                for v in contains))
        c["rule"]["where"] = [w for w in c["rule"]["where"] if w["field"] != "title"] + [
            {"field": "title", "op": "equals", "value": title}]
    return breaks


def _calls(spec: Spec, tool: str) -> list[dict]:  # type: ignore[type-arg]
    return [s["call"] for turn in spec["reference"] for s in turn["steps"] if s.get("call") and s["call"]["name"] == tool]


def _retitled(tool: str):  # type: ignore[no-untyped-def]
    """An honest agent's title: the facts the sound check wants, in its own words."""

    def witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
        c = check(spec, kind="records", where=has_cond("title"))
        facts = [w["value"] for w in c["rule"]["where"] if w["field"] == "title"]
        first = next(cl for cl in _calls(spec, tool) if all(v in cl["arguments"]["title"] for v in facts))
        return with_args(spec, tool, {"title": first["arguments"]["title"]}, title=" - ".join(facts))
    return witness


def _pinned(check_id: str, tool: str, field: str):  # type: ignore[no-untyped-def]
    """The check also wants `field` of the written record to equal what the reference wrote."""

    def breaks(spec: Spec) -> None:
        check(spec, check_id)["rule"]["where"].append(
            {"field": field, "op": "equals", "value": call(spec, tool)["arguments"][field]})
    return breaks


def _dm_exact(spec: Spec) -> None:
    c = check(spec, kind="records", where=has_cond("text"))
    c["rule"]["where"] = [w for w in c["rule"]["where"] if w["field"] != "text"] + [
        {"field": "text", "op": "equals", "value": call(spec, "chat_send_dm")["arguments"]["text"]}]


def _dm_paraphrase(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    facts = [w["value"] for w in check(spec, kind="records", where=has_cond("text"))["rule"]["where"]
             if w["field"] == "text" and w["op"] == "contains"]
    return with_args(spec, "chat_send_dm", {}, text="Hi! It is " + " - source: ".join(facts) + ".")


DEFECTS = [
    Defect(CLASS, "broken-page-task-title-exact", "synth:web_page_audit@1",
           "an agent titling the to-do '<url> - 503' fails: the check wants the reference's 'Fix <url> (HTTP 503)'",
           breaks=_title_exact("todo_add_task"), witness=_retitled("todo_add_task"), witness_kind="honest",
           gate="reads_state", code="wording_pinned"),
    Defect(CLASS, "request-task-title-exact", "synth:todo_track_mail_requests@1",
           "an agent titling the task 'Contract renewal memo' fails: the check wants '... (msg-224)'",
           breaks=_title_exact("todo_add_task"), witness=_retitled("todo_add_task"), witness_kind="honest",
           gate="reads_state", code="wording_pinned"),
    Defect(CLASS, "attachment-mail-body-exact", "synth:clarify_ambiguous_request@1",
           "an agent mailing the notes with its own cover line fails: the body must be the reference's",
           breaks=_pinned("sent-to-right-person", "mail_send", "body"),
           witness=lambda s: with_args(s, "mail_send", {}, body="Hi Lucas, the notes for the sync are attached."),
           witness_kind="honest", gate="reads_state", code="wording_pinned"),
    Defect(CLASS, "phone-reply-subject-exact", "synth:contact_phone_update@1",
           "an agent confirming under the subject 'Phone number updated' fails: the check wants the reference's",
           breaks=_pinned("confirmed", "mail_send", "subject"),
           witness=lambda s: with_args(s, "mail_send", {}, subject="Phone number updated"),
           witness_kind="honest", gate="reads_state", code="wording_pinned"),
    Defect(CLASS, "source-dm-text-exact", "synth:lookup_answer_source@1",
           "an agent answering with the value and its source in other words fails: the DM must be verbatim",
           breaks=_dm_exact, witness=_dm_paraphrase, witness_kind="honest", gate="reads_state", code="wording_pinned"),
]
