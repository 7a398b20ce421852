"""Numeral pinned: the writer's reply gives a count in words ("Three of 9 pages are broken", "Added four tasks",
"Triaged three tickets", "Handed two incident tickets") and the check wants that word, so the agent that writes the
digit, as every tool result and most people do, fails. Nobody asked for the count spelled out; a number is the same
fact in digits or in words. The sound twin (the shipped spec) reads the count as a number (`number`) or not at all.

Caught by the numeral replay (`numeral_pinned`, `_numerals`): each reply or free-text write of the reference that
gives a number from two to ninety-nine in words is replayed with the digits; a replay that fails a check the
reference passes pins the spelling.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import Any

from tests.defects._core import CorpusError, Spec, replay_defect

CLASS = "numeral_pinned"
DETECTION = (
    "replay the reference with each number it writes in words in a reply or a free-text write (two to ninety-nine) "
    "written in digits; a replay that fails a check the reference passes wants the writer's spelling of the number"
)

_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


def _last_say(spec: Spec) -> dict[str, Any]:
    steps = [s for s in spec["reference"][-1]["steps"] if s.get("say")]
    if not steps:
        raise CorpusError(f"{spec['capability']}: the reference's last turn says nothing")
    return steps[-1]  # type: ignore[no-any-return]


def _spelled(pattern: str, capitalise: bool = False, words: dict[int, str] = _WORDS) -> Callable[[Spec], str]:
    """An edit of the reference's last reply: the count `pattern` captures (group 1) written in words (`words`);
    returns the word."""
    def edit(spec: Spec) -> str:
        step = _last_say(spec)
        m = re.search(pattern, step["say"])
        if m is None or int(m.group(1)) not in words:
            raise CorpusError(f"{spec['capability']}: no count in {sorted(words)} in {step['say']!r}")
        word = words[int(m.group(1))]
        shown = word.capitalize() if capitalise else word
        step["say"] = step["say"][:m.start(1)] + shown + step["say"][m.end(1):]
        return word
    return edit


def _pinned_in(check_id: str | None, pattern: str, capitalise: bool = False,
               words: dict[int, str] = _WORDS) -> Callable[[Spec], None]:
    """The reply's count in words (`words`), wanted by the reply's text check `check_id` (its `number` dropped), or by
    a new text check on the last reply where `check_id` is None."""
    spell = _spelled(pattern, capitalise, words)

    def breaks(spec: Spec) -> None:
        wanted_in_reply(spec, check_id, spell(spec), drop_number=True)
    return breaks


def wanted_in_reply(spec: Spec, check_id: str | None, word: str, drop_number: bool = False) -> None:
    """A text check wanting `word` in the last reply: the reply's check `check_id` (its terms extended, its `number`
    dropped where `drop_number`), or a new one where None."""
    if check_id is None:
        spec["checks"].append({
            "id": "reply-count", "description": f"the reply says how many ({word})", "role": "completion",
            "weight": 1.0, "rule": {"kind": "text", "scope": "final", "turn": len(spec["turns"]) - 1,
                                    "all_of": [word], "words": True}})
        return
    found = [c for c in spec["checks"] if c["id"] == check_id and c["rule"]["kind"] == "text"]
    if not found:
        raise CorpusError(f"{spec['capability']}: no text check {check_id!r}")
    rule = found[0]["rule"]
    if drop_number:
        rule["number"] = None
    rule["all_of"] = [*rule["all_of"], word]


_defect = partial(replay_defect, CLASS, "numeral_pinned")  # (name, base, breaks, away): the honest reference fails it


_PAGES = ("says `3 of 9 pages are broken`: the check wants `three`, the count as the writer spelled it, so the "
          "honest digits fail")
_TASKS = "says `Added 4 tasks`: the check wants `four` as well as the tasks' names"
_TRIAGED = "says `Triaged 3 tickets.`: the check wants `three`"
_HANDED = "says `Handed 2 incident ticket(s)`: the check wants `two`"

DEFECTS = [
    *(_defect(f"broken-pages-in-words-{n}", f"synth:web_page_audit@{n}",
              _pinned_in("reply-count", r"^(\d+) of", capitalise=True), _PAGES) for n in (3, 4, 5)),
    *(_defect(f"tasks-added-in-words-{n}", f"synth:todo_track_mail_requests@{n}",
              _pinned_in("reply-lists-tasks", r"^Added (\d+) tasks"), _TASKS) for n in (1, 2, 3)),
    *(_defect(f"tickets-triaged-in-words-{n}", f"synth:ticket_triage_update@{n}",
              _pinned_in(None, r"^Triaged (\d+) tickets"), _TRIAGED) for n in (1, 2)),
    *(_defect(f"tickets-handed-in-words-{n}", f"synth:oncall_handoff@{n}",
              _pinned_in(None, r"^Handed (\d+) incident"), _HANDED) for n in (4, 5)),
]
