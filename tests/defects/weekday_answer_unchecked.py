"""Weekday answers unchecked: the date a colleague asked for falls in the coming days, the answer states it as a
weekday or a day relative to today ("Thursday", "tomorrow", "next Monday", "in 3 days") while the world holds it as
an ISO date, and the check on the message reads only the question's words (the customer asked about), not the day."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import orjson

from tests.defects._core import CorpusError, Defect, Edit, Spec
from tests.defects.unthreaded_answer_unchecked import _message, _question_words, _restated, wrong_as

CLASS = "weekday_answer_unchecked"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "read a weekday or a day relative to the world's clock (Thursday, tomorrow, next Monday, in 3 days) as a date an "
    "answer states, held where the world holds that ISO date: leave it out with the answer's other facts; if every "
    "check still passes the message, the answer is unchecked"
)


def _soon(days: int) -> Edit:
    """The date the question asks for moved to `days` after the world's start, everywhere the spec states it (the
    document, the reference's message and answer, the check)."""
    def edit(spec: Spec) -> None:
        cond = _message(spec)[3]
        right = str(cond["value"])
        try:
            date.fromisoformat(right)
        except ValueError:
            raise CorpusError(f"{spec['capability']}: the answer {right!r} is no ISO date") from None
        new = (date.fromisoformat(spec["world"]["start"][:10]) + timedelta(days=days)).isoformat()
        text = orjson.dumps(spec).decode().replace(right, new)
        spec.clear()
        spec.update(orjson.loads(text))
    return edit


def _steps(*edits: Edit) -> Edit:
    def edit(spec: Spec) -> None:
        for e in edits:
            e(spec)
    return edit


def _case(name: str, base: str, days: int, said: str, wrong: str, unthread: bool = False) -> Defect:
    """`unthread`: the reference's reply sent as a new mail (no `in_reply_to`)."""
    fix = _steps(_soon(days), _restated(said, threaded=not unthread))
    what: dict[str, Any] = {"gate": "mutations", "code": "content_unchecked"}
    return Defect(CLASS, name, base,
                  f"tells the colleague the wrong day ({wrong!r} for {said!r}): the message check reads only what "
                  "was asked about", breaks=_steps(fix, _question_words), fix=fix, witness=wrong_as(wrong), **what)


DEFECTS = [
    _case("reply-weekday-1", "synth:inbox_triage_reply@1", 3, "Thursday", "Friday"),
    _case("reply-tomorrow-2", "synth:inbox_triage_reply@2", 1, "tomorrow", "today"),
    _case("draft-next-monday-1", "synth:draft_only_reply@1", 7, "next Monday", "next Tuesday"),
    _case("dm-weekday-10", "synth:lookup_answer_source@10", 3, "Friday", "Saturday"),
    _case("dm-in-days-10", "synth:lookup_answer_source@10", 3, "in 3 days", "in 4 days"),
    _case("new-mail-weekday-1", "synth:inbox_triage_reply@1", 3, "Thursday", "Friday", unthread=True),
]
