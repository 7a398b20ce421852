"""Delegation and follow-up: hand a ticket to a colleague, ask them on chat, and act on their delayed answer."""

from __future__ import annotations

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
    field_is,
    frame,
    is_person,
    none_before,
    on_call,
    order,
    put,
    records,
    said,
)
from coworkenv.synth.world_builder import DAY, Org


@register("delegate_and_follow_up", multi_turn=True)
def delegate_and_follow_up(ctx: GenContext) -> EnvSpec:
    """Turn 1: reassign and ask by DM. The colleague answers later (accepts, or declines and names someone).
    Turn 2: act on that answer."""
    org = Org(ctx.rng, ctx.difficulty, team_size=3 + ctx.difficulty)
    d = ctx.difficulty
    svc = ctx.pick(list(org.services.values()))
    team = org.teams[svc.owner_team]
    user = org.lead_of(team.id)
    add_background(org, user, mail=d, events=d, tickets=2 + d, chat=1 + d)
    delegate, suggested = ctx.rng.sample([p for p in org.members(team.id) if p.id != user.id], 2)
    ticket = org.add_ticket(
        f"{svc.name}: {ctx.pick(('add retries to the client', 'migrate the cron jobs', 'split the config'))}",
        f"Work on {svc.id}.",
        priority=ctx.pick(("p2", "p3")),
        assignee=user.id,
        reporter=user.id,
        service=svc.id,
        at=-DAY * ctx.rng.randrange(1, 10),
    )
    due = org.iso(DAY * ctx.rng.randrange(2, 9))[:10]
    accepts = ctx.chance(0.5)
    dm = org.dm_channel(user.id, delegate.id)
    answer = (
        f"Yes, I can take {ticket}, I'll have it done by {due}."
        if accepts
        else f"Sorry, I'm on {ctx.pick(pools.PROJECTS)} until {due}. {suggested.name} knows {svc.id} well, ask them?"
    )
    reply = {
        "id": f"chat-reply-{ctx.rng.randrange(100, 999)}",
        "channel": dm,
        "sender": delegate.id,
        "text": answer,
        "ts": "$now",
    }
    delay = 60 * ctx.rng.randrange(5, 40)
    # The colleague answers once the ticket is theirs and they have been asked (state, whatever the DM's wording).
    task = Task(ctx, org, user)
    # Two triggers so the order of assigning and asking does not matter; the state test lets only one fire.
    ready = [
        field_is("tickets", "tickets", ticket, "assignee", delegate.id),
        records("chat", "messages", [cond("channel", dm), cond("sender", user.id)]),
    ]
    for rule_id, tool, args in (
        ("answers-after-dm", "chat_send_dm", {}),
        ("answers-after-assign", "tickets_update", {"ticket_id": ticket}),
    ):
        task.rules.append(on_call(rule_id, tool, args, [put("chat", "messages", reply)], delay_s=delay, when=ready))
    task.ask(
        ctx.pick(
            (
                "Please delegate {t} to {p}: assign it to them and ask them in a DM (with the ticket id) whether they can "
                "pick it up by {due}.",
                "I'd like {p} to take {t}. Reassign it and DM them to check they can do it by {due} — mention the ticket id.",
            )
        ).format(t=ticket, p=delegate.name, due=due)
    )
    task.maybe("tickets_get", 0.5, ticket_id=ticket)
    task.find_person(delegate)
    task.write("tickets_update", ticket_id=ticket, assignee=delegate.id)
    task.write(
        "chat_send_dm",
        person=ctx.pick((delegate.id, delegate.chat_handle, delegate.email)),
        text=f"Hi {delegate.first}, I assigned {ticket} to you. Can you pick it up by {due}?",
    )
    task.say(f"Assigned {ticket} to {delegate.name} and asked them by DM.")
    task.ask(
        ctx.pick(
            (
                "Did {p} get back to you? If they took it, set {t} to in progress. If they can't, hand it to whoever they "
                "suggest and ask that person the same way.",
                "Any answer from {p} about {t}? Act on it: accepted means the ticket goes in progress; declined means it "
                "goes to the person they recommend, who gets the same DM.",
            )
        ).format(p=delegate.first, t=ticket),
        advance_s=(answered := delay + 60 * ctx.rng.randrange(5, 60)),
    )
    # What happens next waits for the delegate's answer, which comes only with the second turn: the ticket's last
    # change (in progress, or handed on) made in the first turn (a guess, even a right one) fails.
    task.check("acted-after-answer", f"{ticket} was last changed only after {delegate.first} answered",
               none_before(org, answered, "tickets", "tickets", "updated_at", cond("id", ticket)), role="guard")
    task.maybe("chat_list_channels", 0.4)
    task.read("chat_read_channel", channel=dm)
    if accepts:
        task.write("tickets_update", ticket_id=ticket, status="in_progress")
        task.say(f"{delegate.first} accepted; {ticket} is in progress (due {due}).")
        task.check(
            "in-progress",
            f"{ticket} is in progress",
            field_is("tickets", "tickets", ticket, "status", "in_progress"),
            weight=2,
        )
        task.check(
            "reply-says-accepted",
            f"the reply says {delegate.first} took {ticket}",
            # The user's own question names both outcomes: the reply must not state the other one.
            {**said(ticket, ["accepted", "accepts", "agreed", "took", "will pick", "in progress", "yes"], turn=1),
             "none_of": ["declined", "can't"]},
        )
        task.check(
            "in-progress-after-asking",
            f"{ticket} goes in progress only after {delegate.first} was asked",
            order(("chat_send_dm", {}), ("tickets_update", {"ticket_id": ticket, "status": "in_progress"}),
                  first_where=[is_person("person", delegate)]),
        )
        task.check(
            "stays-with-delegate",
            f"{ticket} stays with {delegate.name}",
            field_is("tickets", "tickets", ticket, "assignee", delegate.id),
        )
    else:
        task.find_person(suggested)
        task.write("tickets_update", ticket_id=ticket, assignee=suggested.id)
        task.write(
            "chat_send_dm",
            person=ctx.pick((suggested.id, suggested.chat_handle)),
            text=f"Hi {suggested.first}, {delegate.first} suggested you for {ticket}. Can you pick it up by {due}?",
        )
        task.say(
            f"{delegate.first} declined and suggested {suggested.name}; {ticket} is with them now and I asked them."
        )
        task.check(
            "with-suggested",
            f"{ticket} went to {suggested.name}",
            field_is("tickets", "tickets", ticket, "assignee", suggested.id),
            weight=2,
        )
        task.check("suggested-asked-after-answer", f"{suggested.first} was not asked before {delegate.first} answered",
                   none_before(org, answered, "chat", "messages", "ts",
                               cond("channel", org.dm_channel(user.id, suggested.id)), cond("sender", user.id)),
                   role="guard")
        task.check(
            "suggested-asked",
            f"{suggested.name} got a DM naming {ticket}",
            chat_posted(org.dm_channel(user.id, suggested.id), user.id, cond("text", ticket, "contains")),
        )
        task.check(
            "reply-names-new-owner",
            f"the reply says {ticket} went to {suggested.name}",
            said(ticket, suggested.name, turn=1),  # the full name: a first name hides inside other words
        )
        task.check(
            "suggested-asked-after-assignment",
            f"{suggested.first} was asked after {ticket} was assigned to them",
            order(("tickets_update", {"ticket_id": ticket}), ("chat_send_dm", {}),
                  [is_person("person", suggested)], first_where=[is_person("assignee", suggested)]),
        )
        task.check(
            "still-open",
            f"{ticket} stays open until someone accepts",
            field_is("tickets", "tickets", ticket, "status", "open"),
        )
    task.check(
        "delegate-asked",
        f"{delegate.name} got a DM naming {ticket}",
        chat_posted(dm, user.id, cond("text", ticket, "contains")),
    )
    task.check(
        "delegate-asked-after-assignment",
        f"{delegate.first} was asked after {ticket} was assigned to them",
        order(("tickets_update", {"ticket_id": ticket}), ("chat_send_dm", {}),
              [is_person("person", delegate)], first_where=[is_person("assignee", delegate)]),
    )
    task.check(
        "delegate-answered",
        f"{delegate.first} answered (only after the ticket was theirs and they were asked)",
        chat_posted(dm, delegate.id),
    )
    task.check(
        "nothing-else-changed",
        "only the ticket and chat changed",
        frame(allow("tickets", "tickets", ticket, ["assignee", "status", "updated_at"]), allow("chat")),
    )
    return task.build(
        f"Delegate {ticket} and follow up ({'accepted' if accepts else 'declined'})",
        ["delegation", "follow-up", "delayed-reply"],
    )
