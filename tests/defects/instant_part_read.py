"""Instant part read: the user asks when something happened ("Tell me when each one last ran"), the answer states
the instant whole (`last run 2026-11-15T01:39:12Z`), and the `reply_states` check reads it with `format: time` (only
the time of day) or `format: date` (only the day). The answer with the other part wrong, the day before at the same
time or the right day an hour off, passes. The sound twin (the shipped spec) reads the value raw, date and time.
(The same check with `format: date`, main already rejects here, as `sibling_unchecked`: the answer's list of jobs
with one time wrong; the gate's near miss covers it too.)

Narrow: only scheduler_pause_failing_jobs has a reply check on a date-time value (the jobs' `last_run`; seeds 1-3 of
every generator and the examples: meeting_reschedule's reply check reads its new start with `format: time`, but its
answer gives the slot as a day name and a time, never the instant whole, so it makes no near miss).

Found by an outside tester's mutation sweep (defects65): main's gates accepted every one, since the reply near misses
restate the values the checks read, and a time-only check reads the time.

Caught by the reply near misses (`content_unchecked`, `_reply_mutations.unread_instant_parts`): where the answer
states a checked instant whole and a `reply_states` check reads one part of it, the answer with the other part wrong
must fail a check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, with_say

CLASS = "instant_part_read"
DETECTION = ("restate each instant the answer gives whole that a reply check reads with `format: time` or `date`, "
             "the unread part wrong; if every check still passes, the check reads only part of the answer asked for")


def _last_run_checks(spec: Spec) -> list[dict[str, Any]]:
    found = [c for c in spec["checks"] if c["rule"]["kind"] == "reply_states"
             and c["rule"]["source"]["field"] == "last_run"]
    if not found:
        raise CorpusError(f"{spec['capability']}: no reply check reads a job's last run")
    return found


def read_as(fmt: str, which: int = 0) -> Callable[[Spec], None]:
    """The reply check on the `which`th job's last run reads it with `format: fmt` (time or date)."""
    def breaks(spec: Spec) -> None:
        _last_run_checks(spec)[which]["rule"]["format"] = fmt
    return breaks


def stated_wrong(fmt: str, which: int = 0) -> Callable[[Spec], list[dict[str, Any]]]:
    """The answer with that job's last run the day before (`time`) or an hour later (`date`)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        c = _last_run_checks(spec)[which]
        job = check(spec, c["id"])["rule"]["source"]["id"]
        value = next(j["last_run"] for j in spec["world"]["apps"]["scheduler"]["jobs"] if j["id"] == job)
        turn = len(spec["reference"]) - 1
        say = next(s["say"] for s in reversed(spec["reference"][turn]["steps"]) if s.get("say"))
        if value[:16] not in say:
            raise CorpusError(f"{spec['capability']}: the answer does not state {value} whole")
        if fmt == "time":
            day = int(value[8:10])
            wrong = value[:8] + f"{day - 1:02d}" + value[10:16] if day > 1 else value[:8] + "28" + value[10:16]
        else:
            wrong = value[:11] + f"{(int(value[11:13]) + 1) % 24:02d}" + value[13:16]
        return with_say(spec, say.replace(value[:16], wrong, 1), turn=turn)
    return witness


_AWAY = "tells the user a job last ran the day before it did: the reply check reads only the time of day"


DEFECTS = [
    Defect(CLASS, f"last-run-time-only-{seed}-job-{which + 1}", f"synth:scheduler_pause_failing_jobs@{seed}", _AWAY,
           breaks=read_as("time", which), witness=stated_wrong("time", which), gate="mutations",
           code="content_unchecked")
    for seed in (1, 2, 3) for which in (0, 1)
]
