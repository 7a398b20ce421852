"""The clock times that name one instant: a time of day a text states, read in every zone the spec knows.

A check on a told time (`the meeting is at 15:30`) may accept the same instant in another zone (`1[45]:00` for
14:00 UTC and 15:00 London) or on a 12-hour clock (`3:30` for 15:30): those are the same answer. Any other time the
check's pattern admits (`1[05]:30` admits 10:30) is a wrong answer it passes. `same_clocks(spec)` tells them apart:
for a stated clock (hour, minute) it gives every clock that names an instant it names, in any zone of the spec (the
directory's, UTC, and the IANA names its texts and arguments state), of the instants the spec states (the user's
turns, the reference's answers and the arguments of its writes: what the agent was told, wrote or told); where it
names none of them, of the instants the world holds at any moment (the initial world's and what the dynamics and
the turns' changes write, defects103), read in UTC, the user's own zone and the zones the texts
name (a job's last run, a log line's time the agent reads and tells: `0[01]:39` for a last run at 01:39 UTC admits
00:39, defects93; every zone of the directory would make most hours some world instant somewhere); None where it
names none of those either (a search's range: nothing says which other clocks are the same instant, and the
digit-class near miss moves the digit one up only, as before).

`same_dates(spec)` does the same for a calendar date (`2026-06-0[67]` for an instant on the 6th in UTC and the 7th
in Tokyo admits no other day; `2027-05-0[56]` for a review date on the 6th admits the 5th, defects95): the dates of
the instants the date names, in those zones; a date naming none is the same as itself only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import date, datetime
from typing import Any

from coworkenv.bindings import spec_catalog
from coworkenv.spec import EnvSpec
from coworkenv.validate._asked_facts import base_world, zones
from coworkenv.validate.entities import held_leaves, leaves
from coworkenv.world._time import zone

Clock = tuple[int, int]
_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)")
_IANA = re.compile(r"\b(?:Africa|America|Asia|Atlantic|Australia|Europe|Indian|Pacific)/[A-Za-z_]+(?:/[A-Za-z_]+)?")


def _instants(texts: Iterable[str]) -> set[datetime]:
    out: set[datetime] = set()
    for text in texts:
        for m in _STAMP.finditer(text):
            try:
                out.add(datetime.fromisoformat(m.group(0).replace("Z", "+00:00")))
            except ValueError:
                continue
    return out


def _spec_texts(spec: EnvSpec) -> tuple[list[str], list[str]]:
    """(the texts that state the instants a told time may name: the user's turns, the reference's answers and the
    arguments of its writes; the arguments of its reads, which name zones but search ranges, not told times)."""
    tools = spec_catalog(spec)
    told: list[str] = [turn.content for turn in spec.turns]
    searched: list[str] = []
    for turn in spec.reference:
        for step in turn.steps:
            if step.say:
                told.append(step.say)
            if step.call is not None:
                tool = tools.get(step.call.name)
                texts = told if tool is not None and tool.kind == "write" else searched
                texts += [v for v in leaves(step.call.arguments) if isinstance(v, str)]
    return told, searched


def _zones(names: Iterable[str]) -> list[Any]:
    known = []
    for name in sorted(names):
        try:
            known.append(zone(name))
        except ValueError:
            continue
    return known


def _own_zone(spec: EnvSpec) -> set[str]:
    """The user's time zone, by the directory (none where it does not list the user)."""
    try:
        people = base_world(spec).table("directory", "people")
    except KeyError:
        return set()
    me = spec.user.lower().lstrip("@")
    return {p.timezone for p in people if p.timezone
            and me in {str(r).lower().lstrip("@") for r in (p.id, p.email, p.chat_handle) if r}}


def _readings(spec: EnvSpec) -> Callable[[str], list[set[datetime]]]:
    """("stated" or "held") -> per instant the spec states (or its world holds at some moment), its local readings (naive)
    in the zones it may be told in; computed on first use (most specs state no clock or date a pattern reads by a
    class)."""
    cache: dict[str, list[set[datetime]]] = {}

    def readings(which: str) -> list[set[datetime]]:
        if not cache:
            texts, searched = _spec_texts(spec)
            held = [v for v in held_leaves(spec) if isinstance(v, str)]  # at any moment, not just the start
            named = {m.group(0) for t in texts + searched for m in _IANA.finditer(t)}
            stated = _instants(texts)
            # A clock read from the world is told in UTC, the user's own zone or a zone a text names: the
            # directory's other zones would make most hours some world instant somewhere.
            for key, names, instants in (("stated", zones(spec) | named, stated),
                                         ("held", {"UTC", *_own_zone(spec)} | named, _instants(held) - stated)):
                known = _zones(names)
                cache[key] = [{i.astimezone(z).replace(tzinfo=None) for z in known} for i in sorted(instants)]
        return cache[which]
    return readings


def same_clocks(spec: EnvSpec) -> Callable[[Clock], set[Clock] | None]:
    """For a clock (hour, minute): the clocks naming an instant it names (itself among them), on a 24- or 12-hour
    clock, in any zone the spec knows; None where it names no instant the spec states or its world holds."""
    readings = _readings(spec)

    def clocks(which: str) -> list[set[Clock]]:
        return [{(local.hour, local.minute) for local in r} for r in readings(which)]

    def same(clock: Clock) -> set[Clock] | None:
        twelve = ((clock[0] + 12) % 24, clock[1])  # `1:30` (pm) names what 13:30 names
        named = [r for r in clocks("stated") if clock in r or twelve in r]
        if not named:  # a clock read from the world (a job's last run, a log line's time): the instants it holds
            named = [r for r in clocks("held") if clock in r or twelve in r]
        if not named:
            return None
        out = set().union(*named)
        return out | {((h + 12) % 24, m) for h, m in out}  # 3:30 for 15:30, 15:30 for 03:30
    return same


def same_dates(spec: EnvSpec) -> Callable[[date], set[date]]:
    """For a calendar date: the dates naming a day it names (itself among them): the dates of each instant the spec
    states (else its initial world holds) whose reading in a zone it may be told in falls on that date, read in
    each of those zones (`2026-06-0[67]` for a meeting at 23:00 UTC on the 6th, 08:00 Tokyo on the 7th, defects95).
    A date naming no such instant (a due date, a review date a document gives) is the same as itself only."""
    readings = _readings(spec)

    def days(which: str) -> list[set[date]]:
        return [{local.date() for local in r} for r in readings(which)]

    def same(day: date) -> set[date]:
        named = [r for r in days("stated") if day in r] or [r for r in days("held") if day in r]
        return {day}.union(*named)
    return same
