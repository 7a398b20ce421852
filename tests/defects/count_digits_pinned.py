"""Count digits pinned: the writer's reply gives a count in digits ("Triaged 3 tickets.", "3 of 9 pages are broken",
"Added 4 tasks", "(4 rows)") and the check wants the digit (`all_of: ["3"]`, the phrase "4 rows", a regex on
"triaged 3"), so the agent that spells the count out, as many style guides ask for numbers under a hundred ("Triaged
three tickets.", "Three of nine pages are broken"), fails. A count is the same fact in digits or in words; nobody
asked for digits. The sound twin wants the digit or the word (a term of alternatives).

numeral_pinned's replay writes counts in words as digits, never the other way round (digits in a reply are also ids,
versions, times, dates and amounts), so main accepted every case here.

Caught by the count replay (`digits_pinned`, `_numerals.digit_counts`): each reply or free-text write of the reference
that writes a count from two to ninety-nine in digits (standing alone, before a word that is not a unit nor a month,
not after a label or a name) is replayed with the count in words; a replay that fails a check the reference passes
pins the digits.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

import orjson

from tests.defects._core import CorpusError, Defect, Spec, replay_defect
from tests.defects.numeral_pinned import _last_say

CLASS = "count_digits_pinned"
DETECTION = (
    "replay the reference with each count it writes in digits (two to ninety-nine, standing alone before a word that "
    "is no unit, month or verb, not after a label or a name) in a reply or a free-text write written in words; a "
    "replay that fails a check the reference passes wants the writer's digits"
)

_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten",
          11: "eleven", 12: "twelve"}


def _count(spec: Spec, pattern: str, words: dict[int, str]) -> tuple[dict[str, Any], re.Match[str]]:
    step = _last_say(spec)
    m = re.search(pattern, step["say"])
    if m is None or int(m.group(1)) not in words:
        raise CorpusError(f"{spec['capability']}: no count in {sorted(words)} at {pattern!r} in {step['say']!r}")
    return step, m


def _wanted(spec: Spec, check_id: str | None, term: str | list[str], regex: str | None = None) -> None:
    """A text check on the last reply wanting `term` (whole words) or matching `regex`: the reply's check `check_id`
    (its `number` dropped, its terms extended), or a new one where None."""
    if check_id is None:
        rule: dict[str, Any] = {"kind": "text", "scope": "final", "turn": len(spec["turns"]) - 1, "all_of": [],
                                "words": True}
        spec["checks"].append({"id": "reply-count", "description": "the reply says how many", "role": "completion",
                               "weight": 1.0, "rule": rule})
    else:
        found = [c for c in spec["checks"] if c["id"] == check_id and c["rule"]["kind"] == "text"]
        if not found:
            raise CorpusError(f"{spec['capability']}: no text check {check_id!r}")
        rule = found[0]["rule"]
        rule["number"] = None
        rule["words"] = True
    if regex is not None:
        rule["regex"] = regex
    else:
        rule["all_of"] = [*rule["all_of"], term]


def _edit(pattern: str, check_id: str | None, phrase: str, regex: str | None, sound: bool,
          words: dict[int, str] = _WORDS) -> Callable[[Spec], None]:
    """The check wanting the reply's count (group 1 of `pattern`) as `phrase` ({n}: the count) or `regex`; where
    `sound`, the digits or the word (`words`: the counts this class spells, by value)."""
    def edit(spec: Spec) -> None:
        _, m = _count(spec, pattern, words)
        n = int(m.group(1))
        digits, word = phrase.format(n=n), phrase.format(n=words[n])
        if regex is None:
            _wanted(spec, check_id, [digits, word] if sound else digits)
        else:
            _wanted(spec, check_id, digits, regex.format(n=f"(?:{n}|{words[n]})" if sound else n))
    return edit


def _in_words(pattern: str, words: dict[int, str] = _WORDS) -> Callable[[Spec], list[dict[str, Any]]]:
    """The honest agent: the reference with the reply's count (group 1 of `pattern`) spelled out."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        step, m = _count(spec, pattern, words)
        word = words[int(m.group(1))]
        if m.start(1) == 0:
            word = word.capitalize()
        step["say"] = step["say"][:m.start(1)] + word + step["say"][m.end(1):]
        return spec["reference"]  # type: ignore[no-any-return]
    return witness


def count_defect(cls: str, name: str, base: str, pattern: str, away: str, check_id: str | None = None,
                 phrase: str = "{n}", regex: str | None = None, words: dict[int, str] = _WORDS) -> Defect:
    """The check on the reply's count (`pattern`) wanting the digits; the twin the digits or the word."""
    found = replay_defect(cls, "digits_pinned", name, base,
                          _edit(pattern, check_id, phrase, regex, sound=False, words=words), away,
                          witness=_in_words(pattern, words))
    return replace(found, fix=_edit(pattern, check_id, phrase, regex, sound=True, words=words))


_defect = partial(count_defect, CLASS)


# -- the shipped report example: its checks wanted the week's totals in digits (`\\b16\\b`, `\\b6 (first...`) in the
# Markdown summary, the mail, the headline and the reply until this class found them; they now accept the words too.
_REPORT = "example:report_from_files"
_DIGITS_ONLY = {"(?:16|sixteen)": "16", "(?:6|six)": "6"}


def _report_pinned(check_id: str) -> Callable[[Spec], None]:
    """The report example's check `check_id` wanting the totals in digits only, as it was written."""
    def breaks(spec: Spec) -> None:
        found = [c for c in spec["checks"] if c["id"] == check_id]
        text = orjson.dumps(found[0]).decode() if found else ""
        if not found or not any(k in text for k in _DIGITS_ONLY):
            raise CorpusError(f"{spec['capability']}: no check {check_id!r} accepting the totals in words")
        for words, digits in _DIGITS_ONLY.items():
            text = text.replace(words, digits)
        found[0].clear()
        found[0].update(orjson.loads(text))
    return breaks


def _totals_in_words(spec: Spec) -> list[dict[str, Any]]:
    """The honest agent: the reference with the week's totals spelled out wherever it writes them."""
    text = orjson.dumps(spec["reference"]).decode()
    if "16 tickets, 11 resolved, 6 first-response" not in text:
        raise CorpusError(f"{spec['capability']}: the reference writes no week's totals")
    return orjson.loads(  # type: ignore[no-any-return]
        text.replace("16 tickets, 11 resolved, 6 first-response", "sixteen tickets, eleven resolved, six first-response"))


def _report(name: str, check_id: str, away: str) -> Defect:
    return replay_defect(CLASS, "digits_pinned", name, _REPORT, _report_pinned(check_id), away,
                         witness=_totals_in_words)


_PAGES = ("says `3 of 9 pages are broken`: the check wants `3`, the digits the writer chose, so the honest `Three of "
          "nine pages` fails")
_TOTAL = "says `3 of 9 pages are broken`: the check wants `9 pages`, so `of nine pages` fails"
_TASKS = "says `Added 4 tasks`: the check wants `4` as well as the tasks' names, so `Added four tasks` fails"
_TRIAGED = "says `Triaged 3 tickets.`: the check wants `3 tickets`, so `Triaged three tickets.` fails"
_TRIAGED_RE = "says `Triaged 3 tickets.`: the check's regex wants `triaged 3 tickets`, so `Triaged three tickets.` fails"
_HANDED = "says `Handed 3 incident ticket(s)`: the check wants `3 incident`, so `Handed three incident tickets` fails"
_ARCHIVED = "says `Archived 2 external mails`: the check wants `2 external`, so `Archived two external mails` fails"
_ROWS = "says `(4 rows)`: the check wants `4 rows`, so `(four rows)` fails"
_FIXED = "says `Fixed 2 row(s)`: the check wants `Fixed 2`, so `Fixed two rows` fails"

DEFECTS = [
    *(_defect(f"broken-pages-in-digits-{n}", f"synth:web_page_audit@{n}", r"^(\d+) of", _PAGES, "reply-count")
      for n in (3, 4, 5)),
    _defect("pages-total-in-digits-3", "synth:web_page_audit@3", r"of (\d+) pages", _TOTAL, "reply-count",
            phrase="{n} pages"),
    *(_defect(f"tasks-added-in-digits-{n}", f"synth:todo_track_mail_requests@{n}", r"^Added (\d+) tasks", _TASKS,
              "reply-lists-tasks") for n in (1, 2, 3)),
    *(_defect(f"tickets-triaged-in-digits-{n}", f"synth:ticket_triage_update@{n}", r"^Triaged (\d+) tickets",
              _TRIAGED, phrase="{n} tickets") for n in (1, 2)),
    _defect("tickets-triaged-regex-3", "synth:ticket_triage_update@3", r"^Triaged (\d+) tickets", _TRIAGED_RE,
            regex=r"\btriaged {n} tickets\b"),
    *(_defect(f"tickets-handed-in-digits-{n}", f"synth:oncall_handoff@{n}", r"^Handed (\d+) incident", _HANDED,
              phrase="{n} incident") for n in (1, 3)),
    *(_defect(f"mails-archived-in-digits-{n}", f"synth:inbox_triage_reply@{n}", r"^Archived (\d+) external",
              _ARCHIVED, phrase="{n} external") for n in (1, 2)),
    *(_defect(f"report-rows-in-digits-{n}", f"synth:report_from_data@{n}", r"\((\d+) rows\)", _ROWS,
              phrase="{n} rows") for n in (1, 3)),
    _report("report-summary-totals", "md-summary", "writes `16 tickets, ... 6 first-response SLA breaches` in the "
            "Markdown summary: the check wants `\\b16\\b` and `\\b6\\b`, so `sixteen tickets` fails"),
    _report("report-headline-totals", "headline-posted", "posts `Week 14: 16 tickets, ...` in #support-leads: the "
            "check wants `\\b16\\b` and `\\b6\\b`, so `sixteen tickets, ... six breaches` fails"),
    _report("report-mail-totals", "report-mailed", "mails `16 tickets, 11 resolved, 6 first-response SLA breaches`: "
            "the check wants `16 tickets.*6 first`, so `sixteen tickets` fails"),
    _report("report-reply-breaches", "reply-counts-breaches", "replies `6 first-response SLA breaches`: the check "
            "wants `6 first-response`, so `six first-response SLA breaches` fails"),
    _defect("rows-fixed-in-digits-2", "synth:correct_bad_data@2", r"^Fixed (\d+) row", _FIXED, phrase="fixed {n}"),
]
