"""Reply ask fronted: a turn that also writes asks the user's agent to tell them something by an imperative that
follows a fronted clause ("Once every page is loaded, give me the number of broken pages.", "If you added any, walk
me through them.", "After the restock, recap what you moved.", "Once it is booked, say which time you picked."), by
a gerund ("Finish by telling me the value as well."), or by naming the reply as what the answer is added to ("Add
their last run times to your reply."); and no check reads the reply: an agent that does the writes and answers
"Done." passes.

A reply no check reads counts as task content only where the request asks for it (`_mutation_core.reply_is_content`).
Until defects155 `_reply_asks` read the imperatives of telling ("give me", "walk me through", "say", "recap") only at
a sentence's start, after lead words ("Then", "Also,", "When you are done,"), never after a clause of time or
condition, and the reply as where the answer goes only "in" or "with" it. Bases: web_page_audit 1,
todo_track_mail_requests 3, inventory_restock_policy 2, schedule_meeting_timezones 1, lookup_answer_source 1,
scheduler_pause_failing_jobs 3 (each a base's "Tell me ..." reworded; the twin keeps the base's checks on the
reply)."""

from __future__ import annotations

from functools import partial

from tests.defects.reply_ask_unphrased import _case as reworded_case

CLASS = "reply_ask_fronted"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "read the imperatives of telling (`give me`, `walk me through`, `say`, `recap`) also after a fronted clause of "
    "time or condition (`Once every page is loaded, give me ...`, `If you added any, ...`), the user told by a gerund "
    "(`Finish by telling me ...`) and the reply as what the answer is added to (`Add ... to your reply`): the reply "
    "without its facts must fail a check"
)

# each case: a base's request for the reply `old` reworded as `new` (the twin), its reply checks dropped (the defect)
_case = partial(reworded_case, cls=CLASS, asked="after a fronted clause or by a gerund")


DEFECTS = [
    _case("once-give-me-audit-1", "synth:web_page_audit@1", "Tell me the number of broken pages when you are done.",
          "Once every page is loaded, give me the number of broken pages."),
    _case("if-walk-me-todo-3", "synth:todo_track_mail_requests@3", "Tell me what you added.",
          "If you added any, walk me through them."),
    _case("after-recap-restock-2", "synth:inventory_restock_policy@2", "Tell me what you moved.",
          "After the restock, recap what you moved."),
    _case("once-say-schedule-1", "synth:schedule_meeting_timezones@1", "Tell me the time you picked.",
          "Once it is booked, say which time you picked."),
    _case("finish-by-telling-lookup-1", "synth:lookup_answer_source@1", "Tell me the value as well.",
          "Finish by telling me the value as well."),
    _case("to-your-reply-pause-3", "synth:scheduler_pause_failing_jobs@3", "Then tell me their last run times.",
          "Add their last run times to your reply."),
]
