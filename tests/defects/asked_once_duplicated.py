"""A message the user asks for once, counted "at least one": the agent that sends it twice passes.

A records check on the messages counts "at least one" (`count gte 1`, the schema's default), which is sound where the
task leaves follow-ups open: a second DM to the same colleague is no mistake by itself. Where the user's turn asks for
one message ("keep it to a single email", "just one DM with the answer", "email them exactly once", "do not send the
DM twice"), the second copy is what the request rules out, and "at least one" lets it through: the agent sends the
same mail twice (or posts the same answer twice) and passes with full marks. The sound twin asks the same and counts
the messages to that recipient exactly (`count equals 1` by channel and sender, or recipients and folder: not by
what it says, which `sent_wrong_first` would pass).

Main made no duplicate of a message (only of writes that create a record: a ticket, an event, a to-do), so nothing
tried it. Caught by the mutations gate (`duplicate_unchecked`): a sending write (mail, DM, channel post, ticket comment,
notification, ...) is also made twice where its turn asks for one of what it sends (`_asked_once`).
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from tests.defects._core import CorpusError, Defect, Spec, check, reference

CLASS = "asked_once_duplicated"
DETECTION = (
    "where a user turn asks for one message (a numeral or 'a single' before the noun for what a sending write makes, "
    "or 'only once', 'exactly once', 'not twice'), make the turn's sending write twice; if every check still passes, "
    "the count tolerates the duplicate the request rules out"
)
GATE, CODE = "mutations", "duplicate_unchecked"


# What a message says (as opposed to whom it reaches): a count over these tells messages apart by their words.
_SAYS = frozenset({"text", "body", "subject", "attachments", "content", "message"})
Count = Literal["at_least", "exact_by_words", "exact_by_whom"]


def asked(turn: int, words: str, check_id: str, count: Count):  # type: ignore[no-untyped-def]
    """The user's words asking for one message added to turn `turn`; the message's records check `check_id` counted
    "at least one" (`at_least`), exactly one (`exact_by_words`: its conditions on what it says kept), or "at least
    one" beside a new exact count of the messages by its conditions on whom they reach alone (`exact_by_whom`, the
    sound twin: its channel or recipients, sender, folder, thread)."""
    def edit(spec: Spec) -> None:
        said = spec["turns"][turn]
        said["content"] = f"{said['content'].rstrip()} {words}"
        found = check(spec, check_id, "records")
        rule = found["rule"]
        rule["count_op"], rule["count"] = ("equals" if count == "exact_by_words" else "gte"), 1
        if count == "exact_by_whom":
            whom = [w for w in rule["where"] if w["field"] not in _SAYS]
            if not whom or len(whom) == len(rule["where"]):
                raise CorpusError(f"{check_id}: no condition on what the message says, or only those")
            spec["checks"].append({"id": f"{check_id}-once", "rule": {
                "kind": "records", "app": rule["app"], "table": rule["table"], "where": copy.deepcopy(whom),
                "count_op": "equals", "count": 1}})
    return edit


def _step(ref: list[dict[str, Any]], tool: str, turn: int) -> tuple[list[dict[str, Any]], int]:
    steps = ref[turn]["steps"]
    for i, step in enumerate(steps):
        if step.get("call") and step["call"]["name"] == tool:
            return steps, i
    raise CorpusError(f"the reference makes no {tool} call in turn {turn}")


def twice(tool: str, turn: int):  # type: ignore[no-untyped-def]
    """The reference with its first `tool` call of turn `turn` made twice in a row."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        steps, at = _step(ref, tool, turn)
        steps.insert(at + 1, copy.deepcopy(steps[at]))
        return ref
    return witness


def wrong_first(tool: str, turn: int, wrong: str):  # type: ignore[no-untyped-def]
    """The reference with its first `tool` call of turn `turn` made first saying `wrong` (every content argument),
    then as the reference makes it."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        steps, at = _step(ref, tool, turn)
        first = copy.deepcopy(steps[at])
        says = [k for k in first["call"]["arguments"] if k in ("text", "body", "message", "content")]
        if not says:
            raise CorpusError(f"{tool}: no content argument to say something wrong in")
        for k in says:
            first["call"]["arguments"][k] = wrong
        steps.insert(at, first)
        return ref
    return witness


def _defect(name: str, base: str, tool: str, turn: int, words: str, check_id: str, what: str) -> Defect:
    return Defect(CLASS, name, base, f"{what} though the user said {words!r}: {check_id!r} counts 'at least one'",
                  breaks=asked(turn, words, check_id, "at_least"), fix=asked(turn, words, check_id, "exact_by_whom"),
                  witness=twice(tool, turn), gate=GATE, code=CODE)


DEFECTS = [
    _defect("single-email-triage", "example:triage_escalation_declared_tools", "gmail_send_message", 0,
            "Keep it to a single email.", "mailed_on_call", "emails Ravi twice"),
    _defect("just-one-dm-lookup-1", "synth:lookup_answer_source@1", "chat_send_dm", 0,
            "Just one DM with the answer, please.", "answered-with-source", "sends Anya the answer twice"),
    _defect("only-one-message-delegate-1", "synth:delegate_and_follow_up@1", "chat_send_dm", 0,
            "Send them only one message about it.", "delegate-asked", "asks the delegate twice"),
    _defect("exactly-once-contact-1", "synth:contact_phone_update@1", "mail_send", 0,
            "Email them exactly once.", "confirmed", "answers the customer twice"),
    _defect("one-email-schedule-1", "synth:schedule_meeting_timezones@1", "mail_send", 0,
            "One email to everyone is enough.", "attendees-mailed", "mails the attendees twice"),
    _defect("dm-not-twice-reschedule-1", "synth:reschedule_conflict@1", "chat_send_dm", 0,
            "Do not send the DM twice.", "mate-told", "tells Sanna twice"),
    _defect("only-one-message-roster-1", "synth:correct_bad_data@1", "chat_send_dm", 0,
            "Only one message to Malik, please.", "owner-told", "tells Malik twice"),
    _defect("one-mail-incident-1", "synth:incident_investigate_fix@1", "mail_send", 0,
            "Answer Leila in one mail.", "reporter-answered", "answers Leila twice"),
    _defect("single-reply-access-1", "synth:access_request_approval@1", "mail_send", 1,
            "Let them know in a single reply.", "requester-told", "tells Hamza twice"),
    _defect("no-more-than-one-share-2", "synth:refuse_forbidden_action@2", "mail_send", 0,
            "Send no more than one mail.", "shared", "mails the case study twice"),
]

def _earlier(words: str, check_id: str, count: Count):  # type: ignore[no-untyped-def]
    """`asked(0, ...)` on a spec whose message is sent in a later turn, its frame allowing the mails to that recipient
    (not only the one id the reference's run gave its mail, which a second mail would not take)."""
    def edit(spec: Spec) -> None:
        asked(0, words, check_id, count)(spec)
        whom = [w for w in check(spec, check_id, "records")["rule"]["where"] if w["field"] in ("folder", "to")]
        allowed = [a for c in spec["checks"] if c["rule"]["kind"] == "frame" for a in c["rule"]["allow"]
                   if a["app"] == "mail" and a.get("table") == "messages" and a.get("id")]
        if len(allowed) != 1 or len(whom) != 2:
            raise CorpusError(f"{spec['capability']}: no frame allowing one mail by id, or no recipient to allow")
        allowed[0].update(id=None, where=copy.deepcopy(whom))
    return edit


# The one message asked for in an earlier turn than the one that sends it: the user asks for one mail before the
# clarifying question, the mail goes out after the answer (until defects142 only the sending turn's words were read).
DEFECTS += [
    Defect(CLASS, "single-email-earlier-turn-clarify-1", "synth:clarify_ambiguous_request@1",
           "mails the notes twice after the clarification though the first turn said 'When you send it, keep it to a "
           "single email.': 'sent-to-right-person' counts 'at least one'",
           breaks=_earlier("When you send it, keep it to a single email.", "sent-to-right-person", "at_least"),
           fix=_earlier("When you send it, keep it to a single email.", "sent-to-right-person", "exact_by_whom"),
           witness=twice("mail_send", 1), gate=GATE, code=CODE),
]
