"""Distractor records: the ordinary traffic of a workplace around the records a task is about.

Distractors make a task a search problem (the agent must find the right mail, ticket or log line) and make
over-eager agents fail frame checks. Generators add them before computing answers, so answers hold with them.
"""

from __future__ import annotations

from coworkenv.synth import pools
from coworkenv.synth.world_builder import DAY, Org, Person

_FYI = (
    (
        "Notes from the {topic}",
        "Hi {first}, notes from today's {topic} are in the shared drive. Nothing needed from you.",
    ),
    ("Lunch on Friday?", "Hey {first}, a few of us are going for lunch on Friday, join if you like."),
    ("Slides for {project}", "Sharing the {project} slides for reference; no action needed."),
    ("Out of office next week", "Hi all, I'm out next week; {other} covers for me."),
    ("Re: {topic}", "Thanks, that works for me. Let's keep the {topic} as planned."),
    ("Team offsite photos", "Photos from the offsite in {city} are up. Enjoy!"),
)
_NEWS = (
    "Your weekly digest",
    "New features this month",
    "Webinar: scaling {project}",
    "Invoice available",
    "Security advisory roundup",
    "5 tips for better on-call",
    "Build #{n} passed",
    "Your trip to {city}",
)
_TICKETS = (
    ("Upgrade {svc} client library", "chore"),
    ("Flaky integration test in {svc}", "bug"),
    ("Add metrics dashboard for {svc}", "observability"),
    ("Document {svc} runbook", "docs"),
    ("{svc}: slow responses for large accounts", "customer"),
    ("Rotate credentials used by {svc}", "security"),
    ("Clean up unused config keys in {svc}", "chore"),
    ("{svc} returns 500 on empty payload", "bug"),
)
_LOGS = (
    ("INFO", "GET /health 200"),
    ("INFO", "request ok in {ms}ms"),
    ("DEBUG", "cache hit ratio 0.{r}"),
    ("INFO", "worker pool size {n}"),
    ("WARN", "slow request: {ms}ms"),
    ("INFO", "config reloaded"),
)
_CHAT = (
    "Morning all!",
    "Reminder: retro at 15:00.",
    "Can someone review my PR?",
    "Deploy train leaves at 14:00.",
    "The {project} demo went well, thanks everyone.",
    "Heads-up: I'm on a train, slow replies today.",
)


def add_background(
    org: Org,
    user: Person,
    *,
    mail: int = 0,
    events: int = 0,
    tickets: int = 0,
    logs: int = 0,
    files: int = 0,
    chat: int = 0,
) -> None:
    """Add distractor records of each kind (counts are upper bounds; some kinds need services or people)."""
    rng = org.rng
    people = [p for p in org.people.values() if p.role != "Automation"]
    for _ in range(mail):
        slots = {
            "first": user.first,
            "topic": rng.choice(pools.MEETING_TOPICS),
            "project": rng.choice(pools.PROJECTS),
            "city": rng.choice(pools.CITIES),
            "n": rng.randrange(1000, 9999),
            "other": rng.choice(people).name,
        }
        if rng.random() < 0.45:
            vendor, address = rng.choice(pools.VENDORS)
            org.add_mail(
                address,
                [user.email],
                f"{vendor}: " + rng.choice(_NEWS).format(**slots),
                f"{vendor} update for {user.name}.",
                -rng.randrange(3600, 5 * DAY),
                read=rng.random() < 0.5,
            )
        else:
            sender = rng.choice([p for p in people if p.id != user.id])
            subject, body = rng.choice(_FYI)
            org.add_mail(
                sender.email,
                [user.email],
                subject.format(**slots),
                body.format(**slots),
                -rng.randrange(3600, 4 * DAY),
                read=rng.random() < 0.6,
            )
    for _ in range(events):
        who = rng.sample(people, min(len(people), rng.randrange(2, 4)))
        day = rng.randrange(0, 4)
        begin = org.day_start(day) + rng.randrange(6, 17) * 3600 + rng.choice((0, 1800))
        length = rng.choice((1800, 1800, 3600))
        org.add_event(
            rng.choice(pools.MEETING_TOPICS).capitalize(),
            begin,
            begin + length,
            who[0].email,
            [p.email for p in who[1:]],
            who[0].timezone,
            location=rng.choice(("Zoom", "Room 2.1", "")),
        )
    services = list(org.services.values())
    for _ in range(tickets if services else 0):
        svc = rng.choice(services)
        title, label = rng.choice(_TICKETS)
        status = rng.choice(("open", "in_progress", "blocked", "resolved", "closed"))
        assignee = rng.choice(org.teams[svc.owner_team].members)
        org.add_ticket(
            title.format(svc=svc.id),
            f"Tracking work on {svc.name}.",
            status,
            rng.choice(("p2", "p3", "p3", "p4")),
            assignee,
            rng.choice(people).id,
            svc.id,
            [label],
            at=-rng.randrange(DAY, 30 * DAY),
        )
    for _ in range(logs if services else 0):
        svc = rng.choice(services)
        level, text = rng.choice(_LOGS)
        org.add_log(
            svc.id,
            -rng.randrange(600, 4 * 3600),
            level,
            text.format(ms=rng.randrange(40, 900), r=rng.randrange(10, 99), n=rng.randrange(4, 64)),
            org.request_id() if "request" in text else "",
        )
    for _ in range(files):
        team = rng.choice(org.working_teams())
        topic = rng.choice(pools.MEETING_TOPICS)
        path = f"notes/{team.id[2:]}/{topic.replace(' ', '-')}-{rng.randrange(1, 52):02d}.md"
        org.add_file(
            path,
            f"# {topic.capitalize()}\n\nAttendees: {team.name} team.\nDecisions: none recorded.\n",
            team.lead,
            at=-rng.randrange(DAY, 60 * DAY),
        )
    channels = [c for c in org.channels if not c["is_dm"]]
    for _ in range(chat):
        channel = rng.choice(channels)
        poster: str = rng.choice(channel["members"]) if channel["members"] else user.id
        org.add_chat(
            channel["id"],
            poster,
            rng.choice(_CHAT).format(project=rng.choice(pools.PROJECTS)),
            -rng.randrange(600, 2 * DAY),
        )
