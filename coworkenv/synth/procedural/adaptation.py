"""Announced changes between turns: the agent finishes a request, a notification changes the world, it adapts.

Two scenarios: a booked meeting gets a new conflict in an attendee's calendar; a ticket's new owner goes on
leave and the ticket must go to their backup.
"""

from __future__ import annotations

from coworkenv.spec import EnvSpec
from coworkenv.synth import pools
from coworkenv.synth.background import add_background
from coworkenv.synth.procedural._registry import register
from coworkenv.synth.procedural._slots import GRID_S, earliest_slot
from coworkenv.synth.procedural._task import (
    GenContext,
    Task,
    allow,
    called,
    chat_posted,
    cond,
    field_is,
    frame,
    is_person,
    none_before,
    on_call,
    order,
    put,
    records,
    update,
)
from coworkenv.synth.procedural.scheduling import book, booked_rule, day_label, plan_booking
from coworkenv.synth.world_builder import DAY, Org
from coworkenv.world import format_time

_REASONS = (
    "Customer call",
    "Flight to {city}",
    "Doctor appointment",
    "Interview loop",
    "Offsite in {city}",
    "Vendor demo",
    "School pickup",
)


@register("adapt_announced_change", multi_turn=True, state_change="announced")
def adapt_announced_change(ctx: GenContext) -> EnvSpec:
    """Either scenario, chosen by the seed."""
    return _meeting_conflict(ctx) if ctx.chance(0.5) else _owner_on_leave(ctx)


def _meeting_conflict(ctx: GenContext) -> EnvSpec:
    b = plan_booking(ctx, 1 + min(ctx.difficulty, 2), room_after=2 * 3600 + 2 * GRID_S)
    org, user = b.org, b.user
    task = Task(ctx, org, user)
    names = " and ".join(p.name for p in b.attendees)
    task.ask(
        f"Book a {b.length // 60}-minute '{b.title}' with {names} on {day_label(b.day)} at the earliest slot "
        "free for all of us inside everyone's working hours (09:00-17:00 in their own time zone), shown in my "
        "time zone."
    )
    book(task, b)
    event_id = org.next_id("evt")
    task.say(f"Booked '{b.title}' at {org.local_iso(b.slot, user.timezone)}.")

    mover = ctx.pick(b.attendees)
    reason = ctx.pick(_REASONS).format(city=ctx.pick(pools.CITIES))
    c_start = b.slot - GRID_S * ctx.rng.randrange(0, 2)
    c_end = b.slot + b.length + GRID_S * ctx.rng.randrange(0, 2)
    clash = {
        "id": f"ext-{ctx.rng.randrange(1000, 9999)}",
        "title": reason,
        "start": format_time(c_start),
        "end": format_time(c_end),
        "timezone": mover.timezone,
        "organizer": mover.email,
        "attendees": [],
        "location": "",
        "description": "",
        "status": "confirmed",
    }
    org.events.append(clash)  # only to compute the new answer: the clash arrives with the second turn
    new_slot = earliest_slot(org, [user, *b.attendees], b.window, b.length)
    org.events.pop()
    if new_slot is None:  # the rest of the day is full: drop later background meetings (the booked slot stays
        # the earliest, since only events after it go) so the move has somewhere to go
        later = format_time(b.slot + b.length)
        org.events = [e for e in org.events if e["start"] < later]
        org.events.append(clash)
        new_slot = earliest_slot(org, [user, *b.attendees], b.window, b.length)
        org.events.pop()
    assert new_slot is not None, "a shared window of 3h leaves room after the clash once later meetings are gone"
    task.ask(
        ctx.pick(
            (
                "{who}'s calendar just changed and now clashes with '{title}'. Please move our meeting to the earliest slot "
                "that works for everyone (same rules as before). Move it, don't create a new one.",
                "Heads-up: {who} can't make '{title}' any more. Shift it to the first time that day that suits all of us "
                "within working hours, keeping the same event.",
            )
        ).format(who=mover.first, title=b.title),
        changes=[put("calendar", "events", clash)],
        announce=f"Calendar: {mover.name} added '{reason}' ({org.local_hhmm(c_start, mover.timezone)}-"
        f"{org.local_hhmm(c_end, mover.timezone)} {mover.timezone}).",
        advance_s=ctx.rng.randrange(5, 30) * 60,
    )
    # The move waits for the clash, which arrives only with the second turn, and a calendar event keeps no time of
    # its changes: the colleague thanks for a move made while their clash stands, so a move made in the first turn
    # (a guess of the new slot, even a right one) leaves no thanks.
    thanks = {
        "id": f"chat-thanks-{clash['id'][4:]}",
        "channel": org.dm_channel(user.id, mover.id),
        "sender": mover.id,
        "text": f"Thanks for moving '{b.title}'!",
        "ts": "$now",
    }
    task.rules.append(on_call("mover-thanks", "calendar_update_event", {"event_id": event_id},
                              [put("chat", "messages", thanks)],
                              when=[records("calendar", "events", [cond("id", clash["id"])])]))
    # The first booking is the first turn's result, and the move overwrites it: the final state cannot tell a wrong
    # first slot from the right one. While the clash is not there yet (the first turn's calendar), a calendar write
    # that leaves the meeting at the first slot has the first attendee's acceptance land in the user's inbox (mail is
    # no tool of this task: the agent cannot read it to probe slots), and one that leaves it elsewhere withdraws it.
    # The acceptance in the final state is the first turn's end state.
    accept_id = f"msg-accept-{event_id}"
    acceptance = {
        "id": accept_id,
        "thread_id": f"thr-accept-{event_id}",
        "folder": "inbox",
        "sender": b.attendees[0].email,
        "to": [user.email],
        "subject": f"Accepted: {b.title}",
        "body": f"{b.attendees[0].first} accepted the invitation.",  # no time: the world must not state the answer
        "sent_at": "$now",
        "read": False,
    }
    before_clash = records("calendar", "events", [cond("id", clash["id"])], count=0, count_op="equals")
    at_first = booked_rule(b, b.slot)
    elsewhere = {**at_first, "count": 0}
    withdraw = {"kind": "delete_record", "app": "mail", "table": "messages", "id": accept_id}
    for tool in ("calendar_create_event", "calendar_update_event"):
        task.rules.append(on_call(f"first-booking-accepted-{tool}", tool, {}, [put("mail", "messages", acceptance)],
                                  once=False, when=[before_clash, at_first]))
    for tool in ("calendar_update_event", "calendar_cancel_event"):
        task.rules.append(on_call(f"first-booking-withdrawn-{tool}", tool, {}, [withdraw],
                                  once=False, when=[before_clash, elsewhere]))
    task.maybe("calendar_get_event", 0.4, event_id=event_id)
    task.read(
        "calendar_free_busy",
        people=[p.email for p in (user, *b.attendees)],
        start=format_time(b.window[0]),
        end=format_time(b.window[1]),
    )
    task.write(
        "calendar_update_event", event_id=event_id, start=format_time(new_slot), end=format_time(new_slot + b.length)
    )
    task.say(f"Moved '{b.title}' to {org.local_iso(new_slot, user.timezone)}.")

    task.check(
        "moved-to-new-slot",
        "the meeting sits at the earliest slot free after the change",
        booked_rule(b, new_slot),
        weight=3,
    )
    task.check(
        "first-booked-at-earliest",
        "the first turn left the meeting at the earliest slot free before the change (its acceptance came and stayed)",
        records("mail", "messages", [cond("id", accept_id)], count=1, count_op="equals"),
        weight=2,
    )
    task.check(
        "not-duplicated",
        "exactly one confirmed event with the title",
        records(
            "calendar",
            "events",
            [cond("title", b.title, "contains"), cond("status", "confirmed")],
            count=1,
            count_op="equals",
        ),
    )
    task.check(
        "in-my-timezone",
        f"the event is shown in {user.timezone}",
        records("calendar", "events", [cond("title", b.title, "contains"), cond("timezone", user.timezone)]),
    )
    task.check(
        "nothing-else-changed",
        "only the booked event (and the announced clash) changed",
        frame(allow("calendar", "events", event_id), allow("calendar", "events", clash["id"]),
              allow("chat", "messages", thanks["id"]), allow("mail", "messages", accept_id)),
    )
    task.check("moved-after-clash", f"{mover.first} thanked for a move made once their clash was there",
               chat_posted(org.dm_channel(user.id, mover.id), mover.id), role="guard")
    # The world puts the clash, so the frame must allow it whole (a frame's fields allow changes, not an arrival):
    # only a guard on the record stops the agent cancelling or moving the colleague's event to make room.
    task.check("clash-kept", f"{mover.name}'s '{reason}' stays as announced", records(
        "calendar", "events", [cond("id", clash["id"]), cond("status", "confirmed"), cond("start", clash["start"]),
                               cond("end", clash["end"])]), role="guard")
    return task.build(f"Book '{b.title}', then move it after an announced clash", ["scheduling", "announced-change"])


def _owner_on_leave(ctx: GenContext) -> EnvSpec:
    org = Org(ctx.rng, ctx.difficulty, team_size=3 + ctx.difficulty)
    d = ctx.difficulty
    svc = ctx.pick(list(org.services.values()))
    team = org.teams[svc.owner_team]
    user = org.lead_of(team.id) if ctx.chance(0.5) else org.pick_person(exclude=team.members)
    add_background(org, user, mail=d, events=d, tickets=2 + 2 * d, logs=d, files=d, chat=d)
    members = [p for p in org.members(team.id) if p.id != user.id]
    owner, backup = ctx.rng.sample(members, 2)
    rows = "\n".join(
        f"| {p.name} | {org.people[q].name} |"
        for p, q in (
            (m, (members[(i + 1) % len(members)].id if m.id != owner.id else backup.id)) for i, m in enumerate(members)
        )
    )
    doc = org.add_file(
        f"docs/{team.id[2:]}/backups.md",
        f"# {team.name} backups\n\nWho covers whom when someone is away.\n\n| person | backup |\n|---|---|\n{rows}\n",
        team.lead,
    )
    ticket = org.add_ticket(
        f"{svc.name}: {ctx.pick(('migrate to the new queue', 'fix flaky retries', 'add alerting'))}",
        f"Work item on {svc.id}.",
        priority=ctx.pick(("p2", "p3")),
        assignee=user.id,
        reporter=user.id,
        service=svc.id,
    )
    task = Task(ctx, org, user)
    task.ask(
        ctx.pick(
            (
                "Please hand ticket {t} over to {o} and send {o_first} a DM with the ticket id.",
                "{o} will take {t} from me. Reassign it to them and DM them the ticket id so they know.",
            )
        ).format(t=ticket, o=owner.name, o_first=owner.first)
    )
    task.maybe("tickets_get", 0.6, ticket_id=ticket)
    task.find_person(owner)
    task.write("tickets_update", ticket_id=ticket, assignee=owner.id)
    task.write(
        "chat_send_dm", person=ctx.pick((owner.id, owner.chat_handle)), text=f"Hi {owner.first}, {ticket} is yours now."
    )
    task.say(f"{ticket} is assigned to {owner.name}; I DMed them.")
    until = org.iso(DAY * ctx.rng.randrange(7, 30))[:10]
    task.ask(
        ctx.pick(
            (
                "{o} just went on leave. Give {t} to their backup (see {doc}) and DM the backup the ticket id.",
                "Change of plan: {o} is away. Hand {t} to whoever backs them up per {doc}, and tell that person by DM.",
            )
        ).format(o=owner.first, t=ticket, doc=doc),
        changes=[update("directory", "people", owner.id, {"role": f"{owner.role} (on leave until {until})"})],
        announce=f"Directory: {owner.name} is on leave until {until}.",
        # The windows below end when the leave is announced, `announced` after the start; the agent's first turn
        # delays the announcement by its own length, so a window shorter than that turn can take lets an agent that
        # reads on, then guesses, act before the news and pass: at least 30 minutes, past the 40 messages (20 minutes
        # of clock) an episode allows.
        advance_s=(announced := max(30, ctx.rng.randrange(10, 90)) * 60),
    )
    # The hand-over to the backup waits for the news of the leave, which comes only with the second turn: the
    # ticket's last change or the backup's DM made in the first turn (a guess, even a right one) fails.
    task.check("handed-after-news", f"{ticket} was last changed only after {owner.first}'s leave was announced",
               none_before(org, announced, "tickets", "tickets", "updated_at", cond("id", ticket)), role="guard")
    task.check("backup-told-after-news", f"{backup.first} was not told before {owner.first}'s leave was announced",
               none_before(org, announced, "chat", "messages", "ts", cond("channel", org.dm_channel(user.id, backup.id)),
                           cond("sender", user.id)), role="guard")
    task.maybe("directory_get_person", 0.4, person=owner.id)
    task.read("files_read_file", path=doc)
    task.maybe("directory_search", 0.5, query=backup.name)
    task.write("tickets_update", ticket_id=ticket, assignee=backup.id)
    task.write(
        "chat_send_dm",
        person=ctx.pick((backup.id, backup.email)),
        text=f"Hi {backup.first}, you have {ticket} while {owner.first} is on leave.",
    )
    task.say(f"{ticket} now sits with {backup.name}, {owner.first}'s backup; I let them know.")

    # The owner acknowledges in the DM once the ticket is theirs: the first hand-over leaves a trace in state.
    ack = {
        "id": f"chat-ack-{ctx.rng.randrange(100, 999)}",
        "channel": org.dm_channel(user.id, owner.id),
        "sender": owner.id,
        "text": f"Got {ticket}, thanks!",
        "ts": "$now",
    }
    task.rules.append(
        on_call(
            "owner-acknowledges",
            "tickets_update",
            {"ticket_id": ticket},
            [put("chat", "messages", ack)],
            delay_s=120,
            when=[field_is("tickets", "tickets", ticket, "assignee", owner.id)],
        )
    )
    task.check(
        "owner-acknowledged",
        f"{owner.first} acknowledged the hand-over (it went to them first)",
        chat_posted(org.dm_channel(user.id, owner.id), owner.id),
    )
    task.check(
        "with-backup",
        f"{ticket} ends with {backup.name}",
        field_is("tickets", "tickets", ticket, "assignee", backup.id),
        weight=2,
    )
    task.check(
        "handed-over-twice",
        f"{ticket} was first handed to {owner.first}, then to the backup",
        called("tickets_update", {"ticket_id": ticket}, min_times=2),
    )
    task.check(
        "owner-told",
        f"{owner.name} got a DM naming {ticket}",
        chat_posted(org.dm_channel(user.id, owner.id), user.id, cond("text", ticket, "contains")),
    )
    task.check(
        "backup-told",
        f"{backup.name} got a DM naming {ticket}",
        chat_posted(org.dm_channel(user.id, backup.id), user.id, cond("text", ticket, "contains")),
    )
    for who in (owner, backup):
        task.check(
            f"{who.id}-told-after-handover",
            f"{who.first} was told after {ticket} was assigned to them",
            order(("tickets_update", {"ticket_id": ticket}), ("chat_send_dm", {}),
                  [is_person("person", who)], first_where=[is_person("assignee", who)]),
        )
    task.check(
        "nothing-else-changed",
        "only the ticket's assignee, DMs and the announced directory change",
        frame(
            allow("tickets", "tickets", ticket, ["assignee", "updated_at"]),
            allow("chat"),
            allow("directory", "people", owner.id, ["role"]),
        ),
    )
    return task.build(
        f"Hand {ticket} over, then to the backup after an announced leave", ["tickets", "announced-change"]
    )
