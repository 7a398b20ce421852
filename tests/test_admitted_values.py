"""The values a check's pattern admits beside a written value (`_admitted_values`), and a digit read by a class of a
few (`_partial_facts.classed_digits_wrong`): what is tried, and what is not (equivalent spellings, pinned values)."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace
from typing import Any

import pytest

from coworkenv.spec_regex import compiled
from coworkenv.validate._admitted_values import _admitted, _item_values, _kind
from coworkenv.validate._partial_facts import classed_digits_wrong

_INDEX: Any = SimpleNamespace(table_of={"msg-391": ("mail", "messages"), "svc-b": ("services", "services")},
                              is_recipient=lambda v: "@" in v)


def admitted(value: Any, pattern: str, op: str = "matches") -> list[Any]:
    kind = _kind(value)
    assert kind is not None
    return [v for v, _ in _admitted(value, kind, [("c", True, op, pattern)], _INDEX)]


@pytest.mark.parametrize(("value", "pattern", "wanted"), [
    ("msg-391", "^msg-391", "msg-3910"),  # anchored at its start only: a longer id
    ("msg-391", "msg-391$", "0msg-391"),  # at its end only
    ("msg-391", "391", "msg-3910"),  # neither
    ("1.5.0", "^1\\.5\\.0", "1.5.00"),
    ("+31 650 750 659", "^\\+31 650 750 65[0-9]$", "+31 650 750 650"),
    ("2026-11-17T09:30:00Z", "^2026-1[17]-1[17]T09:30:00Z$", "2026-11-11T09:30:00Z"),  # neither the date nor a swap
    ("2026-11-17T15:30:00Z", "^2026-11-17T1[05]:30:00Z$", "2026-11-17T10:30:00Z"),
    ("2026-11-17T09:30:00Z", "^2026-11-17T(09|14):30:00Z$", "2026-11-17T14:30:00Z"),  # a literal branch
    ("2026-11-17T13:30:00+04:00", "^2026-11-17T[01][39]:30:00Z$", "2026-11-17T23:30:00+04:00"),  # read as stored
    (57, "^5[07]$", 50),
    ("2026-06-18", "^2026-[01][68]-18$", "2026-08-18"),
])
def test_admitted_values_tried(value: Any, pattern: str, wanted: Any) -> None:
    assert wanted in admitted(value, pattern)


@pytest.mark.parametrize(("value", "pattern"), [
    ("msg-391", "^msg-391$"),  # pinned whole
    ("2026-11-17T09:30:00Z", "^2026-11-17T09:30(:00)?(Z|\\+00:00)$"),  # the same instant spelled otherwise
    ("2026-06-18T15:00:00Z", "^2026-(06-18|18-06)T15:00:00Z$"),  # either order where the day is past the 12th
    (57, "^0*57(\\.0+)?$"),  # the same number
    ("svc-a", "^svc-(a|b)$"),  # another record the pattern names on purpose
    ("msg-391", "(?i)^msg-391$"),  # other capitals: `_loose_values` tries those, where the tool may fold them
])
def test_equivalent_or_named_values_not_tried(value: Any, pattern: str) -> None:
    assert admitted(value, pattern) == []


def test_kinds() -> None:
    assert [_kind(v) for v in ("2026-11-17T09:30:00Z", "2026-11-17", "57", 5.5, "msg-391", True, "two words")] == \
        ["instant", "date", "number", "number", "text", None, None]


@pytest.mark.parametrize(("text", "pattern", "wanted"), [
    ("There were 6 breaches.", "(?:[56]|six) breaches", "There were 5 breaches."),  # one up fails, one down passes
    ("There were 6 breaches.", "(?:\\d|six) breaches", "There were 7 breaches."),  # as before: one up
    ("There were 6 breaches.", "(?:6|six) breaches", None),  # the number pinned
    ("p1,4,3,2", "^p1,[34],3,2$", "p1,3,3,2"),
    ("We meet at 14:00.", "1[45]:00", "We meet at 15:00."),  # a clock time: one up only, as before
    ("We meet at 14:00.", "1[34]:00", None),  # ... so a class that admits one below is the zone readings' to judge
])
def test_classed_digits(text: str, pattern: str, wanted: str | None) -> None:
    assert classed_digits_wrong(text, [compiled(pattern)]) == wanted


def _same(*clocks: tuple[int, int]) -> Any:
    """A `same_clocks` reading: the given clocks name one instant; any other clock names none the spec states."""
    return lambda clock: set(clocks) if clock in clocks else None


_MEETING = ((14, 0), (15, 0), (2, 0), (3, 0))  # 14:00 UTC, 15:00 London, and on a 12-hour clock


@pytest.mark.parametrize(("text", "pattern", "same", "wanted"), [
    ("We meet at 14:00.", "1[34]:00", _MEETING, "We meet at 13:00."),  # 13:00 names no instant 14:00 does: tried
    ("Booked for 15:30.", "1[05]:30", ((15, 30),), "Booked for 10:30."),  # not one up: any digit is tried
    ("We meet at 14:00 (15:00 London).", "1[45]:00", _MEETING, None),  # the same instant in another zone
    ("We meet at 14:00.", "(14|02):00", _MEETING, None),  # on a 12-hour clock
    ("We meet at 2:00 pm.", "[24]:00 ?pm", ((14, 0), (2, 0)), "We meet at 4:00 pm."),  # a 12-hour hour by a class
    ("We meet at 14:00.", "1[4-9]:[03]0", _MEETING, "We meet at 16:00."),  # one digit per clock
    ("It last ran at 08:00.", "0[89]:00", _MEETING, "It last ran at 09:00."),  # a clock no stated instant names:
    ("It last ran at 08:00.", "0[78]:00", _MEETING, None),  # one up only, as before
])
def test_classed_clock_digits(text: str, pattern: str, same: tuple[tuple[int, int], ...], wanted: str | None) -> None:
    def reading(clock: tuple[int, int]) -> set[tuple[int, int]] | None:
        return set(same) if clock in same else None
    assert classed_digits_wrong(text, [compiled(pattern)], reading) == wanted



_TOKYO_DAY = (("2026-06-06", "2026-06-07"),)  # an instant at 23:00 UTC on the 6th: 08:00 Tokyo on the 7th


@pytest.mark.parametrize(("text", "pattern", "wanted"), [
    ("Review on 2027-05-06.", "2027-05-0[56]", "Review on 2027-05-05."),  # the day below: any digit is tried
    ("Review on 2027-05-06.", "202[67]-05-06", "Review on 2026-05-06."),  # the year below
    ("Review on 2027-05-06.", r"2027-05-0\d", "Review on 2027-05-07."),  # one up, as before
    ("Due 2027-05-31.", "2027-05-3[01]", "Due 2027-05-30."),  # 32 is no date: 30 is tried
    ("Due 2027-02-28.", "2027-02-2[89]", None),  # 2027-02-29 is no date
    ("Meet 2026-06-06.", "2026-06-0[67]", None),  # the same instant's day in Tokyo
    ("Meet 2026-06-06.", "2026-06-0[56]", "Meet 2026-06-05."),  # ... the day before is none of its days
    ("Meet 2026-06-06.", "2026-06-0[6-8]", "Meet 2026-06-08."),  # one digit per date, the first the same day refuses
    # a numeric date (defects98): day and month either way round, any digit a class admits tried
    ("Review on 06/05/2027.", "0[56]/05/2027", "Review on 05/05/2027."),  # the day below
    ("Review on 06.05.2027.", r"06\.0[45]\.2027", "Review on 06.04.2027."),  # the month below
    ("Review 2027/05/06.", "2027/05/0[56]", "Review 2027/05/05."),  # year first
    ("Review on 04/03.", "0[34]/0[34]", "Review on 03/03."),  # no year: either order, 03/03 is neither
    ("Review on 03/04.", "(?:03/04|04/03)", None),  # the same day either way round
    ("Meet 06/06/2026.", "0[67]/06/2026", None),  # the same instant's day in Tokyo
    ("Meet 06/06/2026.", "0[56]/06/2026", "Meet 05/06/2026."),  # ... the day before is none of its days
    ("At 14.30 today.", r"1[34]\.30", None),  # a dotted pair is no date: one up only, as before
])
def test_classed_date_digits(text: str, pattern: str, wanted: str | None) -> None:
    def same_day(day: date) -> set[date]:
        for days in _TOKYO_DAY:
            if day.isoformat() in days:
                return {date.fromisoformat(d) for d in days}
        return {day}
    assert classed_digits_wrong(text, [compiled(pattern)], None, same_day) == wanted

_PEOPLE = ["ana.lee@x.test", "ana.lee2@x.test", "bo.kim@x.test", "cy.ng@x.test"]
_DIRECTORY: Any = SimpleNamespace(
    table_of={}, is_recipient=lambda v: "@" in v, other_record=lambda v, avoid: None,
    recipients=lambda v, avoid, limit=1: [p for p in _PEOPLE if p not in avoid][:limit],
    recipient=lambda v, avoid: next((p for p in _PEOPLE if p not in avoid), None))


def item_values(value: Any, field: str, pattern: str, op: str = "matches") -> list[Any]:
    """The arguments `_item_values` writes for a list or dict argument read by one condition on `field`."""
    tool: Any = SimpleNamespace(app="app")
    call: Any = SimpleNamespace(name="app_write")
    conds = {("app", field): [("c", True, op, pattern)]}
    return [v for _, v, _ in _item_values(call, tool, "arg", value, conds, _DIRECTORY)]


def test_list_item_read_by_a_loose_pattern() -> None:
    # the attendee read by the name before the domain: the namesake the directory holds is tried in its place
    tried = item_values(["ana.lee@x.test", "bo.kim@x.test"], "arg", "ana\\.lee")
    assert ["ana.lee2@x.test", "bo.kim@x.test"] in tried
    # the name up to the `@`: another domain
    assert any(v[0].startswith("ana.lee@") and v[0] != "ana.lee@x.test"
               for v in item_values(["ana.lee@x.test"], "arg", "ana\\.lee@"))


@pytest.mark.parametrize(("value", "pattern", "op"), [
    (["ana.lee@x.test", "bo.kim@x.test"], "'ana\\.lee@x\\.test'", "matches"),  # pinned whole, quotes and all
    (["ana.lee@x.test", "bo.kim@x.test"], "ana.lee@x.test", "contains"),  # `contains` on a list is membership
    (["ana.lee@x.test", "bo.kim@x.test"], "test", "matches"),  # holds without any one item: reads none of them
])
def test_list_items_not_tried(value: list[str], pattern: str, op: str) -> None:
    assert item_values(value, "arg", pattern, op) == []


def test_dict_value_listing_people_one_longer() -> None:
    listed = "ana.lee@x.test,bo.kim@x.test"
    assert item_values({"viewers": listed}, "viewers", "^ana\\.lee@x\\.test,bo\\.kim@x\\.test") == \
        [{"viewers": listed + ",ana.lee2@x.test"}]  # read by its start: one more at the end
    assert item_values({"viewers": listed}, "viewers", "ana\\.lee@x\\.test,bo\\.kim@x\\.test$") == \
        [{"viewers": "ana.lee2@x.test," + listed}]
    assert item_values({"viewers": listed}, "viewers", "^ana\\.lee@x\\.test,bo\\.kim@x\\.test$") == []
    assert item_values({"viewers": listed}, "viewers", "ana.lee@x.test", "contains") == []
