"""A message the user asks for once, counted exactly by what it says: a wrong message sent before the right one passes.

The writer reads "send one message" and pins the count, but on the check that also holds the message's words
(`exactly 1 DM in the channel whose text contains 900`). A mail or a chat message cannot be taken back: the agent that
first sends a message without the answer (or with a wrong figure) and then the right one has sent two where one was
asked, the recipient read the wrong one, and the count of messages saying the right words is still one. Only the final
state is read, so the wrong value written before the right one is never seen. The sound twin counts the messages to
that recipient exactly by whom they reach (the channel and sender, or the recipients, folder and thread), and keeps the
words' check "at least one".

Main made no such near miss. Caught by the mutations gate (`sent_wrong_first`): where the turn asks for one of what a
sending write sends (`_asked_once`), the write is also made first with its content near misses, then right.
"""

from __future__ import annotations

from tests.defects._core import Defect
from tests.defects.asked_once_duplicated import _earlier, asked, wrong_first

CLASS = "sent_wrong_first"
DETECTION = (
    "where a user turn asks for one message, send it first with its facts left out or wrong, then as the reference "
    "does; if every check still passes, the count reads the message's words and misses the wrong one already sent"
)
GATE, CODE = "mutations", "sent_wrong_first"


def _defect(name: str, base: str, tool: str, turn: int, words: str, check_id: str, wrong: str, what: str) -> Defect:
    return Defect(CLASS, name, base, f"{what} though the user said {words!r}: {check_id!r} counts exactly one "
                  "message by its words", breaks=asked(turn, words, check_id, "exact_by_words"),
                  fix=asked(turn, words, check_id, "exact_by_whom"), witness=wrong_first(tool, turn, wrong),
                  gate=GATE, code=CODE)


DEFECTS = [
    _defect("single-email-triage", "example:triage_escalation_declared_tools", "gmail_send_message", 0,
            "Keep it to a single email.", "mailed_on_call", "Hi Ravi, see subject.",
            "mails Ravi a body saying nothing first, then the right mail,"),
    _defect("just-one-dm-lookup-2", "synth:lookup_answer_source@2", "chat_send_dm", 0,
            "Just one DM with the answer, please.", "answered-with-source", "Checking, one moment.",
            "DMs the asker a message without the answer first, then the answer,"),
    _defect("only-one-message-delegate-2", "synth:delegate_and_follow_up@2", "chat_send_dm", 0,
            "Send them only one message about it.", "delegate-asked", "Hi, can you take a ticket for me?",
            "asks the delegate without the ticket id first, then again with it,"),
    _defect("exactly-once-contact-2", "synth:contact_phone_update@2", "mail_send", 0,
            "Email them exactly once.", "confirmed", "Hello, we received your mail.",
            "answers the customer without the new number first, then with it,"),
    _defect("one-email-schedule-2", "synth:schedule_meeting_timezones@2", "mail_send", 0,
            "One email to everyone is enough.", "attendees-mailed", "Hi all, a meeting is coming up.",
            "mails the attendees without the time first, then with it,"),
    _defect("dm-not-twice-reschedule-2", "synth:reschedule_conflict@2", "chat_send_dm", 0,
            "Do not send the DM twice.", "mate-told", "Hi, I moved our meeting.",
            "tells the colleague the move without the new time first, then with it,"),
    _defect("one-update-incident-2", "synth:incident_investigate_fix@2", "chat_post_message", 0,
            "Post just one update in #incidents.", "announced", "Looking into the errors now.",
            "posts a status without the service first, then the right update,"),
]

# Asked in the turn before the one that sends it (the user answers a clarifying question in between): defects142.
DEFECTS += [
    Defect(CLASS, "one-email-earlier-turn-clarify-3", "synth:clarify_ambiguous_request@3",
           "mails the person a body saying nothing of the file first, then the right mail, though the first turn said "
           "'One email only, once you know who.': 'sent-to-right-person' counts exactly one message by its words",
           breaks=_earlier("One email only, once you know who.", "sent-to-right-person", "exact_by_words"),
           fix=_earlier("One email only, once you know who.", "sent-to-right-person", "exact_by_whom"),
           witness=wrong_first("mail_send", 1, "Hi, sending it over shortly."), gate=GATE, code=CODE),
]
