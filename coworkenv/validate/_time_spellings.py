"""Date-times the checks compare as text where the compared value can be the same instant spelled otherwise.

The checks compare two strings as text (`equals`, `not_equals`, `in` by the characters; `gte`, `gt`, `lte`, `lt`
character by character). One instant has many spellings: `2026-11-03T09:30:00Z`, `2026-11-03T13:30:00+04:00`,
`2026-11-03T05:30:00-04:00`. `_textual_times` reads an ordering bound written in another form than the values it
meets; two holes were left, both sound only while the compared value is spelled one way:

- a state condition (a field rule, a records rule's or frame selector's `where`) that tests a stored date-time for
  (in)equality (`equals`, `not_equals`, `in`) with a value in another form than the tools store
  (`YYYY-MM-DDTHH:MM:SSZ`): the guard "no event left at the clash", `0 events where start equals
  2026-07-21T10:00:00+01:00` (the user's wall clock), or `due equals 2026-06-07` (a bare day on a date-time field)
  holds for no record an agent writes (the tools store UTC), so it never fires; the same written as a `completion`
  fails the honest agent. A value that is exactly a seed record's value of that field is that record's time and
  stays allowed, and so is one the dynamics write, or an unzoned one the reference passes (a tool that keeps
  such a time as given stores that text), and a bare day on a field the world holds as days. An ordering bound
  (`gte`/`gt`/`lte`/`lt`) written at an offset like the world's own values of that field (a world written by hand
  at the user's wall clock, `2026-09-28T12:00:00+02:00`, which `_textual_times` admits as the values' form) is
  named too: the agent's writes are stored in UTC and sort by their text against it.
- a call matcher's condition on a date-time argument (`calendar_create_event`'s `start`, `todo_create`'s `due`):
  the arguments are what the agent wrote, in any offset the tool takes, and the tool stores the instant in UTC. An
  ordering condition (`where start gte 2026-11-03T08:00:00Z`, "booked within the working day") fails the agent
  that wrote `2026-11-03T05:30:00-04:00` (09:30 UTC) and passes the one that wrote `2026-11-03T11:30:00+04:00`
  (07:30 UTC); an equality condition or an `args` pin in a `forbidden` guard (which the reference never calls, so
  the `instant_pinned` replay never tries it) misses the forbidden call spelled in another offset. Which arguments
  are date-times: the ones the reference passes a zoned date-time to for that tool, and any whose compared value is
  one. The same holds for the matcher a colleague's reaction (`dynamics.rules[].on`) or a follow-up turn
  (`turns[].condition`) waits on: ordered by a date-time argument, it never fires for the agent that wrote the
  time west of the bound.

A part of a stored time or of a time argument read with `contains`/`not_contains`/`matches` (its day, its clock)
is read by `_time_fragments`, reported here.

`time_spellings` yields (path, message) for each, reported by the references gate (`time_compared_as_text`, the code
`_textual_times` uses: the same mistake). Static, no run.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, tzinfo
from functools import cached_property
from typing import Any

from coworkenv.checks import field_value
from coworkenv.spec import (
    AfterCall,
    CallMatcher,
    EnvSpec,
    FieldCond,
    FieldRule,
    ForbiddenRule,
    OnAction,
    RecordsRule,
    Selector,
)
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._time_fragments import LOOSE, argument_fragments, known_instants, stored_fragment, user_zones

_EQUALITY = frozenset({"equals", "not_equals", "in"})
_ORDER = frozenset({"gt", "gte", "lt", "lte"})
_DATEISH = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}(?:$|[T ])")
_ZONED = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$",
                    re.IGNORECASE)
_WORLD = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _seed_values(spec: EnvSpec, app: str | None, table: str | None, field: str) -> list[str]:
    rows = getattr(getattr(spec.world.apps, app or "", None), table or "", None) or []
    return [v for rec in rows if isinstance(v := field_value(rec, field), str) and _DATEISH.match(v)]


def _written_values(spec: EnvSpec) -> frozenset[str]:
    """Date-like strings a record can hold as written: what the dynamics put or set, and an unzoned time the
    reference passes (a tool that keeps it as given, `calendar_add_event`, stores that text)."""
    passed = _strings([step.call.arguments for turn in spec.reference for step in turn.steps if step.call])
    # A zoned time the reference passes is stored in UTC by every tool, so only an unzoned one stays as written.
    return frozenset(_strings(spec.dynamics.model_dump(mode="json")) | {v for v in passed if not _ZONED.match(v)})


def _strings(value: Any) -> set[str]:
    out: set[str] = set()
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and _DATEISH.match(item):
            out.add(item)
    return out


def _stored_misfit(value: str, seeds: list[str]) -> bool:
    """Whether `value` (date-like) can never be the text a record of that field holds once an agent wrote it."""
    if value in seeds:
        return False  # a seed record's own time, or one the spec writes as it is
    if _WORLD.match(value):
        return bool(seeds) and all(_DAY.match(s) for s in seeds)  # a date-time against a field of days
    if _DAY.match(value):
        return bool(seeds) and not any(_DAY.match(s) for s in seeds)  # a day against a field of date-times
    return True  # another offset, no seconds, a part not two digits


def _values(cond_value: Any) -> list[str]:
    items = cond_value if isinstance(cond_value, list) else [cond_value]
    return [v for v in items if isinstance(v, str) and _DATEISH.match(v)]


def _stored(where: str, conds: list[FieldCond], spec: EnvSpec, app: str | None, table: str | None,
            written: frozenset[str], parts: _Parts) -> Iterator[tuple[str, str]]:
    for k, c in enumerate(conds):
        why = (_stored_why(c.field, c.op, c.value, spec, app, table, written) if c.op in _EQUALITY else
               _offset_seeds(c.field, c.op, c.value, spec, app, table) if c.op in _ORDER else
               parts.stored(c.field, c, app, table))
        if why is not None:
            yield f"{where}.where[{k}]", why


def _offset_seeds(field: str, op: str, value: Any, spec: EnvSpec, app: str | None, table: str | None) -> str | None:
    """An ordering bound written at an offset (`+02:00`) like the world's values of its field, while the tools store
    UTC: the bound in the seeds' form passes `_textual_times`, and text order between the bound and what an agent
    writes is not time order (a window at the user's wall clock holds none of the agent's writes)."""
    if not isinstance(value, str) or not _DATEISH.match(value):
        return None
    offset = next((s for s in _seed_values(spec, app, table, field) if _ZONED.match(s) and not _WORLD.match(s)), None)
    if offset is None or not _same_form(value, offset):
        return None  # all seeds in UTC, or a bound in UTC (the agent's writes compare right) or in another form
        # still (`_textual_times` names that one)
    return (f"{field} {op} {value!r} orders a date-time as text against a field the world writes at an offset "
            f"({offset!r}) while the tools store UTC (`Z`): the agent's writes, the seeds and the bound sort by their "
            "offsets, not by time, so the window holds other times than it says; write the world's times and the "
            "bound in UTC, YYYY-MM-DDTHH:MM:SSZ")


def _same_form(a: str, b: str) -> bool:
    return re.sub(r"\d", "9", a) == re.sub(r"\d", "9", b)


def _stored_why(field: str, op: str, value: Any, spec: EnvSpec, app: str | None, table: str | None,
                written: frozenset[str]) -> str | None:
    seeds = _seed_values(spec, app, table, field)
    bad = [v for v in _values(value) if v not in written and _stored_misfit(v, seeds)]
    if not bad:
        return None
    held = sorted({re.sub(r"\d", "D", s) for s in seeds}) or ["DDDD-DD-DDTDD:DD:DDZ"]
    return (f"{field} {op} {bad[0]!r} compares a date-time as text, and no record written by a tool holds that text: "
            f"the tools store an instant one way ({', '.join(held)}, D a digit: UTC, every part two digits), so "
            f"the same instant written with another offset, without its seconds, or as a bare day never equals it "
            f"(a guard on it never fires, a completion on it fails the honest agent); write the value as the world "
            f"stores it")


def _time_arguments(spec: EnvSpec) -> dict[str, set[str]]:
    """tool -> the argument paths the reference passes a zoned date-time to."""
    out: dict[str, set[str]] = {}
    for turn in spec.reference:
        for step in turn.steps:
            if step.call is not None:
                for path in _zoned_paths(step.call.arguments, ""):
                    out.setdefault(step.call.name, set()).add(path)
    return out


def _zoned_paths(value: Any, prefix: str) -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _zoned_paths(v, f"{prefix}{k}" if not prefix else f"{prefix}.{k}")
    elif isinstance(value, str) and _ZONED.match(value) and prefix:
        yield prefix


class _Parts:
    """What `_time_fragments` needs, worked out once a spec (the instants it knows, the user's zone)."""

    def __init__(self, spec: EnvSpec, timed: dict[str, set[str]]) -> None:
        self.spec, self.timed = spec, timed
        self.any_timed: set[str] = set().union(*timed.values()) if timed else set()

    @cached_property
    def instants(self) -> list[datetime]:  # worked out only for a spec with a loose condition on a time
        return known_instants(self.spec)

    def stored(self, field: str, cond: Any, app: str | None, table: str | None) -> str | None:
        if cond.op not in LOOSE:
            return None
        return stored_fragment(field, cond, _seed_values(self.spec, app, table, field), self.zones[0],
                               self.zones[1], self.instants, field in self.any_timed)

    @cached_property
    def zones(self) -> tuple[list[tzinfo], bool]:
        """The people's zones, the user's first, and whether the user's is known."""
        return user_zones(self.spec)

    def argument(self, where: str, matcher: CallMatcher) -> Iterator[tuple[str, str]]:
        timed = self.timed.get(matcher.tool) or self.any_timed
        if any(c.op in LOOSE and c.field in timed for c in matcher.where):
            yield from argument_fragments(where, matcher, timed, self.instants)


def _argument(where: str, matcher: CallMatcher, guard: bool, timed: set[str]) -> Iterator[tuple[str, str]]:
    for k, c in enumerate(matcher.where):
        zoned = any(_ZONED.match(v) for v in _values(c.value))
        if not (c.field in timed or zoned):
            continue
        if c.op in _ORDER or (guard and c.op in _EQUALITY):
            yield f"{where}.where[{k}]", _argument_why(matcher.tool, f"{c.field} {c.op} {c.value!r}", guard)
    if guard:
        for name, value in matcher.args.items():
            if isinstance(value, str) and (name in timed or _ZONED.match(value)) and _DATEISH.match(value):
                yield f"{where}.args.{name}", _argument_why(matcher.tool, f"{name}={value!r}", guard)


def _argument_why(tool: str, cond: str, guard: bool) -> str:
    effect = ("the guard misses the forbidden call written in another offset" if guard else
              "the matcher misses the agent that wrote the right instant in an offset west of it, and takes one "
              "that wrote a wrong instant east of it")
    return (f"{tool} {cond} compares a date-time argument as text, and the argument is what the agent wrote: the same "
            f"instant has a spelling for every offset the tool takes (it stores UTC), so {effect}; check the stored "
            "record instead (a records or field check on the time the tool stored, written YYYY-MM-DDTHH:MM:SSZ)")


def time_spellings(spec: EnvSpec) -> Iterator[tuple[str, str]]:
    """(path, message) for each date-time compared as text where the compared value can be spelled otherwise."""
    timed = _time_arguments(spec)
    written = _written_values(spec)
    parts = _Parts(spec, timed)
    for _, _, where, rule in spec_rules(spec.checks):
        if isinstance(rule, FieldRule):
            t = rule.target
            why = (_stored_why(t.field, rule.op, rule.value, spec, t.app, t.table, written) if rule.op in _EQUALITY
                   else _offset_seeds(t.field, rule.op, rule.value, spec, t.app, t.table) if rule.op in _ORDER
                   else parts.stored(t.field, rule, t.app, t.table))
            if why is not None:
                yield f"{where}.value", f"{t.table}[{t.id}].{why}"
        elif isinstance(rule, RecordsRule):
            yield from _stored(where, rule.where, spec, rule.app, rule.table, written, parts)
        for k, sel in enumerate(getattr(rule, "allow", None) or []):
            if isinstance(sel, Selector):
                yield from _stored(f"{where}.allow[{k}]", sel.where, spec, sel.app, sel.table, written, parts)
        for name in ("call", "first", "then"):
            matcher = getattr(rule, name, None)
            if isinstance(matcher, CallMatcher):
                yield from _argument(f"{where}.{name}", matcher, isinstance(rule, ForbiddenRule),
                                     timed.get(matcher.tool, set()))
                yield from parts.argument(f"{where}.{name}", matcher)
    # A colleague's reaction or a follow-up turn waiting on a call ordered by a date-time argument: the honest
    # agent that wrote the time in an offset west of the bound is never answered.
    for i, dyn in enumerate(spec.dynamics.rules):
        if isinstance(dyn.on, OnAction):
            yield from _argument(f"dynamics.rules[{i}].on.call", dyn.on.call, False, timed.get(dyn.on.call.tool, set()))
            yield from parts.argument(f"dynamics.rules[{i}].on.call", dyn.on.call)
    for i, turn in enumerate(spec.turns):
        if isinstance(turn.condition, AfterCall):
            call = turn.condition.call
            yield from _argument(f"turns[{i}].condition.call", call, False, timed.get(call.tool, set()))
            yield from parts.argument(f"turns[{i}].condition.call", call)
