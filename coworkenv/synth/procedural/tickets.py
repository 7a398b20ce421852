"""Ticket tasks: triage by a written policy, and turning a reported problem into ticket + reply + chat post."""

from __future__ import annotations

import re
from typing import Any

from coworkenv.spec import EnvSpec
from coworkenv.synth import pools
from coworkenv.synth.background import add_background
from coworkenv.synth.procedural._registry import register
from coworkenv.synth.procedural._task import (
    GenContext,
    Task,
    allow,
    chat_posted,
    cond,
    created_since,
    field_is,
    frame,
    is_channel,
    mentions,
    order,
    records,
    sent_mail,
)
from coworkenv.synth.world_builder import DAY, Org

_LABELS = ("outage", "security", "customer", "bug", "chore", "docs")
_TITLES = {
    "outage": "{svc} unavailable for some users",
    "security": "Secrets visible in {svc} debug output",
    "customer": "{customer} reports slow responses from {svc}",
    "bug": "{svc} rejects valid input",
    "chore": "Bump dependencies of {svc}",
    "docs": "Runbook for {svc} is out of date",
}


@register("ticket_triage_update")
def ticket_triage_update(ctx: GenContext) -> EnvSpec:
    """Assign and prioritise every untriaged ticket as the triage policy says; close duplicates."""
    org = Org(ctx.rng, ctx.difficulty, n_teams=3 + ctx.difficulty // 2)
    d = ctx.difficulty
    user = org.pick_person()
    add_background(org, user, mail=d, tickets=3 + 2 * d, files=d, chat=d)
    priorities = {
        label: ctx.pick(("p1", "p2")) if label in ("outage", "security") else ctx.pick(("p2", "p3", "p4"))
        for label in _LABELS
    }
    owners = {t.id: ctx.pick(org.members(t.id)) for t in org.working_teams()}
    policy = org.add_file(
        ctx.pick(("ops/triage.md", "support/triage-policy.md", "handbook/ticket-triage.md", "docs/queue-rules.md")),
        "\n".join(
            [
                "# Ticket triage",
                "",
                "A ticket is untriaged while it has no assignee. For each untriaged ticket:",
                "",
                "1. Assign it to the triage owner of the team that owns the ticket's service (owners: services list).",
                "2. Set its priority from its label:",
                "",
                *[f"   - {label}: {p}" for label, p in priorities.items()],
                "",
                "3. If an open ticket with the same title already exists, close the new one as a duplicate and comment",
                "   'Duplicate of <id>' instead.",
                "",
                "| team | triage owner |",
                "|---|---|",
                *[f"| {org.teams[t].name} | {p.name} |" for t, p in owners.items()],
                "",
            ]
        ),
        org.pick_person(exclude=[user.id]).id,
        at=-DAY * 30,
    )
    services = list(org.services.values())
    untriaged: list[tuple[str, str, str]] = []  # (ticket, assignee, priority)
    pairs = ctx.rng.sample([(s, label) for s in services for label in _LABELS], min(2 + d // 2, 5))
    for svc, label in pairs:  # distinct (service, label) pairs: no two untriaged tickets share a title
        title = _TITLES[label].format(svc=svc.id, customer=ctx.pick(pools.CUSTOMERS))
        tid = org.add_ticket(
            title,
            f"Reported on {svc.name}.",
            priority="p3",
            reporter=org.pick_person().id,
            service=svc.id,
            labels=[label],
            at=-ctx.rng.randrange(600, DAY),
        )
        untriaged.append((tid, owners[svc.owner_team].id, priorities[label]))
    duplicate = None
    if d >= 3:
        titles = [t["title"] for t in org.tickets]
        original = next(
            (t for t in org.tickets if t["status"] == "open" and t["assignee"] and titles.count(t["title"]) == 1), None
        )
        if original is not None:
            duplicate = (
                org.add_ticket(
                    original["title"],
                    "Same problem again?",
                    reporter=org.pick_person().id,
                    service=original["service"],
                    labels=original["labels"],
                    at=-3600,
                ),
                original["id"],
            )
    task = Task(ctx, org, user)
    task.ask(
        ctx.pick(
            (
                "Please triage the untriaged tickets following {doc}.",
                "The ticket queue needs triage: go through every ticket without an assignee and handle it the way {doc} says.",
                "Can you do today's ticket triage? The rules are in {doc}; only touch untriaged tickets.",
                "{author} updated {doc} recently. Please triage the queue by it (untriaged tickets only).",
                "I'm covering triage for {author} today. Work through the unassigned tickets as {doc} describes.",
            )
        ).format(doc=policy, author=org.people[org.files[policy]["owner"]].name)
    )
    task.read("files_read_file", path=policy)
    task.read("tickets_search", status="open", limit=100)
    task.read("services_list_services")
    for tid, owner, priority in ctx.rng.sample(untriaged, len(untriaged)):
        task.maybe("tickets_get", 0.4, ticket_id=tid)
        task.write("tickets_update", ticket_id=tid, assignee=owner, priority=priority)
        task.check(
            f"{tid}-assignee",
            f"{tid} is assigned to {org.people[owner].name}",
            field_is("tickets", "tickets", tid, "assignee", owner),
        )
        task.check(
            f"{tid}-priority",
            f"{tid} has priority {priority}",
            field_is("tickets", "tickets", tid, "priority", priority),
        )
    allowed = [allow("tickets", "tickets", tid, ["assignee", "priority", "updated_at"]) for tid, _, _ in untriaged]
    if duplicate is not None:
        dup, original_id = duplicate
        task.write("tickets_update", ticket_id=dup, status="closed")
        task.write("tickets_comment", ticket_id=dup, body=f"Duplicate of {original_id}.")
        task.check(
            "duplicate-closed",
            f"{dup} is closed as a duplicate",
            field_is("tickets", "tickets", dup, "status", "closed"),
        )
        task.check(
            "duplicate-explained",
            f"{dup} has a comment naming {original_id}",
            field_is("tickets", "tickets", dup, "comments", re.escape(original_id), "matches"),
        )
        allowed.append(allow("tickets", "tickets", dup, ["status", "comments", "updated_at"]))
    task.say(
        f"Triaged {len(untriaged)} tickets" + (f" and closed {duplicate[0]} as a duplicate." if duplicate else ".")
    )
    task.check("triaged-tickets-only", "already-triaged tickets are untouched", frame(*allowed))
    return task.build(f"Triage {len(untriaged)} tickets by {policy}", ["tickets", "triage"])


@register("mail_ticket_chat_coordination")
def mail_ticket_chat_coordination(ctx: GenContext) -> EnvSpec:
    """A mailed problem report becomes a ticket for the owning team, a reply with its id, and a team post."""
    org = Org(ctx.rng, ctx.difficulty)
    d = ctx.difficulty
    user = org.pick_person()
    reporter = org.pick_person(exclude=[user.id])
    add_background(org, user, mail=1 + d, tickets=1 + d, chat=d, events=d)
    svc = ctx.pick(list(org.services.values()))
    team = org.teams[svc.owner_team]
    lead = org.lead_of(team.id)
    customer = ctx.pick(pools.CUSTOMERS)
    priority = ctx.pick(("p1", "p2", "p3"))
    problem = ctx.pick(
        (
            "exports fail with a timeout",
            "invoices show the wrong currency",
            "logins loop back to the start page",
            "webhooks arrive twice",
            "search returns nothing for accented names",
        )
    )
    subject = f"{customer}: {problem}"
    if d >= 3:
        org.add_mail(
            reporter.email,
            [user.email],
            f"{ctx.pick(pools.CUSTOMERS)}: fixed, thanks",
            "The earlier issue is resolved, nothing to do.",
            -DAY,
        )
    mail = org.add_mail(
        reporter.email,
        [user.email],
        subject,
        f"Hi {user.first}, {customer} says {problem} in {svc.name}. Please treat it as {priority.upper()}. "
        f"Thanks, {reporter.first}",
        -ctx.rng.randrange(600, 4 * 3600),
    )
    ticket = org.next_ticket_id()
    task = Task(ctx, org, user)
    task.ask(
        ctx.pick(
            (
                "Please turn {r}'s mail about {c} into a ticket for the team that owns the service: service set, assigned "
                "to that team's lead, the priority {r} asks for, the customer name in the title. Reply to {r} with the "
                "ticket id and post the ticket id in that team's channel.",
                "{r} reported a problem for {c} by mail. File it: a ticket on the right service, owned by the owning team's "
                "lead, with {r}'s priority and the customer in the title. Then answer {r} in the thread with the ticket id, "
                "and let the owning team know in their chat channel (ticket id in the message).",
            )
        ).format(r=reporter.first, c=customer)
    )
    task.find_mail(mail, ctx.pick((customer.split()[0], reporter.email, problem.split()[0])))
    task.read("services_list_services")
    if ctx.chance(0.5):
        task.read("directory_get_team", team_id=team.id)
    else:
        task.read("directory_search", team=team.id)
    task.maybe("chat_list_channels", 0.4)
    task.write(
        "tickets_create",
        title=f"{customer}: {problem}",
        description=f"Reported by {reporter.name}: {problem}.",
        priority=priority,
        assignee=lead.id,
        service=svc.id,
    )
    writes: list[tuple[str, dict[str, Any]]] = [
        (
            "mail_send",
            {
                "to": [reporter.email],
                "subject": f"Re: {subject}",
                "in_reply_to": mail,
                "body": f"Hi {reporter.first}, filed as {ticket} for the {team.name} team.",
            },
        ),
        (
            "chat_post_message",
            {
                "channel": team.channel_name,
                "text": f"New {priority.upper()} ticket {ticket} for {svc.id}: {customer} - {problem}.",
            },
        ),
    ]
    for tool, args in ctx.rng.sample(writes, 2):
        task.write(tool, **args)
    task.say(
        f"Filed {ticket} ({priority}) on {svc.id} for {lead.name}, replied to {reporter.first} and posted in "
        f"{team.channel_name}."
    )
    task.check(
        "ticket-filed",
        f"one {priority} ticket on {svc.id} for {lead.name} naming {customer}",
        records(
            "tickets",
            "tickets",
            [
                created_since(org),
                cond("service", svc.id),
                cond("priority", priority),
                cond("assignee", lead.id),
                cond("title", customer, "contains"),
                cond("status", "open"),  # filed and left open for the team (filing and closing it is no ticket)
            ],
            count=1,
            count_op="equals",
        ),
        weight=3,
    )
    task.check(
        "ticket-describes-report",
        f"the ticket's description says what {reporter.first} reported",
        records("tickets", "tickets", [created_since(org), cond("service", svc.id),
                                       mentions("description", problem, *problem.split()[:1], reporter.name)]),
    )
    task.check(
        "reporter-answered",
        f"{reporter.name} got the ticket id in the thread",
        sent_mail(
            reporter.email,
            cond("in_reply_to", mail),
            cond("body", ticket, "contains"),
            cond("subject", subject, "contains"),
        ),
        weight=2,
    )
    task.check(
        "team-told",
        f"{team.channel_name} got the ticket id",
        chat_posted(team.channel, user.id, cond("text", ticket, "contains")),
        weight=2,
    )
    created = ("tickets_create", {"service": svc.id})
    task.check(
        "ticket-before-reply",
        "the ticket exists before the reply",
        order(created, ("mail_send", {"in_reply_to": mail})),
    )
    task.check(
        "ticket-before-post",
        "the ticket exists before the post",
        order(created, ("chat_post_message", {}), [is_channel("channel", team.channel, team.channel_name)]),
    )
    task.check(
        "nothing-else-changed",
        "only the new ticket, the reply and the post",
        frame(
            allow("tickets", "tickets", ticket),
            allow("mail", "messages", org.next_id("msg")),
            allow("mail", "messages", fields=["read"]),
            allow("chat", "messages"),
        ),
    )
    return task.build(f"Mail to ticket to chat for {customer}", ["tickets", "cross-app"])
