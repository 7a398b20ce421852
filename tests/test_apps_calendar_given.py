"""Calendar events added as given (attendees as written, times read as ISO-8601 or kept as text) and a person's
events on a day, found by name inside attendee entries."""

from __future__ import annotations

from tests.test_apps_productivity import _box, _error, _ok, _served

EVENTS = {"calendar": {"events": [
    {"id": "evt_001", "title": "Standup", "start": "2026-03-02T09:00:00Z", "end": "2026-03-02T09:30:00Z",
     "organizer": "ana@x.test", "attendees": ["Mike Li", "Sarah Wang"]},
    {"id": "evt_002", "title": "Review", "start": "2026-03-02T23:30:00Z", "end": "2026-03-03T00:30:00Z",
     "organizer": "ana@x.test", "attendees": ["Mike Li"]},
    {"id": "evt_003", "title": "Called off", "start": "2026-03-02T11:00:00Z", "end": "2026-03-02T12:00:00Z",
     "organizer": "ana@x.test", "attendees": ["Mike Li"], "status": "cancelled"},
    {"id": "evt_004", "title": "Next day", "start": "2026-03-03T08:00:00Z", "end": "2026-03-03T09:00:00Z",
     "organizer": "ana@x.test", "attendees": ["Sarah Wang"]},
]}}


def test_user_events_match_a_name_inside_attendee_entries_on_the_day_they_start() -> None:
    box = _box(**EVENTS)
    assert [e["id"] for e in _ok(box, "calendar_user_events", user="Mike", date="2026-03-02")] == ["evt_001",
                                                                                                   "evt_002"]
    assert [e["id"] for e in _ok(box, "calendar_user_events", user="Sarah Wang", date="2026-03-02")] == ["evt_001"]
    assert [e["id"] for e in _ok(box, "calendar_user_events", user="Sarah Wang", date="2026-03-03")] == ["evt_004"]
    assert _ok(box, "calendar_user_events", user="mike", date="2026-03-02") == []  # a substring, case and all
    assert "YYYY-MM-DD" in _error(box, "calendar_user_events", user="Mike", date="2026-03-02T09:00:00Z")
    assert "YYYY-MM-DD" in _error(box, "calendar_user_events", user="Mike", date="2026-13-02")


def test_an_added_event_keeps_attendees_as_written_and_its_zoned_times_in_utc() -> None:
    box = _box(**EVENTS)
    out = _ok(box, "calendar_add_event", title="Sync", start_time="2026-03-02T15:30:00+01:00",
              end_time="2026-03-02T15:30:00Z", attendees=["Mike Li", "Sarah"])
    assert out["status"] == "created"
    event = out["event"]
    assert event["id"] == "evt_005"  # numbered after every event held, as Claw-Eval's service numbers them
    assert (event["start"], event["end"], event["attendees"]) == (
        "2026-03-02T14:30:00Z", "2026-03-02T15:30:00Z", ["Mike Li", "Sarah"])
    assert event["organizer"] == "ana@x.test"
    assert [e["id"] for e in _ok(box, "calendar_user_events", user="Sarah", date="2026-03-02")] == [
        "evt_001", "evt_005"]


def test_a_time_without_a_zone_is_kept_as_written_and_listings_fail_until_the_event_is_cancelled() -> None:
    box = _box(**EVENTS)
    window = {"start": "2026-03-02T00:00:00Z", "end": "2026-03-03T00:00:00Z"}
    before = _ok(box, "calendar_list_events", **window)
    event = _ok(box, "calendar_add_event", title="Sync", start_time="2026-03-02T14:30:00",
                end_time="2026-03-02T15:30:00")["event"]
    assert (event["start"], event["end"]) == ("2026-03-02T14:30:00", "2026-03-02T15:30:00")
    for tool, args in (("calendar_list_events", window), ("calendar_user_events", {"user": "Mike", "date": "2026-03-02"})):
        assert event["id"] in _error(box, tool, **args) and "2026-03-02T14:30:00" in _error(box, tool, **args)
    assert _ok(box, "calendar_get_event", event_id=event["id"])["title"] == "Sync"
    _ok(box, "calendar_cancel_event", event_id=event["id"])
    assert _ok(box, "calendar_list_events", **window) == before


def test_an_event_with_an_unreadable_end_alone_is_listed_by_its_start() -> None:
    box = _box(**EVENTS)
    window = {"start": "2026-03-02T00:00:00Z", "end": "2026-03-03T00:00:00Z"}
    event = _ok(box, "calendar_add_event", title="Sync", start_time="2026-03-02T14:30:00Z", end_time="2026-03-02",
                attendees=["Mike Li"])
    assert event["event"]["end"] == "2026-03-02"  # kept as written
    assert event["event"]["id"] in [e["id"] for e in _ok(box, "calendar_list_events", **window)]
    assert event["event"]["id"] in [e["id"] for e in _ok(box, "calendar_user_events", user="Mike", date="2026-03-02")]


def test_a_listing_by_start_holds_the_events_starting_in_the_window_not_those_running_into_it() -> None:
    # Claw-Eval's calendar lists the events starting on the days asked for: evt_002 runs past midnight into the 3rd
    box = _box(**EVENTS)
    day = {"start": "2026-03-03T00:00:00Z", "end": "2026-03-04T00:00:00Z"}
    assert [e["id"] for e in _ok(box, "calendar_list_events", **day)] == ["evt_002", "evt_004"]
    served = _served(box)  # `starting`, a service argument (set by the Claw-Eval import's binding)
    assert [e["id"] for e in _ok(served, "calendar_list_events", **day, starting=True)] == ["evt_004"]
    assert [e["id"] for e in _ok(served, "calendar_list_events", start="2026-03-02T00:00:00Z",
                                 end="2026-03-03T00:00:00Z", starting=True, person="ana@x.test")] == [
        "evt_001", "evt_002"]  # a person's events too; a cancelled one never
