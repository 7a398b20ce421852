"""A time zone check loosened to "not that zone": the event must be shown in the user's zone (`timezone` equals
`Asia/Dubai`), and the condition becomes `not_equals UTC` (the author's "not left in UTC"), so an event shown in any
other zone passes (the third hunt's `ne_old_value` on schedule_meeting_timezones 1: the event made in UTC passed
`not_equals Africa/Lagos`). The mutations gate never changed a zone argument: it is no record's id, no time and no
person, so no near miss tried another zone."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls

CLASS = "zone_unprobed"
DETECTION = (
    "a time zone argument (Region/City) of a write is also made in UTC and in a zone far away: a check that passes "
    "either does not read the zone the task asks for"
)
_ELSEWHERE = "Pacific/Honolulu"  # neither the user's zone nor a zone the gate's near misses try


def _zone_cond(spec: Spec) -> dict[str, Any]:
    for c in spec["checks"]:
        for w in c["rule"].get("where") or [] if c["rule"]["kind"] == "records" else []:
            if w["field"] == "timezone":
                return w  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: no check reads the event's time zone")


def _not_utc(spec: Spec) -> None:
    w = _zone_cond(spec)
    w["op"], w["value"] = "not_equals", "UTC"


def _elsewhere(spec: Spec) -> list[dict[str, Any]]:
    """The reference, the event made in a zone the user does not live in."""
    made = [call for _, _, call in calls(spec, "calendar_create_event") if "timezone" in call["arguments"]]
    if not made:
        raise CorpusError(f"{spec['capability']}: no call sets a time zone")
    made[0]["arguments"]["timezone"] = _ELSEWHERE
    return spec["reference"]  # type: ignore[no-any-return]


DEFECTS = [
    Defect(CLASS, f"event-zone-not-utc-{seed}", f"synth:schedule_meeting_timezones@{seed}",
           "shows the meeting in a zone the user does not live in: the check only says the zone is not UTC",
           breaks=_not_utc, witness=_elsewhere, gate="mutations", code="mutant_survived")
    for seed in (1, 2, 3, 4, 5)
]
