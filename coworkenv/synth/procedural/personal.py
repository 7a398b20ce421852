"""Personal organisation tasks: turn requests in the inbox into dated to-dos, keep external contacts current.

Arguments come from earlier results: the list id from todo_list_lists, message ids from the inbox, deadlines
written in the sender's time zone (stored in UTC), the contact id whose email matches the sender.
"""

from __future__ import annotations

import re

from coworkenv.spec import EnvSpec
from coworkenv.synth import pools
from coworkenv.synth.background import add_background
from coworkenv.synth.procedural._registry import register
from coworkenv.synth.procedural._task import (
    GenContext,
    Task,
    allow,
    cond,
    field_is,
    frame,
    order,
    records,
    said,
    sent_mail,
)
from coworkenv.synth.procedural._wording import compose
from coworkenv.synth.procedural._workspace import DELIVERABLES, Workspace
from coworkenv.synth.world_builder import Person
from coworkenv.world import format_time

_LISTS = ("Follow-ups", "This week", "Work", "Requests", "Inbox zero", "Action items")
_ASKS = (
    ("{d} by {due}?", "Hi {first}, could you send me the {d} by {due}? Thanks, {sender}"),
    ("Need the {d}", "Hi {first}, I need the {d} from you. Deadline: {due}. Cheers, {sender}"),
    ("Request: {d}", "{first}, please prepare the {d}; it is due {due}. {sender}"),
)


def _deadline(ctx: GenContext, org: Workspace, user: str, clocks: set[str]) -> tuple[Person, int, str]:
    """A requester and a deadline (UTC seconds, written in their zone) not in UTC at that moment, whose written
    and UTC date-and-clock differ from those of every other request (`clocks`, updated), so one mail's
    wall-clock deadline never reads as another's stored due."""
    for _ in range(50):
        due_t = org.day_start(ctx.rng.randrange(1, 8)) + ctx.rng.choice((10, 12, 15, 17)) * 3600
        utc = format_time(due_t)[:16]
        away = [p.id for p in org.people.values() if p.id != user and p.role != "Automation"
                and not org.local_iso(due_t, p.timezone).endswith("+00:00")]
        if not away:
            continue
        sender = org.people[ctx.pick(away)]
        written = org.local_iso(due_t, sender.timezone)
        if utc not in clocks and written[:16] not in clocks:
            clocks.update((utc, written[:16]))
            return sender, due_t, written
    raise ValueError(f"seed {ctx.seed}: no requester outside UTC with a deadline distinct from {sorted(clocks)}; "
                     "the org needs people in more time zones")


@register("todo_track_mail_requests")
def todo_track_mail_requests(ctx: GenContext) -> EnvSpec:
    """Every request mail with a deadline becomes one dated task in the named list, and the mail gets a label."""
    d = ctx.difficulty
    org = Workspace(ctx.rng, d)
    user = org.pick_person()
    add_background(org, user, mail=1 + d, events=d, files=1)
    names = ctx.rng.sample(_LISTS, 2 + d // 2)
    lists = {name: org.add_list(name, user.id) for name in names}
    target_name = names[0]
    target = lists[target_name]
    label = ctx.pick(("tracked", "todo", "follow-up", "in-list"))
    deliverables = ctx.rng.sample(DELIVERABLES, 2 + (d + 1) // 2)
    requests: list[tuple[str, str, str, str]] = []  # (message id, deliverable, due as written, due in UTC)
    clocks: set[str] = set()  # every date and clock time written in a request or expected in UTC
    for k, deliverable in enumerate(deliverables):
        sender, due_t, written = _deadline(ctx, org, user.id, clocks)
        subject, body = ctx.pick(_ASKS)
        fill = {"d": deliverable, "due": written, "first": user.first, "sender": sender.first}
        tracked = k == len(deliverables) - 1 and d >= 2  # already on the list: must not be added twice
        mid = org.add_mail(sender.email, [user.email], subject.format(**fill), body.format(**fill),
                           -ctx.rng.randrange(600, 4 * 86400), read=tracked, )
        if tracked:
            org.messages[-1]["labels"] = [label]
            org.add_task(target, f"{deliverable} for {sender.first}", due_t)
        else:
            requests.append((mid, deliverable, written, format_time(due_t)))
    for name, list_id in lists.items():  # ordinary tasks on every list
        for _ in range(ctx.rng.randrange(1, 3)):
            org.add_task(list_id, f"{ctx.pick(DELIVERABLES)} ({name.lower()})", org.day_start(ctx.rng.randrange(-3, 9)),
                         done=ctx.chance(0.3))
    task = Task(ctx, org, user)
    task.ask(compose(ctx.rng, (
        "Go through my inbox: every request someone sent me with a deadline should be a task in my '{lst}' list, due "
        "at that deadline.",
        "Please turn the mails asking me for something by a date into tasks on my '{lst}' to-do list, due when they "
        "asked.",
        "People have been mailing me requests with deadlines; give each one a task in '{lst}' with the due date they "
        "asked for.",
        "Each mail in my inbox that asks me to deliver something by a deadline needs a matching to-do in my '{lst}' "
        "list, due at that deadline.",
    ), (
        "Label each of those mails '{label}'.", "Tag those mails with the label '{label}'.",
        "Put the label '{label}' on every such mail.", "Mark the mails you handled with the '{label}' label.",
    ), (
        "Skip what is already labelled.", "Don't duplicate ones already labelled '{label}'.",
        "Mails already carrying '{label}' are done; leave them.", "Anything labelled '{label}' is already tracked.",
    ), (
        "Tell me what you added.", "Then list what you added.", "Tell me which tasks you created.",
        "Summarise the new tasks for me.",
    ), lst=target_name, label=label))
    task.read("todo_list_lists")
    task.read("mail_list_messages", limit=50)
    for mid, deliverable, written, _ in requests:
        task.read("mail_read_message", message_id=mid)
        task.write("todo_add_task", list_id=target, title=f"{deliverable} ({mid})", due=written)
    task.write("mail_label", message_ids=[r[0] for r in requests], add=[label])
    task.maybe("todo_list_tasks", 0.4, list_id=target)
    task.say(f"Added {len(requests)} tasks to {target_name}: " + "; ".join(f"{dl} due {utc}" for _, dl, _, utc in requests))
    for mid, deliverable, _, utc in requests:
        task.check(
            f"task-{mid}", f"one task for the {deliverable} in {target_name}, due {utc}",
            # left open to track the request: a task added and ticked off at once tracks nothing
            records("todo", "tasks", [cond("list_id", target), cond("title", deliverable, "contains"), cond("due", utc),
                                      cond("done", False)], count=1, count_op="equals"),
            weight=2,
        )
        task.check(f"label-{mid}", f"{mid} is labelled {label}", field_is("mail", "messages", mid, "labels", label,
                                                                         "contains"))
    task.check("reply-lists-tasks", "the reply names every task added", said(*(dl for _, dl, _, _ in requests)))
    task.check("no-extra-tasks", f"exactly {len(requests)} new tasks",
               records("todo", "tasks", [cond("created_at", org.iso(0), "gte")], count=len(requests),
                       count_op="equals"))
    task.check("only-tasks-and-labels", "only tasks and mail labels changed",
               # New tasks only: ticking off or editing a task the user already had is not asked for. Labels on the
               # handled mails only: the label on another mail says it is tracked when no task was added for it.
               frame(allow("todo", "tasks", where=[cond("created_at", org.iso(0), "gte")]),
                     *(allow("mail", "messages", mid, fields=["labels"]) for mid, _, _, _ in requests)), weight=0.5)
    return task.build("Track mailed requests as dated to-dos", ["todo", "mail-labels", "due-dates", "time-zones"])


def _phone_pattern(number: str) -> str:
    """A pattern for `number` however its digit groups are separated (spaces, dots, dashes, brackets or none)."""
    groups = re.findall(r"\d+", number)
    return r"(?<!\d)" + r"[\s.\-()/]*".join(groups) + r"(?!\d)"


@register("contact_phone_update")
def contact_phone_update(ctx: GenContext) -> EnvSpec:
    """A customer mails a new phone number: update the right contact (namesakes exist) and confirm by reply."""
    d = ctx.difficulty
    org = Workspace(ctx.rng, d)
    user = org.pick_person()
    add_background(org, user, mail=1 + d, files=1)
    companies = ctx.rng.sample(pools.CUSTOMERS, 3 + d)
    first, last = ctx.pick(pools.FIRST_NAMES), ctx.pick(pools.LAST_NAMES)

    def phone() -> str:
        return f"+{ctx.rng.randrange(30, 50)} {ctx.rng.randrange(600, 700)} {ctx.rng.randrange(100, 1000)} " \
               f"{ctx.rng.randrange(100, 1000)}"

    def email(f: str, company: str) -> str:
        return f"{f.lower()}.{last.lower()}@{company.split()[0].lower()}.example"

    old, new = phone(), phone()
    ids = []
    for k, company in enumerate(companies):
        f = first if k < 1 + min(d, 2) else ctx.pick(pools.FIRST_NAMES)  # namesakes at other companies
        ids.append(org.add_contact(f"{f} {last}", company, email(f, company), phone() if k else old))
    shuffled = list(range(len(ids)))
    ctx.rng.shuffle(shuffled)
    org.extra["contacts"]["contacts"] = [org.extra["contacts"]["contacts"][i] for i in shuffled]
    cid, company, address = ids[0], companies[0], email(first, companies[0])
    mid = org.add_mail(address, [user.email], ctx.pick(("New phone number", "Updated contact details", "My number changed")),
                       f"Hello {user.first},\n\nplease note my new phone number: {new} (the old one, {old}, stops "
                       f"working this week).\n\nBest,\n{first} {last}\n{company}", -ctx.rng.randrange(600, 86400 * 2))
    task = Task(ctx, org, user)
    task.ask(ctx.pick((
        "{first} {last} from {company} mailed me a new phone number. Update their contact and reply to confirm.",
        "Please handle the mail from {first} {last} ({company}) about their phone: fix the contact card and answer them.",
    )).format(first=first, last=last, company=company))
    task.find_mail(mid, f"{first} {last}" if ctx.chance(0.5) else "phone")
    task.read("contacts_search", query=ctx.pick((f"{first} {last}", last, company)))
    task.maybe("contacts_get", 0.5, contact_id=cid)
    task.write("contacts_update", contact_id=cid, phone=new, add_note=f"phone changed per mail {mid}")
    task.write("mail_send", to=[address], subject="Re: your new phone number", in_reply_to=mid,
               body=f"Hello {first}, thanks, I have updated your number to {new}.")
    task.say(f"Updated {first} {last} ({company}, {cid}) to {new} and confirmed by mail.")
    task.check("phone-updated", f"{cid} has the phone {new}", field_is("contacts", "contacts", cid, "phone", new), weight=2)
    task.check("confirmed", f"a reply to {address} in the thread confirming {new}",
               sent_mail(address, cond("in_reply_to", mid), cond("body", _phone_pattern(new), "matches")), weight=2)
    task.check("updated-first", "the contact is updated before the reply says it is",
               order(("contacts_update", {"contact_id": cid}), ("mail_send", {"in_reply_to": mid})))
    task.check("only-that-contact", "no other contact changed, only mail sent",
               frame(allow("contacts", "contacts", cid, ["phone", "notes", "updated_at"]), allow("mail")),
               weight=0.5)
    return task.build(f"Update {first} {last}'s phone", ["contacts", "namesakes", "reply"])
