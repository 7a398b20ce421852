"""Unmarked questions unchecked: a colleague asked the user for a fact without a question mark ("please let me know
the renewal date of the Ibis Homes contract.", "could you send me the escalation code for Bison Hotels."), the task
answers it with a message outside the question's thread (a direct message, a new mail or draft: no `in_reply_to`),
and the check on that message reads only the question's words (the customer, the service asked about), not the
answer."""

from __future__ import annotations

import re
from collections.abc import Callable

from tests.defects._core import CorpusError, Defect, Edit, Spec
from tests.defects.unthreaded_answer_unchecked import _question_words, _unthreaded, _wrong_answer

CLASS = "unmarked_question_unchecked"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "read a colleague's request for a fact as a question whether or not it ends in a question mark (let me know, "
    "please send, could you tell me, I need): a message answering it outside its thread gets the near miss "
    "without its facts; if every check still passes it, the answer is unchecked"
)

_ASKED = re.compile(r"\b(?:what's|what is)\s+([^?]+)\?", re.IGNORECASE)


def _unmarked(request: str) -> Edit:
    """Every question of the world asking "what's X?" restated as the request `request` (with `{}` for X), with no
    question mark: the chat message or mail the colleague asked in."""
    def edit(spec: Spec) -> None:
        changed = 0
        apps = spec["world"]["apps"]
        rows = [(m, "text") for m in apps.get("chat", {}).get("messages", [])]
        rows += [(m, "body") for m in apps.get("mail", {}).get("messages", [])]
        for row, field in rows:
            text = str(row.get(field, ""))
            new = _ASKED.sub(lambda m: request.format(m.group(1)), text)
            if new != text:
                if "?" in new:
                    raise CorpusError(f"{spec['capability']}: {row['id']} asks more than one thing")
                row[field] = new
                changed += 1
        if not changed:
            raise CorpusError(f"{spec['capability']}: no colleague asks \"what's ...?\" in the world")
    return edit


def _then(*edits: Edit) -> Edit:
    def edit(spec: Spec) -> None:
        for e in edits:
            e(spec)
    return edit


def _case(name: str, base: str, request: str, mail: bool) -> Defect:
    unmarked = _unmarked(request)
    fix: Callable[[Spec], None] = _then(_unthreaded, unmarked) if mail else unmarked
    return Defect(CLASS, name, base,
                  "answers a colleague's request for a fact (no question mark) with a wrong answer outside the "
                  "request's thread: the message check reads only what was asked about",
                  breaks=_then(fix, _question_words), fix=fix, witness=_wrong_answer,
                  gate="mutations", code="content_unchecked")


DEFECTS = [
    _case("dm-let-me-know-1", "synth:lookup_answer_source@1", "please let me know {}.", mail=False),
    _case("dm-send-me-5", "synth:lookup_answer_source@5", "could you send me {}.", mail=False),
    _case("dm-need-8", "synth:lookup_answer_source@8", "I need {} for a call.", mail=False),
    _case("dm-tell-me-13", "synth:lookup_answer_source@13", "can you tell me {}.", mail=False),
    _case("new-mail-confirm-1", "synth:inbox_triage_reply@1", "Please confirm {}.", mail=True),
    _case("new-mail-share-2", "synth:inbox_triage_reply@2", "Could you share {} with me.", mail=True),
    _case("new-draft-remind-1", "synth:draft_only_reply@1", "Can you remind me of {}.", mail=True),
]
