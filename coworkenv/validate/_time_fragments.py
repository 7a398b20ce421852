"""A part of a date-time (its day, its clock) read as text where the text depends on the offset it is spelled in.

`_time_spellings` names a date-time compared whole (equality, order) in another spelling than the one compared
with; a check can also read a part of it with `contains`, `not_contains` or `matches` (`start contains
"2026-09-25"`, `start matches "^2026-09-25T09:"`), and the part depends on the offset too:

- on a call's date-time argument (any matcher: a check's `call`/`first`/`then`, a colleague's reaction, a follow-up
  turn's condition), the text is what the agent wrote, in any offset the tool takes (it stores UTC): the day and
  the clock of one instant differ between `2026-09-25T01:00:00+02:00` and `2026-09-24T23:00:00Z`. Named where the
  condition's verdict on one instant the spec knows (or the instant its own text names) changes with the offset it is
  written in: a `forbidden` guard misses the forbidden call written in another offset, a completion fails the
  honest agent that writes the time at a colleague's offset.
- on a stored date-time (a field rule, a records rule's or frame selector's `where`), the text is the UTC time the
  tool stored. A condition that reads the UTC day (holds at every hour of one UTC day and not around it) while the
  user lives at another offset reads another day than the user's: `due contains "2026-09-25"` passes a task due at
  00:30 the next day at the user's clock east of UTC and fails one due at 23:30 that day west of it. A condition that
  holds for the user's wall-clock spelling of a time the spec knows and for the stored (UTC) spelling of none (`0
  events where start contains "2026-07-21T10:00"`, the clash at 09:00 UTC read at the user's clock) reads the
  user's clock: the guard never fires, the completion fails the honest agent.

`time_fragments(spec, timed, conditions)` yields (path, message); reported by the references gate with
`_time_spellings`'s code (`time_compared_as_text`). Static, no run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from coworkenv.checks import compare, field_value
from coworkenv.spec import CallMatcher, EnvSpec, FieldCond
from coworkenv.spec_regex import PatternRefused, PatternTimeout

LOOSE = frozenset({"contains", "not_contains", "matches"})
_INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})", re.IGNORECASE)
_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_CLOCK = re.compile(r"(?:T|\b)([01]\d|2[0-3]):([0-5]\d)")
_STORED = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
# The offsets a tool takes: every whole hour from UTC-12 to UTC+14.
_OFFSETS = tuple(timezone(timedelta(hours=h)) for h in range(-12, 15))


def _spell(moment: datetime, zone: tzinfo) -> str:
    local = moment.astimezone(zone)
    text = local.strftime("%Y-%m-%dT%H:%M:%S")
    offset = local.utcoffset() or timedelta(0)
    if zone is UTC:
        return text + "Z"
    sign = "-" if offset < timedelta(0) else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"{text}{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _hit(op: str, text: str, value: Any) -> bool | None:
    """The condition's positive reading (`not_contains` read as `contains`); None where a pattern is refused."""
    try:
        return compare(text, "contains" if op == "not_contains" else op, value)  # type: ignore[arg-type]
    except (PatternRefused, PatternTimeout, ValueError):
        return None


def known_instants(spec: EnvSpec) -> list[datetime]:
    """Every zoned date-time the spec writes (world, reference, checks, dynamics, turns), as UTC instants."""
    out: set[datetime] = set()
    for text in _texts(spec.model_dump(mode="json")):
        for m in _INSTANT.finditer(text):
            try:
                out.add(datetime.fromisoformat(m.group(0).replace("Z", "+00:00").replace("z", "+00:00"))
                        .astimezone(UTC))
            except ValueError:
                continue
    return sorted(out)


def _texts(value: Any) -> Iterator[str]:
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and len(item) < 4000:
            yield item


def _named(value: Any, days: Iterable[datetime]) -> list[datetime]:
    """Instants the condition's own text names: its day and clock read at every offset (its clock on the days the
    spec knows where it names no day, its day at noon where it names no clock)."""
    out: list[datetime] = []
    for text in value if isinstance(value, list) else [value]:
        if not isinstance(text, str):
            continue
        day = _DAY.search(text)
        clock = _CLOCK.search(text[day.end():] if day else text)
        if day is None and clock is None:
            continue
        try:
            bases = [datetime(int(day.group(1)), int(day.group(2)), int(day.group(3)))] if day else \
                sorted({d.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None) for d in days})[:8]
        except ValueError:
            continue
        hour, minute = (int(clock.group(1)), int(clock.group(2))) if clock else (12, 0)
        out += [b.replace(hour=hour, minute=minute, tzinfo=o) for b in bases for o in _OFFSETS]
    return out


def argument_fragments(where: str, matcher: CallMatcher, timed: set[str], instants: list[datetime]) -> Iterator[
        tuple[str, str]]:
    """A `contains`/`matches` condition on a date-time argument whose verdict changes with the offset the same
    instant is written in."""
    for k, c in enumerate(matcher.where):
        if c.op not in LOOSE or c.field not in timed:
            continue
        named = _named(c.value, instants)
        for moment in sorted([*instants, *named], key=lambda m: not _hit(c.op, _spell(m, UTC), c.value)):
            seen = {h for zone in (UTC, *_OFFSETS) if (h := _hit(c.op, _spell(moment, zone), c.value)) is not None}
            if len(seen) > 1:
                spelled = [(s, _hit(c.op, s, c.value)) for s in (_spell(moment, z) for z in (UTC, *_OFFSETS))]
                yes = next(s for s, h in spelled if h)
                no = next(s for s, h in spelled if h is False)
                yield f"{where}.where[{k}]", (
                    f"{matcher.tool} {c.field} {c.op} {c.value!r} reads a part of a date-time argument as text, and "
                    f"the argument is what the agent wrote: {yes!r} and {no!r} are one instant and the condition "
                    "holds for one of them only, so a guard misses the call written in another offset and a "
                    "completion fails the honest agent that writes it so; check the time the tool stored instead "
                    "(a records or field check bounding it, gte/lt, written YYYY-MM-DDTHH:MM:SSZ)")
                break


def people_zones(spec: EnvSpec) -> list[tzinfo]:
    """The zones of the directory's people, the user's first (an unknown zone name is left out)."""
    people = getattr(getattr(spec.world.apps, "directory", None), "people", None) or []
    names = sorted({str(field_value(p, "timezone")) for p in people if field_value(p, "timezone")},
                   key=lambda n: (not any(field_value(p, "id") == spec.user and field_value(p, "timezone") == n
                                          for p in people), n))
    out: list[tzinfo] = []
    for name in names:
        try:
            out.append(ZoneInfo(name))
        except (ZoneInfoNotFoundError, ValueError):
            continue
    return out


def user_zones(spec: EnvSpec) -> tuple[list[tzinfo], bool]:
    """The people's zones, the user's first, and whether the user's is known."""
    people = getattr(getattr(spec.world.apps, "directory", None), "people", None) or []
    user = any(field_value(p, "id") == spec.user and field_value(p, "timezone") for p in people)
    return people_zones(spec), user


def stored_fragment(field: str, cond: FieldCond | Any, seeds: list[str], zones: list[tzinfo], user: bool,
                    instants: list[datetime], timed_name: bool) -> str | None:
    """Why a `contains`/`matches` condition on a stored date-time field reads another day or clock than the
    user's; None where it does not. The field is a stored UTC date-time where its seeds are (or, with no seed, where
    the reference passes a zoned time to an argument of that name); `zones` are the people's, the user's first
    where `user`."""
    op, value = cond.op, cond.value
    if op not in LOOSE or not zones or not (all(_STORED.match(s) for s in seeds) if seeds else timed_name):
        return None
    zone = zones[0]
    days = sorted({m.replace(hour=0, minute=0, second=0, microsecond=0) for m in
                   [*instants, *(d.astimezone(UTC) for d in _named(value, []))]})
    for day in days if user else []:
        if (day.astimezone(zone).utcoffset() or timedelta(0)) == timedelta(0):
            continue
        inside = [_hit(op, _spell(day + timedelta(minutes=30 * i), UTC), value) for i in range(48)]
        around = [_hit(op, _spell(day + timedelta(minutes=30 * i), UTC), value) for i in (*range(-48, 0),
                                                                                         *range(48, 96))]
        if all(h is True for h in inside) and any(h is False for h in around):
            local = day.astimezone(zone)
            return (f"{field} {op} {value!r} reads the day of a stored date-time as text, and the tools store UTC: "
                    f"the text is the UTC day {day:%Y-%m-%d}, which starts at {local:%Y-%m-%d %H:%M} at the user's "
                    f"clock ({zone}) and ends 24 hours later, so a time in the user's day on either side of it is "
                    "read as another day; bound the user's day in UTC instead (gte/lt, YYYY-MM-DDTHH:MM:SSZ)")
    if any(_hit(op, _spell(m, UTC), value) for m in instants):
        return None  # a day and clock some time the spec knows has as stored: taken as meant in UTC
    for k, zone in enumerate(zones):
        m = next((m for m in instants if m.astimezone(zone).utcoffset() and _hit(op, _spell(m, zone), value)), None)
        if m is not None:
            whose = "the user's clock" if user and k == 0 else "a person's clock"
            return (f"{field} {op} {value!r} reads a stored date-time as text at {whose} ({zone}), and the tools "
                    f"store UTC: it holds for {_spell(m, zone)!r} and for no stored time the spec knows "
                    f"({_spell(m, UTC)!r} is that instant as stored), so a guard on it never fires and a completion "
                    "fails the honest agent; write the time as stored (UTC, YYYY-MM-DDTHH:MM:SSZ)")
    return None
