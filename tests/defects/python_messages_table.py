"""Python messages table: a Python check over the mail or chat `messages` table (was the mail sent, the post
made?) that checks a message was sent but not what it says. The agent sends an empty or wrong message and
passes. The sound twin is the same check with every condition of the records check it replaces: it reads the
`messages` TABLE, not the agent's replies (the `messages` argument), so the gates must not demand that it judge
the replies (a false `content_unchecked` on a turn whose answer nobody asked for)."""

from __future__ import annotations

import json

from tests.defects._core import CorpusError, Defect, Spec, check

CLASS = "python_messages_table"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "alter the text of the message the check looks for; a check that still passes does not read it. Which part "
    "of the episode a Python check reads (state, audit, replies) is told from its syntax tree, not its words"
)

_CONTENT = frozenset({"body", "text", "subject"})
_CODE = """\
import re


def _holds(row, field, op, value):
    actual = row.get(field)
    if op == "equals":
        return actual == value
    if op == "contains":
        wanted = value if isinstance(value, list) else [value]
        if isinstance(actual, str):
            return all(str(w).lower() in actual.lower() for w in wanted)
        return isinstance(actual, list) and all(w in actual for w in wanted)
    if op == "matches":
        return actual is not None and re.search(value, str(actual)) is not None
    if op == "gte":
        return actual is not None and actual >= value
    raise ValueError(op)


def check(state, audit, messages):
    rows = state["apps"][{app!r}]["messages"]
    found = [r for r in rows if all(_holds(r, f, op, v) for f, op, v in {where})]
    return len(found) {cmp} {count}
"""


def _as_python(check_id: str, content: bool):  # type: ignore[no-untyped-def]
    """Replace the records check `check_id` over a messages table by a Python check of its conditions: all of
    them (the twin), or all but those on the message's text (the defect)."""

    def edit(spec: Spec) -> None:
        c = check(spec, check_id, "records")
        rule = c["rule"]
        if rule["table"] != "messages" or rule["count_op"] not in ("gte", "equals"):
            raise CorpusError(f"{spec['capability']}: check {check_id!r} is not a count of messages")
        where = [(w["field"], w.get("op", "equals"), w["value"]) for w in rule["where"]
                 if content or w["field"] not in _CONTENT]
        if len(where) == len(rule["where"]) and not content:
            raise CorpusError(f"{spec['capability']}: check {check_id!r} has no condition on the message text")
        code = _CODE.format(app=rule["app"], where=json.dumps(where), count=rule["count"],
                            cmp=">=" if rule["count_op"] == "gte" else "==")
        c["rule"] = {"kind": "python", "entrypoint": "check", "apps": [rule["app"]], "code": code}
    return edit


def _pair(name: str, base: str, away: str, check_id: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_as_python(check_id, False), fix=_as_python(check_id, True),
                  gate="mutations")


DEFECTS = [
    _pair("attendees-mail-unread", "example:meeting_reschedule",
          "mails the attendees a wrong time: the check only looks for a sent mail to them", "attendees-mailed"),
    _pair("elena-dm-unread", "example:meeting_reschedule",
          "messages Elena anything at all: the check only looks for a DM to her", "elena-told-on-chat"),
    _pair("incident-post-unread", "example:incident_rollback",
          "posts anything in the incident channel: the check only looks for a post there", "incident-announced"),
    _pair("report-mail-unread", "example:report_from_files",
          "mails the report with a wrong summary: the check only looks for the mail with the attachment",
          "report-mailed"),
    _pair("headline-post-unread", "example:report_from_files",
          "posts any headline: the check only looks for a post in the channel", "headline-posted"),
    _pair("on-call-mail-unread", "example:triage_escalation_declared_tools",
          "mails the on-call engineer about anything: the check only looks for a mail to them", "mailed_on_call"),
]
