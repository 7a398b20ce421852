"""Reply ask handed over: a turn that also writes asks the user's agent to hand the answer over with no "me" as the
verb's object ("Then send the count my way.", "Let me have the time you picked.", "Get the list of what you moved
to me."), and no check reads the reply: an agent that does the writes and answers "Done." passes.

A reply no check reads counts as task content only where the request asks for it (`_mutation_core.reply_is_content`).
Until defects158 `_reply_asks` read the answer passed to the user only as "give me", "with me", "back to me", or a
verb of telling with "to me" ("report it to me"); "my way", "let me have" and "get ... to me" were read as no request
(and "send it to me" stays unread: what is sent may be a mail or a file, and so is "send the file my way"). Bases:
web_page_audit 2, schedule_meeting_timezones 1, lookup_answer_source 3, scheduler_pause_failing_jobs 1,
inventory_restock_policy 2, incident_investigate_fix 1 (each a base's "Tell me ..." reworded; the twin keeps the
base's checks on the reply). None has a Python check."""

from __future__ import annotations

from functools import partial

from tests.defects.reply_ask_unphrased import _case as reworded_case

CLASS = "reply_ask_handed_over"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "read the answer handed over to the user with no `me` as the object (`send the count my way`, `let me have the "
    "count`, `get the count to me`; not a pronoun or a file, a log, a mail that is sent) as a request for the reply: "
    "the reply without its facts must fail a check"
)

_case = partial(reworded_case, cls=CLASS, asked="by handing it over with no 'me' as the object")


DEFECTS = [
    _case("send-my-way-audit-2", "synth:web_page_audit@2", "Then tell me the count.",
          "Then send the count my way."),
    _case("let-me-have-schedule-1", "synth:schedule_meeting_timezones@1", "Tell me the time you picked.",
          "Let me have the time you picked."),
    _case("let-me-have-lookup-3", "synth:lookup_answer_source@3", "Tell me the value as well.",
          "Let me have the value as well."),
    _case("send-my-way-pause-1", "synth:scheduler_pause_failing_jobs@1", "Tell me when each one last ran.",
          "Send each one's last run time my way."),
    _case("get-to-me-restock-2", "synth:inventory_restock_policy@2", "Tell me what you moved.",
          "Get the list of what you moved to me."),
    _case("get-to-me-incident-1", "synth:incident_investigate_fix@1", "Tell me which service caused it.",
          "Get the name of the service that caused it to me."),
]
