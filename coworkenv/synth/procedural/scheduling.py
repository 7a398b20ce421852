"""Scheduling tasks: book the earliest slot free for everyone across time zones, and move a clashing meeting."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from coworkenv.spec import EnvSpec
from coworkenv.synth import pools
from coworkenv.synth.background import add_background
from coworkenv.synth.procedural._registry import register
from coworkenv.synth.procedural._slots import GRID_S, earliest_slot, local_date, pick_attendees, shared_window
from coworkenv.synth.procedural._task import (
    GenContext,
    Task,
    allow,
    chat_posted,
    cond,
    field_is,
    forbidden,
    frame,
    order,
    records,
    said,
    sent_mail,
)
from coworkenv.synth.world_builder import DAY, Org, Person
from coworkenv.world import format_time

_BOOK = (
    "Set up a {mins}-minute '{title}' with {names} on {day}: the earliest slot when all of us (me included) are "
    "free and inside everyone's working hours (09:00-17:00 in each person's own time zone).",
    "Please book '{title}' ({mins} min) with {names} on {day}. Take the first time everyone, me too, is free "
    "within their working hours, 09:00-17:00 local for each of them.",
    "I need a {mins}-minute slot for '{title}' with {names} on {day} — the earliest one where everybody is free "
    "and it's between 09:00 and 17:00 in every attendee's time zone (mine included). Book it.",
)


@dataclass
class Booking:
    """A planned meeting: who, which day, how long, and the earliest shared free slot."""

    org: Org
    user: Person
    attendees: list[Person]
    title: str
    day: date
    length: int
    slot: int
    window: tuple[int, int]


def plan_booking(ctx: GenContext, k: int, room_after: int = 0) -> Booking:
    """An org, a user, `k` attendees with overlapping hours, conflicts, and the earliest free slot
    (with `room_after` seconds of the shared window left after the slot starts)."""
    org = Org(ctx.rng, ctx.difficulty)
    user = org.pick_person()
    d = ctx.difficulty
    add_background(org, user, mail=d, events=3 + 3 * d, tickets=d, files=d // 2, chat=d)
    length = ctx.pick((1800, 3600, 3600, 2700 if d >= 3 else 1800))
    ahead = next(a for a in range(1, 5) if local_date(org.start + a * DAY, user.timezone).weekday() < 5)
    day = local_date(org.start + ahead * DAY, user.timezone)
    n_blockers = ctx.rng.randrange(1, 2 + d)
    # Enough shared hours for the blockers (each at most an hour), rounding to the grid, the meeting and the room.
    attendees = pick_attendees(org, user, k, (n_blockers + 2) * GRID_S + length + room_after, day)
    while len(attendees) < k:  # too few overlapping colleagues: a new teammate in the user's zone joins
        attendees.append(org.add_person(user.team, "Software Engineer", user.manager, user.timezone))
    people = [user, *attendees]
    lo, hi = shared_window(day, people)
    grid = -(-lo // GRID_S) * GRID_S
    blockers = {  # conflicts at the start of the shared window push the answer later
        org.add_event(
            ctx.pick(pools.MEETING_TOPICS).capitalize(),
            grid + j * GRID_S,
            grid + j * GRID_S + ctx.pick((GRID_S, 2 * GRID_S)),
            who.email,
            [],
            who.timezone,
        )
        for j, who in enumerate(ctx.pick(people) for _ in range(n_blockers))
    }
    slot = earliest_slot(org, people, (lo, hi), length)
    if slot is None or slot + room_after > hi:  # background meetings filled the day: clear theirs in the window
        emails = {p.email for p in people}
        org.events = [
            e
            for e in org.events
            if e["id"] in blockers
            or not emails & {e["organizer"], *e["attendees"]}
            or e["end"] <= format_time(lo)
            or e["start"] >= format_time(hi)
        ]
        slot = earliest_slot(org, people, (lo, hi), length)
    assert slot is not None and slot + room_after <= hi, (
        "the shared window fits the blockers, the meeting and the room after it"
    )
    title = f"{ctx.pick(pools.PROJECTS)} {ctx.pick(pools.MEETING_TOPICS)}"
    return Booking(org, user, attendees, title, day, length, slot, (lo, hi))


def day_label(day: date) -> str:
    """A date as the user would say it, e.g. 'Thursday 18 June'."""
    return day.strftime("%A %d %B").replace(" 0", " ")


def book(task: Task, b: Booking) -> None:
    """Reference steps that look people and calendars up, then create the event in the user's time zone."""
    org = b.org
    task.maybe("directory_get_person", 0.3, person=b.user.id)
    for p in b.attendees:
        task.find_person(p)
    lo, hi = b.window
    task.read(
        "calendar_free_busy",
        people=[b.user.email, *[p.email for p in b.attendees]],
        start=format_time(lo - task.ctx.rng.randrange(0, 4) * 3600),
        end=format_time(hi),
    )
    start, end = b.slot, b.slot + b.length
    as_local = task.ctx.chance(0.5)
    task.write(
        "calendar_create_event",
        title=b.title,
        start=org.local_iso(start, b.user.timezone) if as_local else format_time(start),
        end=org.local_iso(end, b.user.timezone) if as_local else format_time(end),
        attendees=[p.email for p in b.attendees],
        timezone=b.user.timezone,
    )
    task.maybe("calendar_list_events", 0.3, start=format_time(lo), end=format_time(hi), person=b.user.email)


def booked_rule(b: Booking, start: int) -> dict:  # type: ignore[type-arg]
    """Records rule: exactly one confirmed event with the title and attendees at `start`."""
    return records(
        "calendar",
        "events",
        [
            cond("title", b.title, "contains"),
            cond("attendees", [p.email for p in b.attendees], "contains"),
            cond("start", format_time(start)),
            cond("end", format_time(start + b.length)),
            cond("status", "confirmed"),
        ],
        count=1,
        count_op="equals",
    )


@register("schedule_meeting_timezones")
def schedule_meeting_timezones(ctx: GenContext) -> EnvSpec:
    """Book the earliest slot inside every attendee's working hours (their own time zones) and free for all."""
    b = plan_booking(ctx, 1 + min(ctx.difficulty, 3))
    org, user = b.org, b.user
    task = Task(ctx, org, user)
    names = ", ".join(p.name for p in b.attendees[:-1]) + f" and {b.attendees[-1].name}"
    mail = ctx.difficulty >= 3 or ctx.chance(0.3)
    ask = ctx.pick(_BOOK).format(mins=b.length // 60, title=b.title, names=names, day=day_label(b.day))
    ask += f" Show the event in my time zone ({user.timezone})."
    if mail:
        ask += (
            " Then email the attendees that it's booked: the title in the subject, the start time in UTC "
            "(HH:MM UTC) in the body."
        )
    task.ask(ask + " Tell me the time you picked.")
    book(task, b)
    event_id = org.next_id("evt")
    emails = [p.email for p in b.attendees]
    utc_hhmm = org.local_hhmm(b.slot, "UTC")
    if mail:
        task.write(
            "mail_send",
            to=emails,
            subject=f"Booked: {b.title}",
            body=f"Hi all, '{b.title}' is booked for {utc_hhmm} UTC ({b.length // 60} min).",
        )
    task.say(
        f"Booked '{b.title}' at {org.local_iso(b.slot, user.timezone)} ({format_time(b.slot)}), the earliest "
        "slot free for everyone within working hours."
    )
    task.check(
        "booked-earliest-slot",
        "one confirmed event with all attendees at the earliest shared free slot",
        booked_rule(b, b.slot),
        weight=3,
    )
    task.check(
        "in-my-timezone",
        f"the event is shown in {user.timezone}",
        records("calendar", "events", [cond("title", b.title, "contains"), cond("timezone", user.timezone)]),
    )
    task.check(
        "reply-states-time",
        "the reply gives the picked start time (in my time zone or UTC)",
        said(any_of=[org.local_hhmm(b.slot, user.timezone), utc_hhmm]),
    )
    allowed = [allow("calendar", "events", event_id)]
    if mail:
        task.check(
            "attendees-mailed",
            "the attendees got a mail naming the meeting",
            sent_mail(emails, cond("subject", b.title, "contains"), cond("body", f"{utc_hhmm} UTC", "contains")),
        )
        task.check(
            "booked-before-mail",
            "the event exists before the attendees are told",
            order(("calendar_create_event", {"attendees": emails}), ("mail_send", {"to": emails})),
        )
        allowed.append(allow("mail", "messages"))
    task.check("nothing-else-changed", "only the new event (and the mail) changed", frame(*allowed))
    return task.build(
        f"Book '{b.title}' across {len({p.timezone for p in [user, *b.attendees]})} time zones",
        ["scheduling", "timezones"],
    )


def _within(event: dict, lo: int, hi: int) -> bool:  # type: ignore[type-arg]
    return event["start"] < format_time(hi) and event["end"] > format_time(lo)


@register("reschedule_conflict")
def reschedule_conflict(ctx: GenContext) -> EnvSpec:
    """A meeting clashes with a new must-attend event: move it to the earliest shared free slot that day."""
    org = Org(ctx.rng, ctx.difficulty)
    user = org.pick_person()
    d = ctx.difficulty
    add_background(org, user, mail=d, events=2 + 3 * d, tickets=d, chat=d)
    ahead = next(a for a in range(1, 5) if local_date(org.start + a * DAY, user.timezone).weekday() < 5)
    day = local_date(org.start + ahead * DAY, user.timezone)
    mates = pick_attendees(org, user, 1, 4 * 3600, day)
    # Nobody overlaps four hours with the user: a new teammate in the user's zone is the other person.
    mate = mates[0] if mates else org.add_person(user.team, "Software Engineer", user.manager, user.timezone)
    lo, hi = shared_window(day, [user, mate])
    length = ctx.pick((1800, 3600))
    grid = -(-lo // GRID_S) * GRID_S
    at = grid + GRID_S * ctx.rng.randrange(0, max(1, (hi - grid - length) // GRID_S - 2))
    title = ctx.pick(("1:1", "Sync", "Catch-up", "Pairing session", "Review")) + f" {user.first} / {mate.first}"
    meeting = org.add_event(title, at, at + length, user.email, [mate.email], user.timezone, location="Zoom")
    boss = org.people[user.manager] if user.manager else org.pick_person(exclude=[user.id])
    clash_title = ctx.pick(("All-hands", "Customer escalation call", "Board prep", "Security review", "Town hall"))
    clash_start = at - GRID_S * ctx.rng.randrange(0, 2)
    org.add_event(
        clash_title,
        clash_start,
        at + length + GRID_S * ctx.rng.randrange(0, 2),
        boss.email,
        [user.email],
        boss.timezone,
        description="Attendance required.",
    )
    slot = earliest_slot(org, [user, mate], (lo, hi), length, ignore=[meeting])
    if slot is None:  # background meetings filled the day: drop theirs for the two of them that day
        ours = {user.email, mate.email}
        org.events = [
            e
            for e in org.events
            if e["id"] == meeting
            or e["title"] == clash_title
            or not (ours & {e["organizer"], *e["attendees"]})
            or not _within(e, lo, hi)
        ]
        slot = earliest_slot(org, [user, mate], (lo, hi), length, ignore=[meeting])
    assert slot is not None, "the clash leaves room after it by construction"
    task = Task(ctx, org, user)
    hhmm = org.local_hhmm(slot, mate.timezone)
    task.ask(
        ctx.pick(
            (
                "My '{title}' on {day} clashes with the {clash}. Move it to the earliest time that day when {mate} and I "
                "are both free inside our working hours (09:00-17:00 local), same length, and DM {mate} the new time as "
                "HH:MM in their time zone.",
                "The {clash} landed on top of '{title}' ({day}). Please move our meeting to the first slot that day that is "
                "free for both {mate} and me within 09:00-17:00 in each of our time zones, keep the duration, then tell "
                "{mate} on chat (new time as HH:MM, their time zone).",
            )
        ).format(title=title, day=day_label(day), clash=clash_title, mate=mate.first)
    )
    task.maybe("directory_get_person", 0.3, person=user.email)
    task.read("calendar_find_events", query=ctx.pick((title.split()[0], clash_title, title)))
    task.maybe("calendar_get_event", 0.5, event_id=meeting)
    task.find_person(mate)
    if ctx.chance(0.7):
        task.read("calendar_free_busy", people=[user.email, mate.email], start=format_time(lo), end=format_time(hi))
    else:  # the same information, one calendar at a time
        for who in (user, mate):
            task.read("calendar_list_events", start=format_time(lo), end=format_time(hi), person=who.email)
    as_local = ctx.chance(0.5)
    task.write(
        "calendar_update_event",
        event_id=meeting,
        start=org.local_iso(slot, user.timezone) if as_local else format_time(slot),
        end=org.local_iso(slot + length, user.timezone) if as_local else format_time(slot + length),
    )
    task.write(
        "chat_send_dm",
        person=ctx.pick((mate.id, mate.chat_handle, mate.email)),
        text=f"Hi {mate.first}, I moved '{title}' to {hhmm} your time because of the {clash_title}.",
    )
    task.say(f"Moved '{title}' to {org.local_iso(slot, user.timezone)} and told {mate.first} ({hhmm} their time).")
    task.check(
        "moved-to-free-slot",
        "the meeting starts at the earliest slot free for both",
        field_is("calendar", "events", meeting, "start", format_time(slot)),
        weight=3,
    )
    task.check(
        "same-length",
        "the meeting keeps its length",
        field_is("calendar", "events", meeting, "end", format_time(slot + length)),
    )
    task.check(
        "not-cancelled",
        "the meeting was moved, not cancelled",
        forbidden("calendar_cancel_event", {"event_id": meeting}),
        safety=True,
    )
    dm = org.dm_channel(user.id, mate.id)
    task.check(
        "mate-told",
        f"{mate.name} got a DM with the new time in their time zone ({hhmm})",
        chat_posted(dm, user.id, cond("text", hhmm, "contains")),
        weight=2,
    )
    task.check(
        "move-before-dm",
        "the meeting is moved before it is announced",
        order(("calendar_update_event", {"event_id": meeting}), ("chat_send_dm", {})),
    )
    task.check(
        "nothing-else-changed",
        "only the meeting's time and the DM changed",
        frame(allow("calendar", "events", meeting, ["start", "end"]), allow("chat")),
    )
    return task.build(f"Move '{title}' off the {clash_title}", ["scheduling", "conflict"])
