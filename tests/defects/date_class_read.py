"""A date of the answer read by a digit class: the mail, draft or message that answers the question states a date
(`2027-05-06`, the SLA review date the document gives), and the check on the text reads one of its digits by a class
of it and the digit below (`body matches 2027-05-0[56]`, `2027-0[45]-06`, `202[67]-05-06`): the writer admitted "a day
the zones might move" or a typo once seen. The answer stating the day, month or year before passes. The digit-class
near miss (`_partial_facts.classed_digits_wrong`) moved a date's digit one up only (a date may name one day in two
zones, so the other digits a class admits were not tried), and the class refuses the digit above (defects93 left it
for dates, having done it for clocks). The sound twin reads the date whole (the base: `contains 2027-05-06`).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec
from tests.defects.date_part_read import date_cond, wrong_date

CLASS = "date_class_read"
DETECTION = (
    "near miss per content text: an ISO date of the answer that a check's pattern reads by a digit class or an "
    "alternation is restated with each digit the class admits; a calendar date that names no day the stated one "
    "names (read in the zones the spec knows, for the instants it states or its world holds) and passes every check "
    "means the check reads the date loosely"
)
GATE, CODE = "mutations", "content_unchecked"
_AT = {"day": 9, "month": 6, "year": 3}  # the index of the digit read by a class


def _moved(day: str, how: str) -> str:
    """The date with the digit `how` names one below (a calendar date, or the corpus case is refused)."""
    i = _AT[how]
    wrong = f"{day[:i]}{(int(day[i]) - 1) % 10}{day[i + 1:]}"
    try:
        date.fromisoformat(wrong)
    except ValueError:
        raise CorpusError(f"{day}: the {how}'s digit below makes no date") from None
    return wrong


def _classed(how: str) -> Any:
    def edit(spec: Spec) -> None:
        w = date_cond(spec)
        day, i = w["value"], _AT[how]
        w["op"], w["value"] = "matches", rf"{re.escape(day[:i])}[{_moved(day, how)[i]}{day[i]}]{re.escape(day[i + 1:])}"
    return edit


_AWAY = {"day": "states the day before", "month": "states the month before", "year": "states the year before"}


def _defect(cap: str, seed: int, how: str) -> Defect:
    return Defect(CLASS, f"{cap}-{how}-{seed}", f"synth:{cap}@{seed}",
                  f"answers with the date the document gives read by a class: {_AWAY[how]}", breaks=_classed(how),
                  witness=wrong_date(lambda d: _moved(d, how)), gate=GATE, code=CODE)


_CASES = (("draft_only_reply", 1, "day"), ("draft_only_reply", 11, "month"), ("draft_only_reply", 12, "year"),
          ("inbox_triage_reply", 1, "day"), ("inbox_triage_reply", 2, "month"), ("inbox_triage_reply", 6, "day"),
          ("lookup_answer_source", 6, "day"), ("lookup_answer_source", 10, "year"))
DEFECTS = [_defect(*case) for case in _CASES]
