"""Count of one in digits pinned: the writer's reply gives a count of one in digits ("1 of 5 pages are broken",
"Handed 1 incident ticket(s)", "Fixed 1 row(s)") and the check wants the digit (`all_of: ["1"]` in whole words, the
phrase "1 incident", "fixed 1"), so the agent that spells the count out ("One of 5 pages are broken", "Handed one
incident ticket", "Fixed one row") fails. A count of one is the same fact in digits or in words; nobody asked for
digits. The sound twin wants the digit or the word (a term of alternatives).

count_digits_pinned's replay wrote counts from two to ninety-nine in words, never a count of one (the number check did
not read `one`, so a check wanting the count 1 would have failed the replay of every sound spec stating it), so main
accepted every case here. The same blind spot was in the verifier: web_page_audit's own `number: 1` check failed the
honest "One of 5 pages are broken" (the shipped spec; a unit test now).

Caught by the count replay (`digits_pinned`, `_numerals.digit_counts`), which now writes a count of one in digits as
`one`, read back by the number check where it counts (`coworkenv.checks.text.counts_one`: before a noun, `one of` a
number; not a pronoun, a name, a phrase or a duration).
"""

from __future__ import annotations

from functools import partial

from tests.defects.count_digits_pinned import count_defect

CLASS = "count_one_digits_pinned"
DETECTION = (
    "replay the reference with each count of one it writes in digits (standing alone before a word that is no unit, "
    "month or verb, not after a label or a name) in a reply or a free-text write written `one`; a replay that fails a "
    "check the reference passes wants the writer's digit"
)

_ONE = {1: "one"}
_defect = partial(count_defect, CLASS, words=_ONE)

_PAGES = ("says `1 of 5 pages are broken`: the check wants `1` in whole words where the shipped spec reads the number, "
          "so the honest `One of 5 pages are broken` fails")
_HANDED = "says `Handed 1 incident ticket(s)`: the check wants `1 incident`, so `Handed one incident ticket` fails"
_FIXED = "says `Fixed 1 row(s)`: the check wants `fixed 1`, so `Fixed one row` fails"

DEFECTS = [
    *(_defect(f"broken-page-in-digits-{n}", f"synth:web_page_audit@{n}", r"^(\d+) of", _PAGES, "reply-count")
      for n in (1, 2, 15, 16)),
    *(_defect(f"ticket-handed-in-digits-{n}", f"synth:oncall_handoff@{n}", r"^Handed (\d+) incident", _HANDED,
              phrase="{n} incident") for n in (2, 6, 11)),
    *(_defect(f"row-fixed-in-digits-{n}", f"synth:correct_bad_data@{n}", r"^Fixed (\d+) row", _FIXED,
              phrase="fixed {n}") for n in (1, 44, 52)),
]
