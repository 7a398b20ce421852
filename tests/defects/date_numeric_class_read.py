"""A date of the answer written in a numeric notation and read by a digit class: the mail or draft that answers the
question states the document's date (`2027-05-06`) day first with slashes or dots (`06/05/2027`, `06.05.2027`),
year first with slashes (`2027/05/06`), or as day and month alone (`06/05`), and the check on the text accepts the
document's ISO form or the writer's, reading one digit of the writer's by a class of it and the digit below
(`2027-05-06|0[56]/05/2027`, `06\\.0[45]\\.2027`, `2027/05/0[56]`): the writer admitted "a day the zones might
move". The answer stating the day or month before passes. defects95 tried every digit a class admits in an ISO date;
the day and month of a date with dots or slashes were still taken for a clock time, a version or a day either way
round (`[34]/[34]`) and moved one up only, which the class refuses (its year was already tried with any digit). The
sound twin reads the writer's date whole (`2027-05-06|06/05/2027`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, base_spec
from tests.defects.date_part_read import date_cond, restated

CLASS = "date_numeric_class_read"
DETECTION = (
    "near miss per content text: a date of the answer in a numeric notation (day and month either way round and a "
    "year joined by dots, dashes or slashes; year first; day and month with slashes) that a check's pattern reads by "
    "a digit class is restated with each digit the class admits; a date none of whose readings names a day the "
    "stated one may name (in the zones the spec knows) that passes every check means the check reads the date loosely"
)
GATE, CODE = "mutations", "content_unchecked"

# notation -> (how the ISO date is written, the index in it of the last digit of its day and of its month)
_NOTATIONS: dict[str, tuple[Callable[[date], str], dict[str, int]]] = {
    "slashes": (lambda d: f"{d.day:02d}/{d.month:02d}/{d.year}", {"day": 1, "month": 4}),
    "dots": (lambda d: f"{d.day:02d}.{d.month:02d}.{d.year}", {"day": 1, "month": 4}),
    "year-first": (lambda d: f"{d.year}/{d.month:02d}/{d.day:02d}", {"day": 9, "month": 6}),
    "yearless": (lambda d: f"{d.day:02d}/{d.month:02d}", {"day": 1, "month": 4}),
}


def _iso(base: str) -> str:
    """The document's date the base's check reads whole (`2027-05-06`)."""
    return str(date_cond(base_spec(base))["value"])


def _below(written: str, i: int) -> str:
    """The written date with digit `i` one below (a calendar date read day first, or the corpus case is refused)."""
    wrong = f"{written[:i]}{(int(written[i]) - 1) % 10}{written[i + 1:]}"
    parts = [int(p) for p in re.split(r"[./]", wrong)]
    y, m, d = parts if parts[0] > 999 else (parts[2] if len(parts) == 3 else 2028, parts[1], parts[0])
    try:
        date(y, m, d)
    except ValueError:
        raise CorpusError(f"{written}: the digit below makes no date") from None
    return wrong


def _pattern(iso: str, written: str, i: int | None) -> str:
    """The check's pattern: the ISO date or the written one, its digit `i` read by a class with the digit below."""
    alt = re.escape(written) if i is None else \
        rf"{re.escape(written[:i])}[{_below(written, i)[i]}{written[i]}]{re.escape(written[i + 1:])}"
    return rf"{re.escape(iso)}|{alt}"


def _edit(base: str, notation: str, how: str | None) -> Callable[[Spec], None]:
    def edit(spec: Spec) -> None:
        iso = _iso(base)
        writes, at = _NOTATIONS[notation]
        written = writes(date.fromisoformat(iso))
        w = date_cond(spec)
        spec["reference"] = restated(spec, w["field"], iso, written)
        w["op"], w["value"] = "matches", _pattern(iso, written, None if how is None else at[how])
    return edit


def _witness(base: str, notation: str, how: str) -> Callable[[Spec], list[dict[str, Any]]]:
    """The writes stating the written date with the digit the class reads one below."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        writes, at = _NOTATIONS[notation]
        written = writes(date.fromisoformat(_iso(base)))
        field = date_cond(base_spec(base))["field"]
        return restated(spec, field, written, _below(written, at[how]))
    return witness


_AWAY = {"day": "states the day before", "month": "states the month before"}


def _defect(cap: str, seed: int, notation: str, how: str) -> Defect:
    base = f"synth:{cap}@{seed}"
    return Defect(CLASS, f"{cap}-{notation}-{how}-{seed}", base,
                  f"answers with the document's date written {notation} and read by a class: {_AWAY[how]}",
                  breaks=_edit(base, notation, how), fix=_edit(base, notation, None),
                  witness=_witness(base, notation, how), gate=GATE, code=CODE)


_CASES = (("draft_only_reply", 1, "slashes", "day"), ("draft_only_reply", 11, "dots", "day"),
          ("draft_only_reply", 12, "slashes", "month"), ("inbox_triage_reply", 1, "year-first", "day"),
          ("inbox_triage_reply", 2, "dots", "month"), ("inbox_triage_reply", 6, "yearless", "day"),
          ("inbox_triage_reply", 10, "year-first", "month"), ("lookup_answer_source", 6, "slashes", "month"),
          ("lookup_answer_source", 10, "yearless", "day"))
DEFECTS = [_defect(*case) for case in _CASES]
