"""Calendar: events, attendees, free/busy and time zones."""

from __future__ import annotations

from typing import Any, Literal

from coworkenv.apps._common import clamp, dump, dump_many
from coworkenv.apps.directory import person_by_ref
from coworkenv.tools import ToolError, Toolkit, read, service_args, write
from coworkenv.world import (
    AppDef,
    AppState,
    Derived,
    Kept,
    Key,
    Order,
    Record,
    Table,
    Words,
    format_time,
    local_time,
    parse_time,
    zone,
)


class Event(Record):
    title: str
    start: str
    end: str
    timezone: str = "UTC"
    organizer: str
    attendees: list[str] = []
    location: str = ""
    description: str = ""
    status: Literal["confirmed", "cancelled"] = "confirmed"
    # The id shown and looked up, where a service numbering new events by their count hands a held one out again
    # (`add_event`'s id_as_counted): calls reach the first event holding it; None: the record's id.
    shown_id: str | None = None

    shown_when_set = ("shown_id",)  # in results only when set (an imported service's events)


class CalendarState(AppState):
    events: list[Event] = []
    kept: list[Kept] = []  # fields a calendar service keeps as written (an imported task's tools only)


class CalendarTools(Toolkit):
    app = "calendar"

    @read
    @service_args("starting")
    def list_events(self, start: str, end: str, person: str | None = None, limit: int = 50,
                    starting: bool = False) -> list[dict[str, Any]]:
        """List confirmed events overlapping a time window, optionally only those a person attends. Fails while an
        event has a time no window can place (see calendar_add_event).

        Args:
            start: Window start, ISO-8601 with offset (e.g. 2026-03-02T09:00:00+01:00).
            end: Window end, ISO-8601 with offset.
            person: Person id or email; default everyone.
            limit: Maximum number of events.
            starting: Only the events starting in the window (a listing by start time), not all overlapping it.
        """
        lo, hi = _window(start, end)
        email = person_by_ref(self, person).email if person else None
        table = self.world.table("calendar", "events")
        _require_readable(table)
        if starting:
            sets = [table.key("status").ids("confirmed"), table.key("people").ids(email) if email is not None else None]
            return dump_many(table.select("start", sets=sets, between=(lo, hi), limit=clamp(limit)))
        return dump_many(_overlapping(table, lo, hi, email, clamp(limit)))

    @read
    def get_event(self, event_id: str) -> dict[str, Any]:
        """Get one event, with its start and end also shown in the event's time zone.

        Args:
            event_id: Event id.
        """
        event = self._event(event_id)
        return {**dump(event), "local_start": _local(event.start, event.timezone),
                "local_end": _local(event.end, event.timezone)}

    @read
    def find_events(self, query: str, limit: int = 20) -> list[dict[str, Any]]:
        """Find events by words in title, description or location.

        Args:
            query: Words that must all occur.
            limit: Maximum number of events.
        """
        table = self.world.table("calendar", "events")
        rows = table.select("start", words=("text", query), limit=clamp(limit))
        return dump_many(rows)

    @read
    def free_busy(self, people: list[str], start: str, end: str) -> dict[str, list[dict[str, str]]]:
        """Busy intervals (UTC) of each person in a window, from confirmed events they attend or organize.

        Args:
            people: Person ids or emails.
            start: Window start, ISO-8601 with offset.
            end: Window end, ISO-8601 with offset.
        """
        lo, hi = _window(start, end)
        table = self.world.table("calendar", "events")
        times = table.derived("times")
        out: dict[str, list[dict[str, str]]] = {}
        for ref in people:
            email = person_by_ref(self, ref).email
            busy = sorted((*times[e.id], e.id) for e in _overlapping(table, lo, hi, email, None))
            out[email] = [{"start": format_time(a), "end": format_time(b), "event_id": i} for a, b, i in busy]
        return out

    @write
    def create_event(
        self, title: str, start: str, end: str, attendees: list[str], timezone: str = "UTC",
        location: str = "", description: str = "",
    ) -> dict[str, Any]:
        """Create an event organized by the user and invite attendees.

        Args:
            title: Event title.
            start: Start, ISO-8601 with offset.
            end: End, ISO-8601 with offset.
            attendees: Attendee emails (must be in the directory).
            timezone: IANA time zone the event is shown in.
            location: Room or link.
            description: Agenda.
        """
        lo, hi = _window(start, end)
        _check_zone(timezone)
        emails = [person_by_ref(self, a).email for a in attendees]
        organizer = person_by_ref(self, self.world.user).email if self.world.user else "me"
        event = Event(
            id=self.world.new_id("evt", "calendar", "events"), title=title, start=format_time(lo),
            end=format_time(hi), timezone=timezone, organizer=organizer, attendees=emails,
            location=location, description=description,
        )
        self.put("events", event)
        return dump(event)

    @read
    def user_events(self, user: str, date: str) -> list[dict[str, Any]]:
        """Confirmed events starting on a day (UTC) that a person attends, found by name: the events whose attendee
        list holds `user` or an attendee entry containing it (e.g. "Mike" finds "Mike Li").

        Args:
            user: A name, or part of an attendee entry.
            date: The day, YYYY-MM-DD (UTC).
        """
        table = self.world.table("calendar", "events")
        lo = _day(date)
        _require_readable(table)
        starting = table.select("start", sets=[table.key("status").ids("confirmed")], between=(lo, lo + 86400))
        return dump_many(e for e in starting if user in e.attendees or any(user in a for a in e.attendees))

    @write
    @service_args("id_as_counted")
    def add_event(
        self, title: str, start_time: str, end_time: str, attendees: list[str] | None = None, location: str = "",
        id_as_counted: bool = False,
    ) -> dict[str, Any]:
        """Add an event as given: attendees are kept as written (names or emails, no directory lookup), and a time
        with a `Z` or an offset is stored in UTC. A time without a zone, or one that is not ISO-8601, is stored as
        written: no listing can place it, so listings fail until the event is cancelled.

        Args:
            title: Event title.
            start_time: Start, ISO-8601 (e.g. 2026-03-02T14:30:00Z).
            end_time: End, ISO-8601.
            attendees: Attendees as written (names or emails).
            location: Room or link.
            id_as_counted: Show the new event as `evt_` and the count of events held plus one even where an event
                holds that id already, as a calendar service numbering by count does after a delete (calls then
                reach the event holding it first); its record's id is the next number free.
        """
        table = self.world.table("calendar", "events")
        number = len(table) + 1  # Claw-Eval's numbering (`evt_005` after four events), skipping ids in use
        while f"evt_{number:03d}" in table:
            number += 1
        organizer = person_by_ref(self, self.world.user).email if self.world.user else "me"
        event = Event(id=f"evt_{number:03d}", title=title, start=_as_given(start_time), end=_as_given(end_time),
                      organizer=organizer, attendees=list(attendees or []), location=location,
                      shown_id=f"evt_{len(table) + 1:03d}" if id_as_counted else None)
        self.put("events", event)
        return {"status": "created", "event": dump(event)}

    @write
    def update_event(
        self, event_id: str, start: str | None = None, end: str | None = None, title: str | None = None,
        attendees: list[str] | None = None, location: str | None = None, timezone: str | None = None,
    ) -> dict[str, Any]:
        """Change an event's time, title, attendees, location or time zone.

        Args:
            event_id: Event id.
            start: New start, ISO-8601 with offset.
            end: New end, ISO-8601 with offset.
            title: New title.
            attendees: New full attendee list (emails).
            location: New location.
            timezone: New IANA time zone.
        """
        event = self._event(event_id)
        if event.status == "cancelled":
            raise ToolError(f"event {event_id!r} is cancelled and cannot be changed")
        update: dict[str, Any] = {}
        lo, hi = _window(start or event.start, end or event.end)
        if start is not None or end is not None:
            update |= {"start": format_time(lo), "end": format_time(hi)}
        if title is not None:
            update["title"] = title
        if attendees is not None:
            update["attendees"] = [person_by_ref(self, a).email for a in attendees]
        if location is not None:
            update["location"] = location
        if timezone is not None:
            update["timezone"] = _check_zone(timezone)
        updated = event.model_copy(update=update)
        self.put("events", updated)
        return dump(updated)

    @write
    @service_args("remove")
    def cancel_event(self, event_id: str, remove: bool = False) -> dict[str, Any]:
        """Cancel an event.

        Args:
            event_id: Event id.
            remove: Delete the event for good instead, as a calendar service that removes a deleted event does:
                it leaves every listing, a get or another cancel finds no such event, and its id is free again.
        """
        event = self._event(event_id)
        if remove:
            self.world.table("calendar", "events").delete(event.id)
            return {"id": event_id, "status": "deleted", "event": dump(event)}
        self.put("events", event.model_copy(update={"status": "cancelled"}))
        return {"id": event_id, "status": "cancelled"}

    def _event(self, event_id: str) -> Event:
        return self.require_shown("events", event_id, "event", "use calendar_list_events or calendar_find_events")  # type: ignore[no-any-return]


def _window(start: str, end: str) -> tuple[int, int]:
    try:
        lo, hi = parse_time(start), parse_time(end)
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    if hi <= lo:
        raise ToolError(f"end {end} is not after start {start}")
    return lo, hi


def _day(date: str) -> int:
    """A day given as YYYY-MM-DD: its 00:00 UTC in epoch seconds."""
    if len(date) != 10:
        raise ToolError(f"invalid date {date!r}: expected YYYY-MM-DD")
    try:
        return parse_time(f"{date}T00:00:00Z")
    except ValueError:
        raise ToolError(f"invalid date {date!r}: expected YYYY-MM-DD") from None


def _as_given(value: str) -> str:
    """A time with a zone in UTC (`Z`); any other text as it is (no window can place it)."""
    try:
        return format_time(parse_time(value))
    except ValueError:
        return value


def _local(value: str, timezone: str) -> str:
    """A time in a time zone; a time that cannot be read (an event added as given) as it is."""
    try:
        return local_time(parse_time(value), timezone)
    except ValueError:
        return value


def _require_readable(table: Table[Event]) -> None:
    """Fail when a confirmed event's time cannot be placed in time (a list by day cannot compare it)."""
    unplaced = table.key("unplaced").ids(True) & table.key("status").ids("confirmed")
    if unplaced:
        event = table.get(min(unplaced))
        assert event is not None
        raise ToolError(f"event {event.id!r} has a time no listing can place ({event.start!r} to {event.end!r}: "
                        "ISO-8601 with a Z or an offset is needed); cancel it with calendar_cancel_event, or fix it "
                        "with calendar_update_event")


def _check_zone(name: str) -> str:
    try:
        zone(name)
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    return name


def _overlapping(table: Table[Event], lo: int, hi: int, email: str | None, limit: int | None) -> list[Event]:
    """Confirmed events overlapping [lo, hi) (that `email` organizes or attends), by (start, id)."""
    times = table.derived("times")
    # No event is longer than the longest duration in the table, so overlapping ones start after lo - longest.
    longest: float = max((float(d) for d in table.key("duration").values()), default=0.0)  # type: ignore[arg-type]
    sets = [table.key("status").ids("confirmed"), table.key("people").ids(email) if email is not None else None]
    return table.select(
        "start", sets=sets, where=lambda e: times[e.id][0] < hi and times[e.id][1] > lo,
        between=(lo - longest, hi), limit=limit,
    )


def _times(event: Event) -> tuple[float, float]:
    """Start and end in epoch seconds, parsed once at write. An unreadable start makes the event match no window
    (listings fail, see _require_readable); an unreadable end alone places it at its start, as a listing by
    start time (Claw-Eval's) reads only the start."""
    try:
        start = parse_time(event.start)
    except ValueError:
        return float("-inf"), float("-inf")
    try:
        return start, parse_time(event.end)
    except ValueError:
        return start, start


APP = AppDef(
    "calendar", CalendarState, CalendarTools, "calendars of everyone in the directory: events and free/busy",
    indexes={
        "events": {
            "text": Words(lambda e: (e.title, e.description, e.location)),
            "status": Key(lambda e: e.status),
            "people": Key(lambda e: [e.organizer, *e.attendees], multi=True),
            "times": Derived(_times),
            "duration": Key(lambda e: max(0.0, _times(e)[1] - _times(e)[0]) if _times(e)[0] > float("-inf") else 0),
            "start": Order(lambda e: _times(e)[0]),
            "unplaced": Key(lambda e: _times(e)[0] == float("-inf")),
            "shown": Key(lambda e: e.shown_id),
        },
    },
)
