"""Reply ask question: a turn that also writes puts a question to the user's agent in a form no phrase list reads (a
yes/no question opening with "has", "have", "was", "were", "will": "Has Mei got back to you?", "Were any of the
pages broken?"; a question after a lead word: "Also, what is the value?", "Oh, and when did each one last run?"),
and no check reads the reply: an agent that does the writes and answers "Done." leaves the question unanswered and
passes.

A reply no check reads counts as task content only where the request asks for it (`_mutation_core.reply_is_content`).
Until defects152 a question did so only at a sentence's very start and only after "is/are/does/did/do" or a question
word (`_mutation_core._ASKS`), so "Has Grace come back on the report?" asked nothing: the shipped example
report_from_files and the generator access_request_approval ("Has Sanna answered? Finish Astrid's request
accordingly and let them know.") read no reply of their second turn, and an agent that never said whether the
manager answered passed both. Both now check that reply (the defects below drop that check); the rest reword a base's
"Tell me ..." as a question. Bases: lookup_answer_source, incident_investigate_fix, schedule_meeting_timezones,
scheduler_pause_failing_jobs, todo_track_mail_requests, web_page_audit, inventory_restock_policy,
feature_flag_rollout, delegate_and_follow_up (its second turn), access_request_approval (its second turn), and the
example report_from_files (its second turn)."""

from __future__ import annotations

from tests.defects._core import CorpusError, Defect, Edit, Spec
from tests.defects.reply_ask_unphrased import _case as reworded_case
from tests.defects.reply_ask_unphrased import _done, _readers, _turn

CLASS = "reply_ask_question"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "read a sentence that ends in `?` and opens, after a lead word (`Also,`, `Oh, and`, `Quick check:`), with an "
    "auxiliary or a question word (`Has Mei got back to you?`, `Were any of them broken?`) as a question to the "
    "agent (not a polite request: `Can you pause the job?`): the reply without its answer must fail a check"
)


def _case(name: str, base: str, old: str, new: str) -> Defect:
    return reworded_case(name, base, old, new, cls=CLASS, asked="by a question no phrase list reads")


def _unchecked(question: str) -> Edit:
    """The defect: the question kept, every check on its turn's reply dropped (the spec as shipped before
    defects152; where a spec already reads no reply of the turn, as main's, it is left as it is)."""
    def breaks(spec: Spec) -> None:
        turn = _turn(spec, question)
        try:
            readers = set(_readers(spec, turn))
        except CorpusError:  # main's spec: no check reads the reply (the witness shows the twin's does)
            return
        spec["checks"] = [c for c in spec["checks"] if c["id"] not in readers]
    return breaks


def _shipped(name: str, base: str, question: str) -> Defect:
    return Defect(CLASS, name, base,
                  f"does the writes and answers only 'Done.' to the question {question!r}: no check reads the reply "
                  f"(the spec as shipped before defects152)",
                  breaks=_unchecked(question), witness=_done(question),
                  gate="mutations", code="content_unchecked")


DEFECTS = [
    _shipped("has-grace-come-back-report", "example:report_from_files", "Has Grace come back on the report?"),
    _shipped("has-manager-answered-access-1", "synth:access_request_approval@1", "Has Sunita answered?"),
    _shipped("has-manager-answered-access-3", "synth:access_request_approval@3", "Has Anika answered?"),
    _case("has-got-back-followup-3", "synth:delegate_and_follow_up@3", "Did Mei get back to you?",
          "Has Mei got back to you?"),
    _case("also-what-lookup-1", "synth:lookup_answer_source@1", "Tell me the value as well.",
          "Also, what is the value?"),
    _case("quick-question-incident-1", "synth:incident_investigate_fix@1", "Tell me which service caused it.",
          "Quick question: which service caused it?"),
    _case("have-you-found-schedule-2", "synth:schedule_meeting_timezones@2", "Tell me the time you picked.",
          "Have you found a time that suits everyone?"),
    _case("oh-and-when-pause-1", "synth:scheduler_pause_failing_jobs@1", "Tell me when each one last ran.",
          "Oh, and when did each one last run?"),
    _case("were-any-broken-audit-3", "synth:web_page_audit@3", "At the end, tell me how many are broken.",
          "At the end, were any of them broken?"),
    _case("was-smooth-rollout-2", "synth:feature_flag_rollout@2", "and tell me how it went.",
          "and keep an eye on it. Was the rollout smooth?"),
]
