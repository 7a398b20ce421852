"""Reply ask noun question: a later turn asks the user's agent an elliptical question whose noun is also a verb of
addressing ("Any reply from Diego?", "No message from Mei yet?", "A reply from Andrei yet?", "Any text back from
Ingrid?"), and no check reads that turn's reply: an agent that does the turn's writes and answers "Done." passes.

A reply no check reads counts as task content only where the request asks for it (`_mutation_core.reply_is_content`).
`_reply_asks` read "Any word from Diego?" as a question to the agent, but took "reply", "message", "text" for the
question being put to someone else (`_ADDRESSED`, the words that address a colleague: "Ask Mei: ...", "Reply to Rosa
...") and read "Any reply from Diego?" as no question to the agent. Until defects158 a determiner before the word
("any", "no", "a", "the", "your") did not tell the noun from the verb. Registered narrow: of the generators, only
delegate_and_follow_up asks in a later turn whether a colleague answered (seeds 1, 2, 3, 4, 7; the twin keeps the
base's checks on the reply). None has a Python check."""

from __future__ import annotations

from functools import partial

from tests.defects.reply_ask_unphrased import _case as reworded_case

CLASS = "reply_ask_noun_question"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "read an elliptical question whose noun is also a verb of addressing (`Any reply from Diego?`, `No message from "
    "Mei yet?`) as a question to the agent, not one put to someone else: the reply without its facts must fail a check"
)

_case = partial(reworded_case, cls=CLASS, asked="in an elliptical question on a colleague's reply")


DEFECTS = [
    _case("any-reply-followup-1", "synth:delegate_and_follow_up@1", "Any answer from Esra about ENG-376?",
          "Any reply from Esra about ENG-376?"),
    _case("any-reply-followup-2", "synth:delegate_and_follow_up@2", "Did Diego get back to you?",
          "Any reply from Diego?"),
    _case("no-message-followup-3", "synth:delegate_and_follow_up@3", "Did Mei get back to you?",
          "No message from Mei yet?"),
    _case("a-reply-followup-4", "synth:delegate_and_follow_up@4", "Did Andrei get back to you?",
          "A reply from Andrei yet?"),
    _case("text-back-followup-7", "synth:delegate_and_follow_up@7", "Did Ingrid get back to you?",
          "Any text back from Ingrid?"),
]
