"""Data tasks: build a report file from workspace data and mail it; correct records that disagree with the truth."""

from __future__ import annotations

import re
from collections import Counter

from coworkenv.spec import EnvSpec
from coworkenv.synth import pools
from coworkenv.synth.background import add_background
from coworkenv.synth.procedural._registry import register
from coworkenv.synth.procedural._task import (
    GenContext,
    Task,
    Wire,
    allow,
    chat_posted,
    cond,
    field_is,
    frame,
    keys_kept,
    mentions,
    order,
    records,
    sent_mail,
)
from coworkenv.synth.procedural._wording import compose
from coworkenv.synth.world_builder import DAY, Org

_OPEN = ("open", "in_progress", "blocked")
_CATEGORIES = ("travel", "meals", "software", "hardware", "training", "office")


# Words a mail about each kind of report names its subject with (any one will do).
_SUBJECT_WORDS = {"tickets": ("ticket",), "logs": ("error", "log"), "expenses": ("expense", "spend", "categor")}


def _row_rule(path: str, lines: list[str], header: str) -> Wire:
    where = [cond("id", path), cond("content", f"^{re.escape(header)}\\r?\\n", "matches")]
    where += [cond("content", f"(?m)^{re.escape(line)}\\r?$", "matches") for line in lines]
    return records("files", "files", where, count=1, count_op="equals")


@register("report_from_data")
def report_from_data(ctx: GenContext) -> EnvSpec:
    """Aggregate tickets, log lines or an expense export into a CSV, then mail it to the user's manager."""
    org = Org(ctx.rng, ctx.difficulty)
    d = ctx.difficulty
    user = org.pick_person(exclude=[t.lead for t in org.teams.values() if t.id == "t-leadership"])
    manager = org.people[user.manager] if user.manager else org.pick_person(exclude=[user.id])
    add_background(org, user, mail=d, events=d, tickets=4 + 3 * d, logs=6 + 4 * d, files=d, chat=d)
    task = Task(ctx, org, user)
    date = org.iso(0)[:10]
    kind = ctx.pick(("tickets", "logs", "expenses"))
    if kind == "tickets":
        path, header = f"reports/open-tickets-{date}.csv", "service,open_tickets"
        counts = Counter(t["service"] for t in org.tickets if t["status"] in _OPEN)
        lines = [f"{s},{counts.get(s, 0)}" for s in sorted(org.services)]
        task.ask(
            f"Make {path}: one row per service in the services list, header '{header}', sorted by service id, "
            f"counting tickets that are open, in progress or blocked (0 where none). Mail it to {manager.name} "
            "as an attachment."
        )
        task.read("services_list_services")
        task.read("tickets_search", limit=200)
        what = "open tickets per service"
    elif kind == "logs":
        since = -3 * 3600
        for _ in range(3 + 2 * d):
            svc = ctx.pick(list(org.services.values()))
            org.add_log(svc.id, since + ctx.rng.randrange(60, -since - 60), "ERROR", "request failed", org.request_id())
        org.add_log(ctx.pick(list(org.services)), since - 600, "ERROR", "before the window", org.request_id())
        t0 = org.iso(since)
        counts = Counter(r["service"] for r in org.logs if r["level"] == "ERROR" and r["ts"] >= t0)
        path, header = f"reports/errors-{date}.csv", "service,errors"
        lines = [f"{s},{counts.get(s, 0)}" for s in sorted(org.services)]
        task.ask(
            f"Count the ERROR log lines of every service since {t0} and write {path} (header '{header}', one "
            f"row per service sorted by id, 0 where none). Mail it to {manager.name} as an attachment."
        )
        task.read("services_list_services")
        task.read("logs_search", min_level="ERROR", since=t0, limit=200)
        what = f"errors per service since {t0}"
    else:
        month = org.iso(-30 * DAY)[:7]
        export = f"finance/expenses-{month}.csv"
        rows = [
            (
                f"{month}-{ctx.rng.randrange(1, 29):02d}",
                org.pick_person().name,
                ctx.pick(_CATEGORIES),
                ctx.rng.randrange(5, 900),
            )
            for _ in range(6 + 3 * d)
        ]
        org.add_file(
            export,
            "date,employee,category,amount_eur\n" + "".join(f"{a},{b},{c},{n}\n" for a, b, c, n in rows),
            manager.id,
            at=-5 * DAY,
        )
        totals = Counter[str]()
        for _, _, cat, amount in rows:
            totals[cat] += amount
        path, header = f"reports/expenses-{month}-by-category.csv", "category,total_eur"
        lines = [f"{c},{totals[c]}" for c in sorted(totals)]
        task.ask(
            f"Sum {export} by category into {path} (header '{header}', one row per category that appears, "
            f"sorted by name, whole euros) and mail it to {manager.name} as an attachment."
        )
        task.read("files_read_file", path=export)
        what = f"expenses of {month} by category"
    task.maybe("directory_get_person", 0.7, person=ctx.pick((user.id, user.email)))
    content = header + "\n" + "".join(line + "\n" for line in lines)
    task.write("files_write_file", path=path, content=content)
    task.maybe("files_read_file", 0.3, path=path)
    task.write(
        "mail_send",
        to=[manager.email],
        subject=f"Report: {what}",
        body=f"Hi {manager.first}, attached: {what}.",
        attachments=[path],
    )
    task.say(f"Wrote {path} ({len(lines)} rows) and mailed it to {manager.name}.")
    task.check(
        "report-rows",
        f"{path} has the header and the right row for each {kind[:-1]}",
        _row_rule(path, lines, header),
        weight=3,
    )
    task.check(
        "report-mailed",
        f"{manager.name} got {path} attached",
        sent_mail(manager.email, cond("attachments", path, "contains"),
                  mentions("body", path.rsplit("/", 1)[-1], *_SUBJECT_WORDS[kind])),
        weight=2,
    )
    task.check(
        "written-before-mailed",
        "the file exists before it is mailed",
        order(("files_write_file", {"path": path}), ("mail_send", {"to": [manager.email]})),
    )
    task.check(
        "nothing-else-changed",
        "only the report and the mail are new",
        frame(
            allow("files", "files", path),
            allow("mail", "messages", org.next_id("msg")),
            allow("mail", "messages", fields=["read"]),
        ),
    )
    return task.build(f"Report: {what}", ["report", kind])


@register("correct_bad_data")
def correct_bad_data(ctx: GenContext) -> EnvSpec:
    """Fix a roster that disagrees with the directory, or service configs that break a written standard."""
    return _roster(ctx) if ctx.chance(0.5) else _config_standard(ctx)


def _roster(ctx: GenContext) -> EnvSpec:
    org = Org(ctx.rng, ctx.difficulty, team_size=3 + ctx.difficulty)
    d = ctx.difficulty
    user = org.pick_person()
    add_background(org, user, mail=d, files=d, chat=d)
    people = ctx.rng.sample([p for p in org.people.values() if p.role != "Automation"], min(len(org.people) - 1, 4 + d))
    owner = org.pick_person(exclude=[user.id])
    wrong = ctx.rng.sample(people, min(len(people), 1 + d // 2))
    path = f"ops/oncall-roster-{org.iso(0)[:7]}.csv"
    good_rows = [f"{p.name},{p.email},{p.team},{p.timezone}" for p in people]
    bad_rows = list(good_rows)
    for p in wrong:
        i = people.index(p)
        what = ctx.pick(("email", "team", "timezone"))
        email, team, tz = p.email, p.team, p.timezone
        if what == "email":
            email = f"{p.first.lower()}@old-{org.domain}"
        elif what == "team":
            team = ctx.pick([t for t in org.teams if t != p.team])
        else:
            tz = ctx.pick([z for z, _ in pools.TIMEZONES if z != p.timezone])
        bad_rows[i] = f"{p.name},{email},{team},{tz}"
    header = "name,email,team,timezone"
    org.add_file(path, header + "\n" + "".join(r + "\n" for r in bad_rows), owner.id, at=-10 * DAY)
    task = Task(ctx, org, user)
    task.ask(compose(ctx.rng, (
        "{path} has gone stale.", "I think {path} is out of date.", "Someone noticed that {path} has wrong entries.",
        "{path} no longer matches reality.", "{owner} says {path} is full of old data.",
    ), (
        "Fix every row that disagrees with the directory (email, team id, time zone), keep the rows in order,",
        "Please check it against the directory and correct the email, team and time zone columns where they are "
        "wrong (same rows, same order),",
        "Compare each row with the directory and repair the email, team id and time zone where they differ, without "
        "reordering or dropping rows,",
        "Bring the email, team and time zone columns in line with the directory, row by row, in the same order,",
    ), (
        "then DM {owner} the names of the people whose rows you fixed.", "and tell {owner} on chat whose rows changed.",
        "then send {owner} a direct message naming the people whose rows you corrected.",
        "and let {owner} know by DM which people's rows you changed.",
    ), path=path, owner=owner.name))
    task.read("files_read_file", path=path)
    if ctx.chance(0.5):
        task.read("directory_search", query="", limit=200)
    else:
        for p in people:
            task.read("directory_get_person", person=p.email)
    task.write(
        "files_write_file", path=path, content=header + "\n" + "".join(r + "\n" for r in good_rows), overwrite=True
    )
    names = ", ".join(p.name for p in wrong)
    task.maybe("files_read_file", 0.3, path=path)
    task.write("chat_send_dm", person=ctx.pick((owner.id, owner.chat_handle)), text=f"I fixed the roster rows of {names}.")
    task.say(f"Fixed {len(wrong)} row(s) in {path} ({names}) and told {owner.first}.")
    task.check(
        "roster-matches-directory",
        "every roster row matches the directory",
        _row_rule(path, good_rows, header),
        weight=3,
    )
    task.check(
        "owner-told",
        f"{owner.name} got a DM naming the fixed people",
        chat_posted(org.dm_channel(user.id, owner.id), user.id, cond("text", [p.name for p in wrong], "contains")),
    )
    task.check(
        "only-the-roster", "only the roster and chat changed", frame(allow("files", "files", path), allow("chat"))
    )
    return task.build(f"Correct {len(wrong)} stale roster row(s)", ["data-quality", "files"])


def _config_standard(ctx: GenContext) -> EnvSpec:
    org = Org(ctx.rng, ctx.difficulty, n_services=3 + ctx.difficulty)
    d = ctx.difficulty
    user = org.pick_person()
    add_background(org, user, mail=d, files=d, tickets=d, logs=d)
    key, good, bads = ctx.pick(
        (
            ("log_level", "warn", ("debug", "info", "trace")),
            ("tls_min_version", "1.2", ("1.0", "1.1")),
            ("region", "eu-west-1", ("us-east-1", "eu-central-1")),
        )
    )
    services = list(org.services.values())
    broken = ctx.rng.sample(services, min(len(services) - 1, 1 + d // 2))
    for svc in services:  # every config version carries the key; active versions of broken services violate it
        for c in svc.configs:
            c.values[key] = ctx.pick(bads) if svc in broken and c.version == svc.config_version else good
    standard = org.add_file(
        "platform/config-standards.md",
        f"# Production config standards\n\n- `{key}` must be `{good}` on every service.\n"
        "- Fix violations with a new config version whose note cites this document.\n",
        org.pick_person().id,
        at=-60 * DAY,
    )
    task = Task(ctx, org, user)
    task.ask(compose(ctx.rng, (
        "Audit every service's active config against {doc}.", "Some services drift from {doc}.",
        "Our config standard is {doc}, and not every service follows it.",
        "I suspect a few services break the rules in {doc}.", "Please review the services against {doc}.",
    ), (
        "Fix the ones that break it.",
        "Bring each non-compliant service's active config in line (new config version, note citing the standard).",
        "Correct the active config of every service that violates it.",
        "Where a service's active config breaks the standard, update it (new config version, note citing the "
        "standard).",
    ), (
        "Don't touch compliant services.", "Leave the rest alone.", "Services that already comply stay as they are.",
        "Nothing else should change.",
    ), doc=standard))
    task.read("files_read_file", path=standard)
    task.read("services_list_services")
    allowed: list[Wire] = []
    for svc in ctx.rng.sample(services, len(services)):
        task.read("services_get_config", service=svc.id)
    for svc in ctx.rng.sample(broken, len(broken)):
        version = max(c.version for c in svc.configs) + 1
        task.write("services_update_config", service=svc.id, changes={key: good}, note=f"comply with {standard}")
        task.maybe("services_get_service", 0.3, service=svc.id)
        task.check(
            f"{svc.id}-fixed",
            f"{svc.id} runs a new config with {key}={good}",
            field_is("services", "services", svc.id, "config_version", version),
        )
        task.check(
            f"{svc.id}-value",
            f"config {svc.id}@{version} sets {key}={good} and cites the standard",
            records(
                "services",
                "configs",
                [cond("id", f"{svc.id}@{version}"), cond(f"values.{key}", good), cond("note", standard, "contains")],
            ),
        )
        allowed += [
            allow("services", "services", svc.id, ["config_version"]),
            allow("services", "configs", f"{svc.id}@{version}"),
        ]
        # The new version is allowed whole (a frame allows a record's arrival only whole): guard its other keys.
        current = next(c for c in svc.configs if c.version == svc.config_version).values
        task.check(f"{svc.id}-other-config-kept", f"the new config of {svc.id} keeps every other key",
                   keys_kept("services", "configs", f"{svc.id}@{version}", "values",
                             {k: v for k, v in current.items() if k != key}), role="guard")
    task.say(f"Fixed {', '.join(s.id for s in broken)}: {key} is now {good}.")
    task.check("compliant-untouched", "compliant services are untouched", frame(*allowed))
    return task.build(f"Bring {len(broken)} service config(s) in line with the standard", ["data-quality", "services"])
