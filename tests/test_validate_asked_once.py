"""`_asked_once`: which words of a user's turn ask for one of what a sending write sends."""

from __future__ import annotations

import pytest

from coworkenv.spec import EnvSpec
from coworkenv.validate._asked_once import asked_once
from tests.defects._core import base_spec

_SPEC = base_spec("synth:lookup_answer_source@1")


def _with_turn(words: str) -> EnvSpec:
    spec = EnvSpec.model_validate(_SPEC)
    return spec.model_copy(update={"turns": [spec.turns[0].model_copy(update={"content": words})]})


@pytest.mark.parametrize(("words", "op", "found"), [
    ("Send Ravi a single email about it.", "mail_send", "a single email"),
    ("Just one DM with the answer, please.", "chat_send_dm", "Just one DM"),
    ("Put everything in one mail.", "mail_send", "one mail"),
    ("Post one short status update in #ops.", "chat_post_message", "one short status update"),
    ("Email them exactly once.", "mail_send", "exactly once"),
    ("Don't post that twice.", "chat_post_message", "Don't post that twice"),
    ("Add no more than one comment to the ticket.", "tickets_comment", "no more than one comment"),
    ("Mail the customer once.", "mail_send", "once"),
    ("Send one (1) email to the vendor.", "mail_send", "one (1) email"),
    ("Don't double-post in #ops.", "chat_post_message", "Don't double-post"),
    ("Don't send her a second reminder.", "chat_send_dm", "Don't send her a second"),
    ("No double booking, please.", "calendar_create_event", "No double booking"),
    ("Book a single meeting and tell Ana.", "calendar_create_event", "a single meeting"),
    ("File one ticket for the outage.", "tickets_create", "one ticket"),
    ("Please avoid duplicates in the channel.", "chat_post_message", "avoid duplicates"),
])
def test_words_asking_for_one_message_are_found(words: str, op: str, found: str) -> None:
    assert asked_once(_with_turn(words), 0, op) == found


@pytest.mark.parametrize(("words", "op"), [
    ("Post a short update in #incidents once it's fixed.", "chat_post_message"),  # a clause's "once"
    ("Reply to the one message from Kai.", "mail_send"),  # names the mail answered
    ("Answer one of the mails in the inbox.", "mail_send"),
    ("Keep the answer to one or two lines.", "chat_send_dm"),
    ("Tell Sanna at once.", "chat_send_dm"),  # "at once": now
    ("Don't try to flip the flag in production, not even once.", "tickets_create"),  # a refusal of another act
    ("Resolve it once the service is healthy, then post an update.", "chat_post_message"),
    ("Send a single email to Ravi.", "chat_send_dm"),  # a mail asked for, not a DM
    ("Book a single meeting and tell Ana.", "chat_send_dm"),  # a meeting asked for once, not the DM
])
def test_other_words_ask_for_no_count(words: str, op: str) -> None:
    assert asked_once(_with_turn(words), 0, op) is None



_CLARIFY = base_spec("synth:clarify_ambiguous_request@1")  # turn 0 asks who is meant (no write), turn 1 mails


def _clarify(first: str, then: str = "I meant Lucas Kowalski.", first_mails: bool = False) -> EnvSpec:
    spec = EnvSpec.model_validate(_CLARIFY)
    turns = [spec.turns[0].model_copy(update={"content": first}), spec.turns[1].model_copy(update={"content": then})]
    reference = list(spec.reference)
    if first_mails:  # turn 0 sends its own mail (the one its ask was about)
        mail = next(s for s in reference[1].steps if s.call is not None and s.call.name == "mail_send")
        reference[0] = reference[0].model_copy(update={"steps": [*reference[0].steps, mail]})
    return spec.model_copy(update={"turns": turns, "reference": reference})


def test_an_earlier_turns_ask_holds_for_the_later_send() -> None:
    """An ask in a turn that sends nothing of that kind holds for the next turn that does (defects142); one a turn
    used for its own send, an adverb carried from a turn that wrote, or an ask for another kind does not."""
    assert asked_once(_clarify("When you send it, keep it to a single email."), 1, "mail_send") == "a single email"
    assert asked_once(_clarify("Send it only once, please."), 1, "mail_send") == "only once"
    assert asked_once(_clarify("Keep it to a single email.", first_mails=True), 1, "mail_send") is None
    assert asked_once(_clarify("Send it only once, please.", first_mails=True), 1, "mail_send") is None
    assert asked_once(_clarify("Just one DM to Lucas."), 1, "mail_send") is None
    assert asked_once(_clarify("Please email the notes to Lucas."), 1, "mail_send") is None
