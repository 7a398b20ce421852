"""A date of the answer read in part: the mail, draft or message that answers the question states a date
(`2027-05-06`, the SLA review date the document gives), and the check on the text reads only part of it: its year
and month (`body contains 2027-05`), its year (`matches \\b2027-`), or its month and day without the year (`contains
05-06`). The writer cut the date to admit "any format" or a day the zones might move, and an answer with the day, the
month or the year wrong passes (the outsider's sixth hunt, `benchmarks/hunt_mutants.py --family d65`, kind
`records.where.contains_half` on draft_only_reply 1: `(?i)2027\\-` passed the draft stating `2027-05-07`). The partial
reads of an answer (`_partial_facts.beyond_checked_part`) moved the digits a match leaves out only where a match
ends inside a run of digits (`202` of `2027`); a match ending at a date's own dash was taken for a whole part, as
the start time of `14:00-15:00` is. The sound twin reads the date whole (the base: `contains 2027-05-06`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, reference

CLASS = "date_part_read"
DETECTION = (
    "near miss per content text: an ISO date of the answer (a mail's body, a message, a reply) that the checks' "
    "matches read only some digits of (the year, the year and month, the month and day) is restated with the "
    "digits they leave out moved; a check that still passes reads the date in part"
)
GATE, CODE = "mutations", "content_unchecked"
_DATE = re.compile(r"^\d{4}-\d\d-\d\d$")


def date_cond(spec: Spec) -> dict[str, Any]:
    """The records check's condition that reads the answer's date whole (`body contains 2027-05-06`)."""
    for c in spec["checks"]:
        if c["rule"]["kind"] != "records":
            continue
        for w in c["rule"]["where"]:
            if w["op"] == "contains" and isinstance(w["value"], str) and _DATE.match(w["value"]):
                return w  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: no check reads a date of a written text")


def _cut(how: str) -> Any:
    def edit(spec: Spec) -> None:
        w = date_cond(spec)
        year, month, day = w["value"].split("-")
        if how == "year_month":  # "the right month is enough"
            w["value"] = f"{year}-{month}"
        elif how == "year":  # a pattern reading the year of the date
            w["op"], w["value"] = "matches", rf"\b{year}-"
        else:  # "month_day": the day without its year
            w["value"] = f"{month}-{day}"
    return edit


def _moved(date: str, how: str) -> str:
    """The date with the part the cut check leaves out wrong."""
    year, month, day = date.split("-")
    if how == "year_month":
        return f"{year}-{month}-{int(day) - 1 if int(day) > 1 else 2:02d}"
    if how == "year":
        return f"{year}-{int(month) % 12 + 1:02d}-{day}"
    return f"{int(year) + 1}-{month}-{day}"


def restated(spec: Spec, field: str, date: str, wrong: str) -> list[dict[str, Any]]:
    """The reference with each write stating `date` in `field` stating `wrong` instead."""
    ref = reference(spec)
    hits = 0
    for turn in ref:
        for step in turn["steps"]:
            c = step.get("call")
            if c and isinstance(c["arguments"].get(field), str) and date in c["arguments"][field]:
                c["arguments"][field] = c["arguments"][field].replace(date, wrong)
                hits += 1
    if not hits:
        raise CorpusError(f"{spec['capability']}: no write states {date} in {field}")
    return ref


def wrong_date(moved: Callable[[str], str]) -> Callable[[Spec], list[dict[str, Any]]]:
    """Witness: the writes stating the date the check reads stating `moved(date)` instead."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        w = date_cond(spec)
        return restated(spec, w["field"], w["value"], moved(w["value"]))
    return witness


_AWAY = {"year_month": "states the right month with the wrong day",
         "year": "states the right year with the wrong month",
         "month_day": "states the right day and month of the wrong year"}

def _defect(cap: str, seed: int, how: str) -> Defect:
    return Defect(CLASS, f"{cap}-{how.replace('_', '-')}-{seed}", f"synth:{cap}@{seed}",
                  f"answers with the date the document gives cut: {_AWAY[how]}", breaks=_cut(how),
                  witness=wrong_date(lambda d: _moved(d, how)), gate=GATE, code=CODE)


_CASES = (("draft_only_reply", 1, "year_month"), ("draft_only_reply", 11, "year"), ("draft_only_reply", 12, "month_day"),
          ("inbox_triage_reply", 1, "year"), ("inbox_triage_reply", 2, "month_day"),
          ("inbox_triage_reply", 6, "year_month"), ("inbox_triage_reply", 8, "month_day"),
          ("inbox_triage_reply", 10, "year_month"), ("lookup_answer_source", 6, "month_day"),
          ("lookup_answer_source", 10, "year_month"))
DEFECTS = [_defect(*case) for case in _CASES]
