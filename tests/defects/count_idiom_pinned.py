"""Count idiom pinned: the writer's reply gives a count as people say it rather than as a number ("Handed an incident
ticket", "Fixed a row", "Fixed a couple of rows", "Handed a pair of incident tickets", "2 of half a dozen pages are
broken") and the check wants the idiom, so the agent that writes the digit (`Handed 1 incident ticket`, `Fixed 2
rows`, `2 of 6 pages`), as the tool results do, fails. A count is the same fact however it is said; nobody asked for
it in words. The sound twin (the shipped spec) reads the count as a number (`number`) or not at all.

numeral_pinned's replay read numbers in words (`two`, `one` before a noun, `a single`) but no idiom and no `a`/`an`,
so main accepted every case here.

Caught by the numeral replay (`numeral_pinned`, `_numerals`): `a couple of` and `a pair of` (2), `half a dozen` (6)
and `a dozen` (12) before a noun are replayed as digits, and so is `a`/`an` before a noun (1), except in phrases
that count nothing (`a few`, `a lot`, `a bit`, `a number of`, `a quarter`, a time unit: `an hour` is a duration).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from tests.defects._core import CorpusError, Spec, replay_defect
from tests.defects.numeral_pinned import _last_say, wanted_in_reply

CLASS = "count_idiom_pinned"
DETECTION = (
    "replay the reference with each count it gives as an idiom in a reply or a free-text write (`a`/`an` before a "
    "noun, `a couple of`, `a pair of`, `half a dozen`, `a dozen`) written in digits; a replay that fails a check the "
    "reference passes wants the writer's idiom"
)


def _pinned(pattern: str, idiom: str, wanted: str, check_id: str | None = None) -> Callable[[Spec], None]:
    """The reply's count (the text `pattern` matches) said as `idiom`, and a text check wanting `wanted`: the reply's
    check `check_id` (its terms extended), or a new one on the last reply where None."""
    def breaks(spec: Spec) -> None:
        step = _last_say(spec)
        said, n = re.subn(pattern, idiom, step["say"], count=1)
        if not n:
            raise CorpusError(f"{spec['capability']}: no {pattern!r} in {step['say']!r}")
        step["say"] = said
        wanted_in_reply(spec, check_id, wanted)
    return breaks


_defect = partial(replay_defect, CLASS, "numeral_pinned")  # (name, base, breaks, away): the honest reference fails it

_HANDED = "says `Handed 1 incident ticket` (or 2): the check wants `an incident` (`pair`), the writer's idiom"
_FIXED = "says `Fixed 1 row` (or 2): the check wants `a row` (`couple`)"
_TRIAGED = "says `Triaged 2 tickets.`: the check wants `couple`"
_TASKS = "says `Added 2 tasks`: the check wants `pair` (`couple`) as well as the tasks' names"
_PAGES = "says `2 of 6 pages are broken`: the check wants `dozen` (`half a dozen`)"

DEFECTS = [
    *(_defect(f"an-incident-ticket-{n}", f"synth:oncall_handoff@{n}",
              _pinned(r"Handed 1 incident ticket\(s\)", "Handed an incident ticket", "an incident"), _HANDED)
      for n in (2, 6, 16)),
    *(_defect(f"a-row-{n}", f"synth:correct_bad_data@{n}", _pinned(r"Fixed 1 row\(s\)", "Fixed a row", "a row"),
              _FIXED) for n in (1, 54)),
    _defect("couple-of-rows-2", "synth:correct_bad_data@2",
            _pinned(r"Fixed 2 row\(s\)", "Fixed a couple of rows", "couple"), _FIXED),
    _defect("pair-of-incident-tickets-4", "synth:oncall_handoff@4",
            _pinned(r"Handed 2 incident ticket\(s\)", "Handed a pair of incident tickets", "pair"), _HANDED),
    _defect("couple-of-tickets-5", "synth:ticket_triage_update@5",
            _pinned(r"Triaged 2 tickets", "Triaged a couple of tickets", "couple"), _TRIAGED),
    _defect("pair-of-tasks-15", "synth:todo_track_mail_requests@15",
            _pinned(r"Added 2 tasks", "Added a pair of tasks", "pair", "reply-lists-tasks"), _TASKS),
    _defect("couple-of-tasks-18", "synth:todo_track_mail_requests@18",
            _pinned(r"Added 2 tasks", "Added a couple of tasks", "couple", "reply-lists-tasks"), _TASKS),
    *(_defect(f"half-a-dozen-pages-{n}", f"synth:web_page_audit@{n}",
              _pinned(r"^2 of 6 pages", "2 of half a dozen pages", "dozen", "reply-count"), _PAGES)
      for n in (4, 7)),
]
