"""Numeral one pinned: the writer's reply gives a count of one in words ("One of 5 pages are broken", "Handed one
incident ticket(s)", "Fixed a single row(s)") and the check wants the word, so the agent that writes `1`, as the tool
results do, fails. A count of one is as much a number as three is; nobody asked for it spelled out. The sound twin
(the shipped spec) reads the count as a number (`number`) or not at all.

numeral_pinned's replay left `one` alone (far more often a pronoun, "the one that failed", than a count), so main
accepted every case here.

Caught by the numeral replay (`numeral_pinned`, `_numerals`): `one` or `a single` before a noun, or `one of` a
number, is replayed as `1`; `one` after a determiner, before `of` and no number, before a verb, a preposition or a
conjunction, or a capitalised `One` before a name is left alone (a pronoun, a phrase, a name).
"""

from __future__ import annotations

from functools import partial

from tests.defects._core import replay_defect
from tests.defects.numeral_pinned import _pinned_in

CLASS = "numeral_one_pinned"
DETECTION = (
    "replay the reference with each count of one it writes in words in a reply or a free-text write (`one` or "
    "`a single` before a noun, `one of` a number) written as `1`; a replay that fails a check the reference passes "
    "wants the writer's spelling"
)

_ONE = {1: "one"}
_SINGLE = {1: "a single"}
_defect = partial(replay_defect, CLASS, "numeral_pinned")  # (name, base, breaks, away): the honest reference fails it

_PAGES = "says `1 of 5 pages are broken`: the check wants `one`, the count as the writer spelled it"
_HANDED = "says `Handed 1 incident ticket(s)`: the check wants `one` (or `a single`)"
_FIXED = "says `Fixed 1 row(s)`: the check wants `one` (or `a single`)"

DEFECTS = [
    *(_defect(f"broken-page-in-words-{n}", f"synth:web_page_audit@{n}",
              _pinned_in("reply-count", r"^(\d+) of", capitalise=True, words=_ONE), _PAGES) for n in (1, 2, 15, 16)),
    *(_defect(f"ticket-handed-in-words-{n}", f"synth:oncall_handoff@{n}",
              _pinned_in(None, r"^Handed (\d+) incident", words=_ONE), _HANDED) for n in (2, 45, 59)),
    _defect("ticket-handed-single-11", "synth:oncall_handoff@11",
            _pinned_in(None, r"^Handed (\d+) incident", words=_SINGLE), _HANDED),
    *(_defect(f"row-fixed-in-words-{n}", f"synth:correct_bad_data@{n}",
              _pinned_in(None, r"^Fixed (\d+) row", words=_ONE), _FIXED) for n in (1, 44)),
    _defect("row-fixed-single-52", "synth:correct_bad_data@52",
            _pinned_in(None, r"^Fixed (\d+) row", words=_SINGLE), _FIXED),
]
