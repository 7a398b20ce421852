"""Calendar arithmetic for scheduling tasks: working hours across time zones, busy time, earliest free slot."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, time

from coworkenv.synth.world_builder import Org, Person
from coworkenv.world import parse_time, zone

WORK_START, WORK_END = time(9, 0), time(17, 0)
GRID_S = 1800  # slots start on the half hour


def local_date(t: int, tz: str) -> date:
    """The calendar date of UTC seconds `t` in time zone `tz`."""
    return datetime.fromtimestamp(t, zone(tz)).date()


def working_hours(day: date, tz: str) -> tuple[int, int]:
    """09:00-17:00 on `day` in time zone `tz`, as UTC seconds."""
    z = zone(tz)
    return (int(datetime.combine(day, WORK_START, z).timestamp()), int(datetime.combine(day, WORK_END, z).timestamp()))


def shared_window(day: date, people: Iterable[Person]) -> tuple[int, int]:
    """The part of `day` inside everyone's working hours (empty when lo >= hi)."""
    spans = [working_hours(day, p.timezone) for p in people]
    return max(s[0] for s in spans), min(s[1] for s in spans)


def busy(org: Org, emails: Iterable[str], ignore: Iterable[str] = ()) -> list[tuple[int, int]]:
    """Busy intervals of any of `emails` (confirmed events they organize or attend), minus ignored event ids."""
    wanted, skip = set(emails), set(ignore)
    return [
        (parse_time(e["start"]), parse_time(e["end"]))
        for e in org.events
        if e["status"] == "confirmed"
        and e["id"] not in skip
        and (e["organizer"] in wanted or wanted.intersection(e["attendees"]))
    ]


def earliest_slot(
    org: Org,
    people: list[Person],
    window: tuple[int, int],
    length: int,
    ignore: Iterable[str] = (),
    not_before: int | None = None,
) -> int | None:
    """Start of the earliest half-hour-aligned slot of `length` in `window` when all `people` are free."""
    lo, hi = window
    if not_before is not None:
        lo = max(lo, not_before)
    start = -(-lo // GRID_S) * GRID_S
    taken = busy(org, [p.email for p in people], ignore)
    while start + length <= hi:
        if all(b_end <= start or b_start >= start + length for b_start, b_end in taken):
            return start
        start += GRID_S
    return None


def pick_attendees(org: Org, user: Person, k: int, min_overlap_s: int, day: date) -> list[Person]:
    """`k` colleagues whose working hours overlap the user's on `day` by at least `min_overlap_s`."""
    pool = [p for p in org.people.values() if p.id != user.id and p.role != "Automation"]
    chosen: list[Person] = []
    for person in org.rng.sample(pool, len(pool)):
        lo, hi = shared_window(day, [user, *chosen, person])
        if hi - lo >= min_overlap_s:
            chosen.append(person)
            if len(chosen) == k:
                break
    return chosen
