"""A numbered part of a year or of a report the user names in one form ("mail Stefan the Q4 review report", "the weekly
support report for week 14", a calendar event's "Q2 roadmap review") that the writer relays with its number written
another way: "the fourth-quarter review", "the 4th quarter review", "the quarter 4 review", "the 4Q review", "the W14
report", "CW14: 16 tickets", "the second-quarter roadmap review". The mail's or post's check wants the writer's form,
so the honest agent that copies the user's "Q4" or "week 14" fails. Nobody asked for a form. The sound twin accepts
either.

The format replay read dates, times, amounts and counts, not a label's number ("Q4", "week 14", "Part II"), so it
never wrote the user's form back: main accepted every case here.

Caught by the format replay (`format_pinned`, `_user_formats`), which now reads a quarter, a half, a week and a
numbered part, phase, stage, ... however its number is written (digits, words, an ordinal, a roman numeral: "Q4",
"fourth quarter", "4th quarter", "quarter 4", "4Q"; "week 14", "W14", "CW14", "wk 14", "14th week"; "part 2", "Part
II", "second part") and writes the user's form back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, base_spec, reference
from tests.defects.clock_dotted_bare_pinned import relayed_check

CLASS = "label_numeral_pinned"
DETECTION = (
    "read a quarter, a half, a week or a numbered part however its number is written ('Q4', 'fourth quarter', "
    "'4th quarter', 'quarter 4'; 'week 14', 'W14', 'CW14'; 'Part II', 'part 2'); replay the reference with each one "
    "its messages write that the user or a record it read gave in another form, written as they did; where a check "
    "the reference passes then fails, it pins the writer's form"
)

_LABEL = re.compile(r"\b(?:Q([1-4])|week (\d{1,2}))\b", re.IGNORECASE)
_ORDINALS = ["first", "second", "third", "fourth"]
_SUFFIX = {1: "st", 2: "nd", 3: "rd", 4: "th"}

# Where the writer relays the label: (turn of the reference, tool, its text argument, the app and its `folder`).
Site = tuple[int, str, str, str]


def quarter_words(n: int) -> str:
    return f"{_ORDINALS[n - 1]}-quarter"


def quarter_ordinal(n: int) -> str:
    return f"{n}{_SUFFIX[n]} quarter"


def quarter_after(n: int) -> str:
    return f"quarter {n}"


def quarter_first(n: int) -> str:
    return f"{n}Q"


def week_short(n: int) -> str:
    return f"W{n}"


def week_calendar(n: int) -> str:
    return f"CW{n}"


def week_abbreviated(n: int) -> str:
    return f"wk {n}"


def _step(spec: Spec, turn: int, tool: str, arg: str) -> dict[str, Any]:
    for step in spec["reference"][turn]["steps"]:
        call = step.get("call") or {}
        if call.get("name") == tool and _LABEL.search(str(call["arguments"].get(arg, ""))):
            return step  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: turn {turn} has no {tool} whose {arg} names a quarter or a week")


def _edit(site: Site, writer: Callable[[int], str], defect: bool) -> Callable[[Spec], None]:
    """The reference relays the label with its number written by `writer`; a check pins that form (the defect) or
    accepts the user's too (the twin)."""
    turn, tool, arg, app = site

    def edit(spec: Spec) -> None:
        step = _step(spec, turn, tool, arg)
        text = step["call"]["arguments"][arg]
        m = _LABEL.search(text)
        assert m is not None
        mine = writer(int(m.group(1) or m.group(2)))
        step["call"]["arguments"][arg] = text[:m.start()] + mine + text[m.end():]
        relayed_check(spec, (app, arg), mine, m.group(0), defect,
                      ("label-relayed", "the report is named as the user named it"))
    return edit


def _pair(name: str, base: str, site: Site, writer: Callable[[int], str]) -> Defect:
    away = (f"fails the agent that names the report as the user did (its label's number as given), not as "
            f"{writer(4)!r}")
    # The witness: the base's own reference, the label as the user (or the record) wrote it.
    return Defect(CLASS, name, base, away, breaks=_edit(site, writer, True), fix=_edit(site, writer, False),
                  witness=lambda _twin: reference(base_spec(base)), witness_kind="honest", gate="mutations", code="format_pinned")


MAIL_SENT = (1, "mail_send", "body", "mail")
SUBJECT_SENT = (1, "mail_send", "subject", "mail")
REPORT_MAIL = (0, "mail_send", "body", "mail")
REPORT_POST = (1, "chat_post_message", "text", "chat")
RESCHEDULE_MAIL = (0, "mail_send", "body", "mail")

DEFECTS = [
    _pair("sent-mail-quarter-words-2", "synth:clarify_ambiguous_request@2", MAIL_SENT, quarter_words),
    _pair("sent-mail-quarter-ordinal-6", "synth:clarify_ambiguous_request@6", MAIL_SENT, quarter_ordinal),
    _pair("sent-mail-quarter-after-9", "synth:clarify_ambiguous_request@9", MAIL_SENT, quarter_after),
    _pair("sent-mail-quarter-first-11", "synth:clarify_ambiguous_request@11", MAIL_SENT, quarter_first),
    _pair("sent-subject-quarter-words-14", "synth:clarify_ambiguous_request@14", SUBJECT_SENT, quarter_words),
    _pair("sent-subject-quarter-ordinal-21", "synth:clarify_ambiguous_request@21", SUBJECT_SENT, quarter_ordinal),
    _pair("report-mail-week-short", "example:report_from_files", REPORT_MAIL, week_short),
    _pair("report-post-week-calendar", "example:report_from_files", REPORT_POST, week_calendar),
    _pair("report-post-week-abbreviated", "example:report_from_files", REPORT_POST, week_abbreviated),
    _pair("moved-mail-quarter-words", "example:meeting_reschedule", RESCHEDULE_MAIL, quarter_words),
]
