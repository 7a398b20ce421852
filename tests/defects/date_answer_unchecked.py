"""Date answers unchecked: the reply a task asks for answers with a date (a renewal date, a review date), and the
check on it reads only the question's words (the customer or contract asked about), not the date."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, call, check, has_cond, with_args

CLASS = "date_answer_unchecked"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "drop the dates a reply states (2027-04-19, 19 April 2027) along with its codes and numbers; if every check "
    "still passes the reply without them, the date answer is unchecked"
)

_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
# The message tools whose text answers the question, and the argument the text is in.
_MESSAGES = (("mail_send", "body"), ("mail_save_draft", "body"), ("chat_send_dm", "text"))


def _date_cond(spec: Spec) -> tuple[str, dict[str, Any]]:
    """(field, condition): the first `contains` condition of a records check whose value is an ISO date."""
    for field in ("body", "text"):
        try:
            c = check(spec, kind="records", where=has_cond(field, "contains"))
        except CorpusError:
            continue
        for w in c["rule"]["where"]:
            if w["field"] == field and w["op"] == "contains" and _ISO.fullmatch(str(w["value"])):
                return field, w
    raise CorpusError(f"{spec['capability']}: no check wants a date in a message's text")


def _message(spec: Spec) -> tuple[str, str, str]:
    """(tool, argument, text) of the reference's message stating a date."""
    for tool, arg in _MESSAGES:
        try:
            said = str(call(spec, tool)["arguments"][arg])
        except CorpusError:
            continue
        if _ISO.search(said):
            return tool, arg, said
    raise CorpusError(f"{spec['capability']}: the reference sends no message stating a date")


def _question_words(spec: Spec) -> None:
    """The answer's condition reads the question's words ('Ibis Homes' of 'the renewal date for Ibis Homes is
    2027-04-19') in place of the date."""
    _field, cond = _date_cond(spec)
    said = _message(spec)[2]
    asked = re.search(r"\bfor (.+?) is " + re.escape(str(cond["value"])), said)
    if asked is None:
        raise CorpusError(f"{spec['capability']}: the reference's message does not say 'for X is {cond['value']}'")
    cond["value"] = asked.group(1)


def _wrong_date(spec: Spec) -> list[dict[str, Any]]:
    """The reference's message with its date a day later (a wrong answer to the same question)."""
    tool, arg, said = _message(spec)
    right = _ISO.findall(said)[0]
    wrong = (date.fromisoformat(right) + timedelta(days=1)).isoformat()
    return with_args(spec, tool, {}, **{arg: said.replace(right, wrong)})


DEFECTS = [
    *(Defect(CLASS, f"reply-date-question-words-{seed}", f"synth:inbox_triage_reply@{seed}",
             "answers the renewal-date question with the wrong date: the reply check reads only the contract's name",
             breaks=_question_words, witness=_wrong_date) for seed in (1, 2, 6, 8)),
    Defect(CLASS, "draft-date-question-words-1", "synth:draft_only_reply@1",
           "drafts the reply with the wrong review date: the draft check reads only the customer's name",
           breaks=_question_words, witness=_wrong_date),
    Defect(CLASS, "dm-date-question-words-6", "synth:lookup_answer_source@6",
           "tells the colleague the wrong renewal date: the DM check reads only the company's name and the source",
           breaks=_question_words, witness=_wrong_date),
]
