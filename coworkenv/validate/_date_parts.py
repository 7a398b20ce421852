"""A written date-time whose year or month no check reads: the near misses a year and a month later, and the date
with its day and month exchanged.

The time near misses (`mutations.shift_times`) move a date-time an hour, a quarter hour and a day; a check that
reads the date by a digit class over its year or month (`due matches ^\\d{4}-06-07T12:00`, `start matches
^2026-\\d\\d-03T09:30`) fails each of them and still passes the to-do due a year later or the meeting booked a month
later. A check that admits the date read the other way round (`due matches ^2026-(06-07|07-06)T12:00`, or a
class over each digit, `^2026-[01][13]-[01][13]` for 3 November, written for "either order") fails the day and the
month moved on and passes the to-do due on 6 July for 7 June: the date with its day and month exchanged (where the
day is at most 12 and not the month) is one more. So where a condition of a check (`matches` or `contains`, any rule
kind) holds for a date-time a write passes and for that date-time a year or a month later or so exchanged, the reference with the write moved so is one more near miss; it must
fail a check. Where no condition reads a date-time so loosely (every check of the sweep's specs pins it whole, or
bounds it), no near miss is made: the probe costs nothing there.
"""

from __future__ import annotations

from calendar import monthrange
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from coworkenv.checks import compare
from coworkenv.spec import EnvSpec, ReferenceStep, ToolCallSpec
from coworkenv.spec_regex import PatternRefused, PatternTimeout
from coworkenv.validate._mutation_core import Mutation, replaced

_LOOSE_OPS = frozenset({"matches", "contains"})


def _conditions(value: Any) -> Iterator[tuple[str, str]]:
    """(op, value) of every condition in a check's rule that compares text loosely."""
    if isinstance(value, dict):
        if value.get("op") in _LOOSE_OPS and isinstance(value.get("value"), str):
            yield value["op"], value["value"]
        for v in value.values():
            yield from _conditions(v)
    elif isinstance(value, list):
        for v in value:
            yield from _conditions(v)


def _forms(moment: datetime, written: str) -> set[str]:
    """The date-time as written (`Z` or its offset) and as a world stores it (UTC, `Z`)."""
    text = moment.isoformat()
    utc = moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
    return {text.replace("+00:00", "Z") if written.endswith("Z") else text, utc}


def _later(moment: datetime, years: int = 0, months: int = 0) -> datetime:
    """The same clock time `years` and `months` later (the last day of a shorter month where the day is past it)."""
    month = moment.month - 1 + months
    year, month = moment.year + years + month // 12, month % 12 + 1
    return moment.replace(year=year, month=month, day=min(moment.day, monthrange(year, month)[1]))


def _swapped(moment: datetime) -> datetime | None:
    """The date with its day and month exchanged (2026-06-07 as 2026-07-06), where that is another date."""
    if moment.day > 12 or moment.day == moment.month:
        return None
    return moment.replace(month=moment.day, day=moment.month)


_MOVES = (("a year later", lambda m: _later(m, 1, 0)), ("a month later", lambda m: _later(m, 0, 1)),
          ("day and month exchanged", _swapped))


def _holds(op: str, expected: str, forms: set[str]) -> bool:
    try:
        return any(compare(f, op, expected) for f in forms)  # type: ignore[arg-type]
    except (PatternRefused, PatternTimeout):
        return False


def _stamp(value: Any) -> datetime | None:
    """An ISO date-time with its offset, else None."""
    if not isinstance(value, str) or "T" not in value or not value[:4].isdigit():
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _written(moment: datetime, like: str) -> str:
    return moment.isoformat().replace("+00:00", "Z") if like.endswith("Z") else moment.isoformat()


def date_part_shifts(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]]) -> list[Mutation]:
    """Each write with its date-times (top-level arguments, all moved together: a meeting's start and end) a year
    later, a month later and with day and month exchanged, where some loose condition of the checks that reads one of them (it fails the date-time
    a day later: not `contains "09:00"`) holds for both it and the moved one (see the module docstring)."""
    conditions = {c for check in spec.checks for c in _conditions(check.rule.model_dump(mode="json"))}
    if not conditions:
        return []
    out = []
    for t, s, call in writes:
        stamps = {name: m for name, value in call.arguments.items() if (m := _stamp(value)) is not None}
        read = {}
        for name, moment in stamps.items():
            value = call.arguments[name]
            before, day = _forms(moment, value), _forms(moment + timedelta(days=1), value)
            read[name] = [(op, v) for op, v in conditions if _holds(op, v, before) and not _holds(op, v, day)]
        for what, move in _MOVES:
            moved = {name: m2 for name, m in stamps.items() if (m2 := move(m)) is not None}
            if len(moved) < len(stamps):
                continue
            loose = [name for name, conds in read.items() if any(
                _holds(op, v, _forms(moved[name], call.arguments[name])) for op, v in conds)]
            if not loose:
                continue
            new = {name: _written(m, call.arguments[name]) for name, m in moved.items()}
            step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={**call.arguments, **new}))
            shown = ", ".join(f"{name} {call.arguments[name]!r} -> {new[name]!r}" for name in stamps)
            out.append(Mutation("time_shift", f"reference[{t}].steps[{s}].call.arguments.{loose[0]}",
                                f"{call.name}: {shown} ({what})", replaced(spec.reference, t, s, step)))
    return out
