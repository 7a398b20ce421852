"""Date-times compared as text where the compared value is one spelling of an instant (`_time_spellings`): each case
is a condition written by hand into the shipped meeting_reschedule example, read statically (no episode is played)."""

from __future__ import annotations

from typing import Any

import pytest

from coworkenv.examples import load_example
from coworkenv.loading import parse_spec
from coworkenv.validate._time_spellings import time_spellings

_EVENT = {"app": "calendar", "table": "events", "id": "evt-1041", "field": "start"}


def _spec(check: dict[str, Any] | None = None, rule_on: dict[str, Any] | None = None) -> Any:
    data = load_example("meeting_reschedule").model_dump(mode="json", by_alias=True)
    if check is not None:
        data["checks"].append({"id": "probe", "role": "guard", "rule": check})
    if rule_on is not None:
        data["dynamics"]["rules"][0]["on"]["call"] = rule_on
    return parse_spec(data)


def _records(*where: tuple[str, str, Any]) -> dict[str, Any]:
    return {"kind": "records", "app": "calendar", "table": "events", "count_op": "equals", "count": 0,
            "where": [{"field": f, "op": op, "value": v} for f, op, v in where]}


def _update(op: str, value: Any, kind: str = "forbidden") -> dict[str, Any]:
    call = {"tool": "calendar_update_event", "where": [{"field": "start", "op": op, "value": value}]}
    return {"kind": kind, "call": call} if kind == "forbidden" else {"kind": kind, "call": call, "min_times": 1}


@pytest.mark.parametrize("check", [
    _records(("start", "equals", "2026-04-15T16:00:00+02:00")),  # the user's wall clock and offset
    _records(("start", "equals", "2026-04-15T14:00Z")),  # no seconds
    _records(("start", "in", ["2026-04-15T14:00:00Z", "2026-04-15"])),  # a bare day on a field of date-times
    {"kind": "field", "target": _EVENT, "op": "not_equals", "value": "2026-04-14T15:00:00+02:00"},
    _update("gte", "2026-04-15T13:00:00Z", kind="called"),  # an ordering on what the agent wrote
    _update("equals", "2026-04-14T13:00:00Z"),  # a forbidden call's time, in any spelling but this one
    {"kind": "forbidden", "call": {"tool": "calendar_update_event", "args": {"start": "2026-04-14T13:00:00Z"}}},
    _update("contains", "2026-04-15"),  # a day read off what the agent wrote: the day depends on its offset
    _update("matches", "^2026-04-15T14:", kind="called"),  # an hour read off it
    _records(("start", "matches", "^2026-04-15")),  # the UTC day of a stored time, for the user's day
    _records(("start", "contains", "2026-04-15T16:00")),  # a stored time read at the user's clock (+02:00)
    _records(("start", "contains", "2026-04-14T09:00")),  # evt-1041's 13:00Z read at a New York colleague's clock
    {"kind": "field", "target": _EVENT, "op": "not_contains", "value": "2026-04-14T15:00"},  # its old slot, local
], ids=["offset", "no-seconds", "bare-day-in", "field-not-equals", "called-order", "forbidden-equals",
        "forbidden-args", "forbidden-contains-day", "called-matches-hour", "stored-utc-day", "stored-local-clock",
        "stored-colleague-clock", "field-not-contains-local"])
def test_reported(check: dict[str, Any]) -> None:
    found = list(time_spellings(_spec(check)))
    assert found and all(path.startswith("checks[") for path, _ in found), found
    assert "as text" in found[0][1]


@pytest.mark.parametrize("check", [
    _records(("start", "equals", "2026-04-15T14:00:00Z")),  # as the tools store it
    _records(("start", "equals", "2026-04-14T13:00:00Z")),  # a seed's own time
    {"kind": "field", "target": _EVENT, "op": "equals", "value": "2026-04-15T14:00:00Z"},
    _update("gte", "2026-04-15T13:00:00Z", kind="called") | {"call": {"tool": "calendar_update_event",
                                                                       "args": {"event_id": "evt-1041"}}},
    _records(("start", "contains", "2026-04-15T14:00")),  # the stored (UTC) day and clock of the new slot
    _records(("title", "contains", "2026-04-15")),  # not a date-time field
], ids=["stored-form", "seed-value", "field-equals", "called-no-time", "stored-clock-utc", "not-a-time"])
def test_sound_left_alone(check: dict[str, Any]) -> None:
    assert list(time_spellings(_spec(check))) == []


def test_a_reaction_waiting_on_an_ordered_time_is_reported() -> None:
    on = {"tool": "calendar_update_event", "args": {}, "where": [
        {"field": "start", "op": "gte", "value": "2026-04-15T13:00:00Z"}]}
    found = list(time_spellings(_spec(rule_on=on)))
    assert [p for p, _ in found] == ["dynamics.rules[0].on.call.where[0]"], found


def test_a_time_kept_as_given_is_left_alone() -> None:
    """`calendar_add_event` keeps a time without a zone as written: a check on that text is the record's."""
    data = load_example("meeting_reschedule").model_dump(mode="json", by_alias=True)
    data["reference"][0]["steps"].insert(0, {"call": {"name": "calendar_add_event", "arguments": {
        "title": "Prep", "start_time": "2026-04-16T10:00:00", "end_time": "2026-04-16T11:00:00"}}})
    data["checks"].append({"id": "probe", "role": "completion", "rule": _records(
        ("start", "equals", "2026-04-16T10:00:00")) | {"count_op": "gte", "count": 1}})
    assert list(time_spellings(parse_spec(data))) == []
    data["checks"][-1]["rule"]["where"][0]["value"] = "2026-04-16T10:00:00+02:00"  # zoned: stored in UTC
    assert [p for p, _ in time_spellings(parse_spec(data))] == [f"checks[{len(data['checks']) - 1}].rule.where[0]"]


def test_a_bound_at_the_offset_the_world_is_written_in_is_reported() -> None:
    """A world written by hand at +02:00 and a bound in its form: `_textual_times` admits the form, the tools store
    the agent's writes in UTC."""
    data = load_example("meeting_reschedule").model_dump(mode="json", by_alias=True)
    for event in data["world"]["apps"]["calendar"]["events"]:
        event["start"] = event["start"].replace("Z", "+02:00")  # (the text only: the order is what is read here)
    data["checks"].append({"id": "probe", "role": "guard", "rule": _records(
        ("start", "gte", "2026-04-15T16:00:00+02:00"))})
    assert [p for p, _ in time_spellings(parse_spec(data))] == [f"checks[{len(data['checks']) - 1}].rule.where[0]"]
    data["checks"][-1]["rule"]["where"][0]["value"] = "2026-04-15T14:00:00Z"  # in UTC: the agent's writes sort right
    assert list(time_spellings(parse_spec(data))) == []
