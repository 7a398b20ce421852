"""Reply ask embedded: a turn that also writes puts its question to the user's agent where no reader of a sentence's
start finds it: after the work in the same sentence, past a semicolon, a dash or a comma ("... with the version you
read; when did each one last run?", "Roll it out by the book (runbooks/flag-rollout.md); how did it go?"), as an
elliptical question ("Any idea which service was at fault?", "Anything new on the list?", "Any word from Diego?"), or
as a polite request whose doing is finding something out ("Could you find out which service was at fault?", "Can you
check when each of them last ran?"); and no check reads the reply: an agent that does the writes and answers "Done."
leaves the question unanswered and passes.

A reply no check reads counts as task content only where the request asks for it (`_mutation_core.reply_is_content`).
Until defects155 a question did so only where its sentence opened with an auxiliary or a question word
(`_reply_asks._QUESTION`, `_mutation_core._ASKS`), and a polite request in a question's form ("Can you ...?") was read
as the doing, its object a question or not. Bases: scheduler_pause_failing_jobs 1, 2, web_page_audit 2,
feature_flag_rollout 2, incident_investigate_fix 2, 3, todo_track_mail_requests 1, lookup_answer_source 3,
schedule_meeting_timezones 3, and the second turn of delegate_and_follow_up 2 (each a base's "Tell me ..." or "Did
Diego get back to you?" reworded; the twin keeps the base's checks on the reply)."""

from __future__ import annotations

from functools import partial

from tests.defects.reply_ask_unphrased import _case as reworded_case

CLASS = "reply_ask_embedded"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "read a sentence that ends in `?` as a question to the agent wherever its question stands: the last clause "
    "opening with an auxiliary or a question word (`...; when did each one last run?`), else the whole sentence "
    "(`Any idea which service was at fault?`), and a polite request of finding out (`Could you find out which ...?`); "
    "not a polite request of other work, a polite tag, or a question the clause before it puts to someone else: the "
    "reply without its answer must fail a check"
)

# each case: a base's request for the reply `old` reworded as `new` (the twin), its reply checks dropped (the defect)
_case = partial(reworded_case, cls=CLASS, asked="by a question not at its sentence's start")


DEFECTS = [
    _case("semicolon-when-pause-1", "synth:scheduler_pause_failing_jobs@1",
          "with the version you read. Tell me when each one last ran.",
          "with the version you read; when did each one last run?"),
    _case("dash-what-count-audit-2", "synth:web_page_audit@2", "in the title. Then tell me the count.",
          "in the title \u2014 what was the final count?"),
    _case("semicolon-how-rollout-2", "synth:feature_flag_rollout@2",
          "Do it by the book (runbooks/flag-rollout.md) and tell me how it went.",
          "Roll it out by the book (runbooks/flag-rollout.md); how did it go?"),
    _case("semicolon-what-time-schedule-3", "synth:schedule_meeting_timezones@3",
          "in the body. Tell me the time you picked.", "in the body; what time did you pick?"),
    _case("dash-what-lookup-3", "synth:lookup_answer_source@3", "Tell me the value as well.",
          "And the value itself \u2014 what is it?"),
    _case("any-idea-incident-3", "synth:incident_investigate_fix@3", "Tell me which service was at fault.",
          "Any idea which service was at fault?"),
    _case("anything-new-todo-1", "synth:todo_track_mail_requests@1", "Tell me what you added.",
          "Anything new on the list?"),
    _case("any-word-followup-2", "synth:delegate_and_follow_up@2", "Did Diego get back to you?",
          "Any word from Diego?"),
    _case("find-out-incident-2", "synth:incident_investigate_fix@2", "Tell me which service was at fault.",
          "Could you find out which service was at fault?"),
    _case("check-when-pause-2", "synth:scheduler_pause_failing_jobs@2", "Tell me when each of them last ran.",
          "Can you check when each of them last ran?"),
]
