"""Calendar: events, attendees, free/busy and time zones."""

from __future__ import annotations

from typing import Any, Literal

from coworkenv.apps._common import clamp, dump, dump_many
from coworkenv.apps.directory import person_by_ref
from coworkenv.tools import ToolError, Toolkit, read, write
from coworkenv.world import (
    AppDef,
    AppState,
    Derived,
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


class CalendarState(AppState):
    events: list[Event] = []


class CalendarTools(Toolkit):
    app = "calendar"

    @read
    def list_events(self, start: str, end: str, person: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """List confirmed events overlapping a time window, optionally only those a person attends.

        Args:
            start: Window start, ISO-8601 with offset (e.g. 2026-03-02T09:00:00+01:00).
            end: Window end, ISO-8601 with offset.
            person: Person id or email; default everyone.
            limit: Maximum number of events.
        """
        lo, hi = _window(start, end)
        email = person_by_ref(self, person).email if person else None
        return dump_many(_overlapping(self.world.table("calendar", "events"), lo, hi, email, clamp(limit)))

    @read
    def get_event(self, event_id: str) -> dict[str, Any]:
        """Get one event, with its start and end also shown in the event's time zone.

        Args:
            event_id: Event id.
        """
        event = self._event(event_id)
        return {
            **dump(event),
            "local_start": local_time(parse_time(event.start), event.timezone),
            "local_end": local_time(parse_time(event.end), event.timezone),
        }

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
    def cancel_event(self, event_id: str) -> dict[str, Any]:
        """Cancel an event.

        Args:
            event_id: Event id.
        """
        event = self._event(event_id)
        self.put("events", event.model_copy(update={"status": "cancelled"}))
        return {"id": event_id, "status": "cancelled"}

    def _event(self, event_id: str) -> Event:
        return self.require("events", event_id, "event", "use calendar_list_events or calendar_find_events")  # type: ignore[no-any-return]


def _window(start: str, end: str) -> tuple[int, int]:
    try:
        lo, hi = parse_time(start), parse_time(end)
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    if hi <= lo:
        raise ToolError(f"end {end} is not after start {start}")
    return lo, hi


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
    """Start and end in epoch seconds, parsed once at write; an unreadable time makes the event match no window."""
    try:
        return parse_time(event.start), parse_time(event.end)
    except ValueError:
        return float("-inf"), float("-inf")


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
        },
    },
)
