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
    # a question past the sentence's start, elliptical, or a polite request of finding out (defects155)
    "Disable the failing jobs, with the version you read; when did each one last run?",
    "Add a task for each broken page \u2014 what was the final count?",
    "Roll it out by the book (runbooks/flag-rollout.md); how did it go?",
    "Could you pause the job, and when did it last run?",
    "Who owns it, by the way?",
    "Pause it, then: who owns it?",
    "Any idea which service was at fault?",
    "Anything new on the list?",
    "Any word from Diego?",
    "You found the time?",
    "Could you find out which service was at fault?",
    "Can you check when each of them last ran?",
    # an imperative of telling after a fronted clause, a gerund, the reply as what the answer is added to
    "Once every page is loaded, give me the number of broken pages.",
    "If you added any, walk me through them.",
    "After the restock, recap what you moved.",
    "Once it is booked, say which time you picked.",
    "Finish by telling me the value as well.",
    "Add their last run times to your reply.",
    # a wish to know in other words (defects155)
    "It would help to know which service caused it.",
    "I'd appreciate knowing what you moved.",
    "Curious when each one last ran.",
    "It'd be good to know the count.",
    # (defects158) the answer handed over with no "me" as the object; an imperative of naming or listing; an
    # elliptical question whose noun is also a verb of addressing
    "Then send the count my way.",
    "Let me have the time you picked.",
    "Get the list of what you moved to me.",
    "Identify the service at fault.",
    "Name the service that caused it.",
    "List the tasks you added.",
    "Then report the number of broken pages.",
    "Confirm the time you picked.",
    "Point out when each of them last ran.",
    "Any reply from Diego?",
    "No message from Mei yet?",
    "A reply from Andrei yet?",
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
    # (defects155) a polite request of other work, its tag, or one after a fronted clause; finding out, then working
    "Pause the job, would you?",
    "Pause the job, please?",
    "Once it's paused, could you send the log to Grace?",
    "Can you find out who owns it and assign it to them?",
    "Hi, can you take this off my plate?",
    # a question the clause before it puts to someone else, quoted, or reported
    "Ping Dev on chat and ask: who owns it?",
    "Mei wrote: can we move the sync?",
    "Forward Mei's note (\"Can we move the sync?\") to Dev.",
    "Pause the job and ask Dev who owns it?",
    # the user a party to a write, after a fronted clause; the reply to a mail
    "When you book it, invite me too.",
    "When you reply to Grace, cc me.",
    "Reply to Leila's mail and attach the log to your reply.",
    "If the page is down, give me a call on the phone bridge via the calendar invite.",
    "The curious case of the failing job needs a ticket.",
    "It would help to keep the list short.",
    # (defects158) a pronoun or a thing that is sent, handed over; a write named or listed, or a step of the work;
    # a reply as the verb of a question put to someone else
    "Send it my way when you are done.",
    "Send the file my way.",
    "Get the ticket to me by Friday.",
    "Let me have a look at it first.",
    "Don't send anything; leave that to me.",
    "Report the bug.",
    "Confirm the booking.",
    "Name the file notes.md.",
    "List the item at $20 in the store.",
    "Identify the failing jobs and pause them.",
    "Report the bug you found to Dev.",
    "List the tasks you added in the channel #ops.",
    "Ask Mei: any reply?",
    "Reply to Mei: is it done?",
])
def test_asks_nothing_of_the_reply(request_: str) -> None:
    assert not asks_for_reply(request_)


@pytest.mark.parametrize("shape", [
    "Pause it, " + "and is, " * 20000 + "ok?",
    "could you check whether x, " * 6000 + "and then?",
    "x - " * 35000 + "?",
    "ask: " * 28000 + "who?",
    "Could you find out who " + "owns " * 28000 + "?",
    "When a, " * 17000 + "give me.",
    "If " + "a " * 70000 + ", give me it.",
    # runs of lead words, each of which two unbounded runs around a fronted clause could split anywhere (quadratic:
    # 20,000 "then, " took minutes before `_LEADS` bounded a run)
    "then, " * 25000 + "zz",
    "once you are done, " * 8000 + "tell me",
    "and then " * 16000 + "what?",
    # (defects158) each verb of handing or naming reads at most `_TELL_SPAN` characters past it
    "send " * 20000 + "my way",
    "let me have " * 20000,
    "Name " + "the one that " * 20000 + "x.",
    "List " * 20000 + "you added.",
    "any reply " * 20000 + "?",
    "Identify " + "x and " * 20000,
])
def test_long_turns_are_read_in_linear_time(shape: str) -> None:
    # a scan from each clause to the sentence's end would be quadratic: minutes on these 140-160 KB turns (defects155
    # reads each clause's start once; each took 0.1-0.6 s on a loaded machine)
    import time

    start = time.perf_counter()
    asks_for_reply(shape)
    assert time.perf_counter() - start < 15
