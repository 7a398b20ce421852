"""Reply ask naming: a turn that also writes asks the user's agent, by an imperative of naming or listing at a
sentence's start, for what it found or did ("Identify the service at fault.", "Name the service that caused it.",
"List the tasks you added.", "Then report the number of broken pages.", "Confirm the time you picked."), and no check
reads the reply: an agent that does the writes and answers "Done." passes.

A reply no check reads counts as task content only where the request asks for it (`_mutation_core.reply_is_content`).
Until defects158 the phrase list read only "list what/which", "report/confirm which ...", "report back" and "and
report" with no object ("report the bug" is a write); `_reply_asks` no imperative of naming at all. Now "identify",
"enumerate", "itemize", "point out" at a sentence's start are read, "name" and "list" with a relative clause saying
what is named ("the service that caused it", "the tasks you added"), and "report", "confirm", "provide", "note down"
where what is asked is what the agent did or found ("the time you picked", "the number of broken pages"); "Report
the bug.", "Confirm the booking.", "Name the file notes.md." stay writes. Bases: incident_investigate_fix 1 and 2,
todo_track_mail_requests 1, web_page_audit 2, schedule_meeting_timezones 2, inventory_restock_policy 2,
scheduler_pause_failing_jobs 2 (each a base's "Tell me ..." reworded; the twin keeps the base's checks on the reply).
None has a Python check."""

from __future__ import annotations

from functools import partial

from tests.defects.reply_ask_unphrased import _case as reworded_case

CLASS = "reply_ask_naming"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "read an imperative of naming or listing at a sentence's start (`Identify ...`, `Name the service that ...`, "
    "`List the tasks you added`, `Report the number of ...`, `Confirm the time you picked`) as a request for the "
    "reply where what is named is what the agent found or did: the reply without its facts must fail a check"
)

_case = partial(reworded_case, cls=CLASS, asked="by an imperative of naming or listing")


DEFECTS = [
    _case("identify-incident-2", "synth:incident_investigate_fix@2", "Tell me which service was at fault.",
          "Identify the service at fault."),
    _case("name-that-incident-1", "synth:incident_investigate_fix@1", "Tell me which service caused it.",
          "Name the service that caused it."),
    _case("list-you-added-todo-1", "synth:todo_track_mail_requests@1", "Tell me what you added.",
          "List the tasks you added."),
    _case("report-number-audit-2", "synth:web_page_audit@2", "Then tell me the count.",
          "Then report the number of broken pages."),
    _case("confirm-picked-schedule-2", "synth:schedule_meeting_timezones@2", "Tell me the time you picked.",
          "Confirm the time you picked."),
    _case("list-moved-restock-2", "synth:inventory_restock_policy@2", "Tell me what you moved.",
          "List the items you moved."),
    _case("point-out-pause-2", "synth:scheduler_pause_failing_jobs@2", "Tell me when each of them last ran.",
          "Point out when each of them last ran."),
]
