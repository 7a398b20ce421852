"""Unphrased requests unchecked: someone asks for a fact in words no list of question phrases holds ("Need the
renewal date of the Ibis Homes contract before my call.", "Reply with the escalation code for Bison Hotels when you
can.", "Find the answer and get back to me with it and the file it came from."), and the check on the answer reads
only what was asked about or the source, not the answer: a wrong answer passes.

Two ways in: a colleague asks in their DM or by mail and the task answers with a message outside the request's thread
(a DM, a new mail or draft: no `in_reply_to`); or the user asks the agent to be told the answer and only the final
reply states it, checked by the source it names or not at all. Before defects122 the gates read a request as one only
when it held a question mark or one of the phrases of `_answered_questions._QUESTION` ("let me know", "could you
send", "tell me", "I need"), and a reply as asked for only when a check read it or the request held one of
`_mutation_core._ASKS`'s ("tell me", "report back"), so these requests got no "without its facts" near miss, and a
reply no check reads, no "no answer" one."""

from __future__ import annotations

import re
from collections.abc import Callable

from tests.defects._core import CorpusError, Defect, Edit, Spec
from tests.defects.told_answer_unchecked import _checked, _told
from tests.defects.told_answer_unchecked import _wrong as _wrong_told
from tests.defects.unmarked_question_unchecked import _case as _unmarked_case
from tests.defects.unmarked_question_unchecked import _unmarked
from tests.defects.unthreaded_answer_unchecked import _in_channel, _question_words, _wrong_answer

CLASS = "unphrased_request_unchecked"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "take a message of the recipient in the conversation an answer goes to (a DM, a mail), and a turn whose reply a "
    "check reads, as the request whatever its wording: the answer or the reply without its facts must fail a check"
)


def _colleague(name: str, base: str, request: str, mail: bool) -> Defect:
    """The colleague's question restated as `request` (`{}` for what is asked), no question mark, no phrase of a
    question; the check on the answering message reads only what was asked about."""
    made = _unmarked_case(name, base, request, mail)
    return Defect(CLASS, name, base,
                  "answers a colleague's request for a fact, worded as no question is, with a wrong answer outside the "
                  "request's thread: the message check reads only what was asked about",
                  breaks=made.breaks, fix=made.fix, witness=made.witness, gate="mutations", code="content_unchecked")


def _asked_as(words: str) -> Callable[[Edit], Edit]:
    """An edit of the told answer's spec whose turn asks for the answer in `words` instead of "tell me"."""
    def wrap(edit: Edit) -> Edit:
        def reworded(spec: Spec) -> None:
            edit(spec)
            turn = spec["turns"][0]
            asked, n = re.subn(r"Find the answer .*?\. ", f"Find the answer in our documents (the current ones) and "
                               f"{words}. ", turn["content"], count=1)
            if not n:
                raise CorpusError(f"{spec['capability']}: the turn asks for the answer otherwise: {turn['content']!r}")
            turn["content"] = asked
        return reworded
    return wrap


def _user(name: str, seed: int, words: str) -> Defect:
    """The user asks to be told the answer in `words`; only the source is checked (told_answer_unchecked's edit)."""
    asked = _asked_as(words)
    return Defect(CLASS, name, f"synth:lookup_answer_source@{seed}",
                  "tells the user a wrong answer they asked for in words no question phrase holds: the check on the "
                  "answer reads only the source file", breaks=asked(_told), fix=asked(_checked), witness=_wrong_told,
                  gate="mutations", code="content_unchecked")


def _told_unread(spec: Spec) -> None:
    """The told answer with no check on the reply at all: only that the current document was read."""
    _told(spec)
    spec["checks"] = [c for c in spec["checks"] if c["rule"]["kind"] != "reply_states"]


def _user_unread(name: str, seed: int, words: str) -> Defect:
    """The user asks to be told the answer in `words`; no check reads the reply (the gates took it for no content)."""
    asked = _asked_as(words)
    return Defect(CLASS, name, f"synth:lookup_answer_source@{seed}",
                  "tells the user a wrong answer (or none) they asked for in words no request phrase holds: no check "
                  "reads the reply, only that the source was read", breaks=asked(_told_unread), fix=asked(_checked),
                  witness=_wrong_told, gate="mutations", code="content_unchecked")


def _channel(name: str, seed: int, request: str) -> Defect:
    """The colleague's question asked in a team channel as the request `request` (`{}` for what is asked: no
    question mark, no phrase of a question), answered there by a post; the turn names the colleague ("Keiko asked me
    about a production setting"). The post check reads only what was asked about (defects126: a channel's request
    had to read as a question, `_QUESTION`)."""
    def fix(spec: Spec) -> None:
        _in_channel(spec)
        _unmarked(request)(spec)

    def breaks(spec: Spec) -> None:
        fix(spec)
        _question_words(spec)
    return Defect(CLASS, name, f"synth:lookup_answer_source@{seed}",
                  "posts a wrong answer to a colleague's request for a fact, worded as no question is, in the team "
                  "channel it was made in: the post check reads only what was asked about",
                  breaks=breaks, fix=fix, witness=_wrong_answer, gate="mutations", code="content_unchecked")


DEFECTS = [
    _colleague("dm-need-1", "synth:lookup_answer_source@1", "Need {} before my call.", mail=False),
    _colleague("new-mail-reply-with-1", "synth:inbox_triage_reply@1", "Reply with {} when you can.", mail=True),
    _colleague("new-mail-looking-for-2", "synth:inbox_triage_reply@2", "Looking for {}, for the renewal.", mail=True),
    _colleague("new-draft-after-2", "synth:draft_only_reply@2", "I am after {}.", mail=True),
    _user("told-reply-here-4", 4, "reply here with the answer and the file it came from"),
    _user("told-get-back-10", 10, "get back to me with it and the file it came from"),
    _user("told-in-your-reply-8", 8, "put the answer in your reply, with the file it came from"),
    _user_unread("told-unread-reply-here-5", 5, "reply here with the answer and the file it came from"),
    _channel("post-somebody-post-3", 3, "Somebody post {} here when you can."),
    _channel("post-need-1", 1, "Need {} before the release."),
    _channel("post-after-9", 9, "I am after {}."),
    _user_unread("told-unread-in-your-reply-10", 10, "put the answer in your reply, with the file it came from"),
]
