"""`_reply_asks.asks_for_reply`: a request for the reply read by its grammar (defects150), and the sentences whose
words go elsewhere (a DM, a post, another person's reply) or ask nothing of the user's agent."""

from __future__ import annotations

import pytest

from coworkenv.validate._reply_asks import asks_for_reply


@pytest.mark.parametrize("request_", [
    "Put the value in your reply to me as well.",
    "Give me the time you picked.",
    "Afterwards, walk me through what you added.",
    "Then share the count with me.",
    "Your reply should name the tasks you added.",
    "Write back with what you moved.",
    "I'd like to know the value too.",
    "I want to hear which service was at fault.",
    "At the end, I'm curious about the number of broken pages.",
    "I wonder whether Mei got back to you.",
    "Ship it by the book and let me hear how it went.",
    "Say when each one last ran.",
    "Mention the time you picked when you are done.",
    # a question put to the agent (defects152)
    "Has Grace come back on the report? If she needs anything else, please take care of it.",
    "Has Sanna answered? Finish Astrid's request accordingly and let them know.",
    "Were any of the pages broken?",
    "Will the deploy be done by noon?",
    "Also, what is the value?",
    "Oh, and when did each one last run?",
    "Quick question: which service caused it?",
    "Can you tell which one failed?",
    # an imperative of explaining; the answer passed on to the user (defects152)
    "Explain which service was at fault.",
    "Recap what you moved.",
    "Find out when each of them last ran. Relay that to me.",
    "Then pass the count on to me.",
    "Note the value too. Report it to me as well.",
])
def test_asks_for_reply(request_: str) -> None:
    assert asks_for_reply(request_)


@pytest.mark.parametrize("request_", [
    "Let me handle the customer myself.",
    "Help me clean up the board: close the stale tickets.",
    "Mention the outage window in the post to #incidents.",
    "Say in the DM to Keiko that the value is live.",
    "Reply back to Rosa with the ticket id.",
    "Book the room for Tuesday and send the invite.",
    # a request in a question's form: its answer is the doing
    "Can you pause the job?",
    "Could you send the file to Grace?",
    "Would you mind posting it in #ops?",
    "Will you please book a room for Friday?",
    # a question someone else is asked
    "Ask Mei: is the room free on Friday?",
    'Reply to Rosa "is the room free?"',
    # explained to another person or in another place; sent (a mail, a file may be what is sent)
    "Explain it to Dev.",
    "Describe the change in the ticket.",
    "Describe the fix for Maya.",
    "Report the bug to Dev.",
    "Send it to me.",
])
def test_asks_nothing_of_the_reply(request_: str) -> None:
    assert not asks_for_reply(request_)
