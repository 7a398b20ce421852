"""Reply asks unphrased: a turn that also writes (a DM, an event, a paused job, a to-do, a ticket) asks the user's
agent to tell them something in words no phrase list holds ("Put the value in your reply to me as well.", "Give me
the time you picked.", "I'd like to know which service caused it.", "Say when each one last ran.", "I wonder whether
Mei got back to you."), and no check reads the reply: an agent that does the writes and answers "Done." passes.

A reply no check reads counts as task content (its "no answer" and "wrong facts" near misses are made, and their
survival rejects the spec) only where the request asks for it. Until defects150 `_mutation_core._ASKS`, a list of
phrases ("tell me", "let me know", "report back", a question with a question mark), decided that for a turn that also
writes (a turn that writes nothing and tells a fact is content anyway, `_told_only`): a request worded otherwise got no
reply near miss, and the spec whose checks never read the answer shipped. Bases: every generator whose writing turn
asks for the reply (lookup_answer_source, incident_investigate_fix, schedule_meeting_timezones,
scheduler_pause_failing_jobs, todo_track_mail_requests, web_page_audit, inventory_restock_policy,
feature_flag_rollout) and the second turn of the multi-turn delegate_and_follow_up.

defects152 grew the class by the imperatives of explaining ("Explain which service was at fault.", "Describe what
you added.", "Recap what you moved.") and the answer passed on to the user by a verb of telling, often in a sentence
of its own after the one that asks for the work ("Find out when each of them last ran. Relay that to me.", "Then
pass the count on to me.", "Note the value too. Report it to me as well.").

defects155 grew it by a wish to know in other words ("It would help to know which service caused it.", "I'd
appreciate knowing what you moved.", "Curious when each one last ran.", "It'd be good to know the count.").
(The same round's reply_ask_embedded and reply_ask_fronted hold the question past a sentence's start and the
imperative after a fronted clause.)"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Edit, Spec, reference, with_say

CLASS = "reply_ask_unphrased"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "read a turn as asking for the reply by the grammar of a request (the user as the one told: `give me`, `share "
    "it with me`; the reply as where the answer goes: `in your reply`; a wish to know: `I'd like to know`, `I "
    "wonder whether`; an imperative of saying: `say`, `mention`), not by a list of phrases: the reply without its "
    "facts must fail a check"
)


def _turn(spec: Spec, old: str) -> int:
    """The one turn whose request holds the sentence `old`."""
    found = [t for t, turn in enumerate(spec["turns"]) if old in turn["content"]]
    if len(found) != 1:
        raise CorpusError(f"{spec['capability']}: no one turn asks {old!r}")
    return found[0]


def _readers(spec: Spec, turn: int) -> list[str]:
    """The ids of the checks that read turn `turn`'s reply (a `text` or `reply_states` check of that turn)."""
    single = len(spec["turns"]) == 1
    ids = [c["id"] for c in spec["checks"] if c["rule"]["kind"] in ("text", "reply_states")
           and (c["rule"].get("turn") == turn or (single and c["rule"].get("turn") is None))]
    if not ids:
        raise CorpusError(f"{spec['capability']}: no check reads turn {turn}'s reply")
    return ids


def _reworded(old: str, new: str) -> Edit:
    """The twin: the request for the reply `old` reworded as `new`, the checks on the reply kept."""
    def fix(spec: Spec) -> None:
        t = _turn(spec, old)
        spec["turns"][t]["content"] = spec["turns"][t]["content"].replace(old, new, 1)
    return fix


def _unread(old: str, new: str) -> Edit:
    """The defect: the request reworded, and no check reads the reply (the writes' checks all kept)."""
    fix = _reworded(old, new)

    def breaks(spec: Spec) -> None:
        t = _turn(spec, old)
        readers = set(_readers(spec, t))
        fix(spec)
        spec["checks"] = [c for c in spec["checks"] if c["id"] not in readers]
    return breaks


def _done(new: str) -> Any:
    """The witness: every write as the reference makes it, the reply to the asking turn only "Done."."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        t = _turn(spec, new)
        return with_say(spec, "Done.", turn=t, ref=reference(spec))
    return witness


def _case(name: str, base: str, old: str, new: str, cls: str = CLASS,
          asked: str = "in words no phrase list holds") -> Defect:
    """The request `old` of `base` reworded as `new`, the reply unread (`cls`: a class that shares the shape)."""
    return Defect(cls, name, base,
                  f"does the writes and answers only 'Done.' where the user asked, {asked} ({new!r}), to be told "
                  f"what it found: no check reads the reply",
                  breaks=_unread(old, new), fix=_reworded(old, new), witness=_done(new),
                  gate="mutations", code="content_unchecked")


DEFECTS = [
    _case("in-your-reply-lookup-1", "synth:lookup_answer_source@1", "Tell me the value as well.",
          "Put the value in your reply to me as well."),
    _case("like-to-know-lookup-3", "synth:lookup_answer_source@3", "Tell me the value as well.",
          "I'd like to know the value too."),
    _case("in-your-answer-incident-1", "synth:incident_investigate_fix@1", "Tell me which service caused it.",
          "Include the service that caused it in your answer."),
    _case("want-to-hear-incident-2", "synth:incident_investigate_fix@2", "Tell me which service was at fault.",
          "I want to hear which service was at fault."),
    _case("give-me-schedule-1", "synth:schedule_meeting_timezones@1", "Tell me the time you picked.",
          "Give me the time you picked."),
    _case("mention-schedule-2", "synth:schedule_meeting_timezones@2", "Tell me the time you picked.",
          "Mention the time you picked when you are done."),
    _case("say-pause-1", "synth:scheduler_pause_failing_jobs@1", "Tell me when each one last ran.",
          "Say when each one last ran."),
    _case("show-me-pause-2", "synth:scheduler_pause_failing_jobs@2", "Tell me when each of them last ran.",
          "Show me when each of them last ran."),
    _case("walk-me-through-todo-1", "synth:todo_track_mail_requests@1", "Tell me what you added.",
          "Afterwards, walk me through what you added."),
    _case("your-reply-should-todo-3", "synth:todo_track_mail_requests@3", "Tell me what you added.",
          "Your reply should name the tasks you added."),
    _case("share-with-me-audit-2", "synth:web_page_audit@2", "Then tell me the count.",
          "Then share the count with me."),
    _case("curious-audit-3", "synth:web_page_audit@3", "At the end, tell me how many are broken.",
          "At the end, I'm curious about the number of broken pages."),
    _case("write-back-restock-2", "synth:inventory_restock_policy@2", "Tell me what you moved.",
          "Write back with what you moved."),
    _case("let-me-hear-rollout-2", "synth:feature_flag_rollout@2", "and tell me how it went.",
          "and let me hear how it went."),
    _case("wonder-followup-3", "synth:delegate_and_follow_up@3", "Did Mei get back to you?",
          "I wonder whether Mei got back to you."),
    _case("want-to-know-followup-2", "synth:delegate_and_follow_up@2", "Did Diego get back to you?",
          "I want to know if Diego got back to you."),
    # defects152: an imperative of explaining; the answer passed on to the user, the ask in a sentence of its own
    _case("explain-incident-2", "synth:incident_investigate_fix@2", "Tell me which service was at fault.",
          "Explain which service was at fault."),
    _case("describe-todo-1", "synth:todo_track_mail_requests@1", "Tell me what you added.",
          "Describe what you added."),
    _case("recap-restock-2", "synth:inventory_restock_policy@2", "Tell me what you moved.",
          "Recap what you moved."),
    _case("relay-to-me-pause-2", "synth:scheduler_pause_failing_jobs@2", "Tell me when each of them last ran.",
          "Find out when each of them last ran. Relay that to me."),
    _case("pass-on-to-me-audit-2", "synth:web_page_audit@2", "Then tell me the count.",
          "Then pass the count on to me."),
    _case("report-to-me-lookup-3", "synth:lookup_answer_source@3", "Tell me the value as well.",
          "Note the value too. Report it to me as well."),
    _case("explain-schedule-1", "synth:schedule_meeting_timezones@1", "Tell me the time you picked.",
          "Explain the time you picked."),
    _case("read-out-rollout-2", "synth:feature_flag_rollout@2", "and tell me how it went.",
          "and read out to me how it went."),
    # defects155: a wish to know in other words
    _case("would-help-to-know-incident-1", "synth:incident_investigate_fix@1", "Tell me which service caused it.",
          "It would help to know which service caused it."),
    _case("appreciate-knowing-restock-2", "synth:inventory_restock_policy@2", "Tell me what you moved.",
          "I'd appreciate knowing what you moved."),
    _case("curious-when-pause-1", "synth:scheduler_pause_failing_jobs@1", "Tell me when each one last ran.",
          "Curious when each one last ran."),
    _case("good-to-know-audit-2", "synth:web_page_audit@2", "Then tell me the count.",
          "It'd be good to know the count."),
]
