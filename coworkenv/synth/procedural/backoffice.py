"""Back-office tasks over the productivity apps: pause failing jobs and record it in the config store, restock a
store by the knowledge base's policy, audit watched web pages into to-dos.

Each is multi-step: ids, versions, quantities, status codes and times read from one tool feed the next call.
"""

from __future__ import annotations

from coworkenv.spec import EnvSpec
from coworkenv.synth import pools
from coworkenv.synth.background import add_background
from coworkenv.synth.procedural._registry import register
from coworkenv.synth.procedural._task import (
    GenContext,
    Task,
    Wire,
    allow,
    cond,
    field_is,
    frame,
    records,
    reply_states,
    said,
)
from coworkenv.synth.procedural._wording import compose
from coworkenv.synth.procedural._workspace import JOB_KINDS, PRODUCTS, WEB_PATHS, Workspace


def _words(*all_of: str | list[str]) -> Wire:
    """Text rule: the final reply of the first turn has every term (a list: one of its alternatives) as whole words."""
    return {**said(*all_of), "words": True}


_CONFIG_KEYS = ("ops/paused-jobs", "scheduler/paused", "ops/jobs-on-hold", "runbook/paused-jobs")


@register("scheduler_pause_failing_jobs")
def scheduler_pause_failing_jobs(ctx: GenContext) -> EnvSpec:
    """Disable a service's enabled jobs whose last run failed, record them in the config store, report last runs."""
    d = ctx.difficulty
    org = Workspace(ctx.rng, d)
    svc = ctx.pick(list(org.services.values()))
    stem = svc.id.removeprefix("svc-")
    user = org.pick_person(team=svc.owner_team)
    add_background(org, user, mail=d, chat=d)
    kinds = ctx.rng.sample(JOB_KINDS, 3 + d)
    n_fail = 1 + (d >= 3)
    targets: list[tuple[str, str, str]] = []  # (job id, name, last run)
    for k, (kind, command) in enumerate(kinds):
        name = f"{stem}-{kind}"
        last = -ctx.rng.randrange(600, 2 * 86400)
        if k < n_fail:
            jid = org.add_job(name, command, user.id, "failed", last)
            targets.append((jid, name, org.iso(last)))
        elif k == n_fail:  # failed too, but already disabled: stays as it is
            org.add_job(name, command, user.id, "failed", last, enabled=False)
        elif k == n_fail + 1:  # another service's failing job
            other = ctx.pick([s for s in org.services if s != svc.id]).removeprefix("svc-")
            org.add_job(f"{other}-{kind}", command, org.pick_person().id, "failed", last)
        else:
            org.add_job(name, command, user.id, ctx.pick(("ok", "ok", "never")), last)
    key = ctx.pick(_CONFIG_KEYS)
    old = [f"{ctx.pick(list(org.services)).removeprefix('svc-')}-{kind}" for kind, _ in ctx.rng.sample(JOB_KINDS, 2)]
    history = [",".join(sorted(old[:1])), ",".join(sorted(old))][: 1 + ctx.rng.randrange(2)]
    org.add_config(key, history, org.pick_person().id)
    for other_key in ctx.rng.sample(("billing/retry-limit", "search/page-size", "mail/digest-hour", "ui/theme"), 2):
        org.add_config(other_key, [str(ctx.rng.randrange(2, 60))], org.pick_person().id)
    version = len(history)
    value = ",".join(sorted(name for _, name, _ in targets))
    task = Task(ctx, org, user)
    task.ask(compose(ctx.rng, (
        "The scheduled jobs of {svc} keep failing.", "Some {svc} jobs in the scheduler are broken.",
        "We keep getting alerts from the {svc} jobs.", "The {svc} scheduler jobs are misbehaving again.",
    ), (
        "Disable each enabled {svc} job whose last run failed (leave the others alone),",
        "Please pause every {svc} job that is enabled and failed on its last run, and only those,",
        "Switch off the enabled {svc} jobs whose most recent run failed (no other job),",
        "Turn off every {svc} job that is still enabled but failed last time it ran,",
    ), (
        "then set the config key {key} to their names, comma-separated in alphabetical order, replacing its value "
        "(pass the version you read).",
        "and write their names (sorted, joined by commas) into {key} in the config store, based on the version you "
        "read.",
        "then record their names in the config entry {key}: alphabetical, comma-separated, replacing what is there, "
        "with the version you read.",
    ), (
        "Tell me when each of them last ran.", "Then tell me their last run times.",
        "Tell me the last run time of each job you paused.", "Tell me when each one last ran.",
    ), svc=stem, key=key))
    task.read("scheduler_list_jobs", **ctx.pick(({"query": stem}, {"last_status": "failed"}, {})))
    for jid, _, _ in targets:
        task.maybe("scheduler_get_job", 0.5, job_id=jid)
        task.write("scheduler_update_job", job_id=jid, enabled=False)
    task.read("config_get", key=key)
    task.maybe("config_history", 0.3, key=key)
    task.write("config_set", key=key, value=value, expected_version=version)
    task.say("Paused " + "; ".join(f"{name} (last run {last})" for _, name, last in targets) + f". {key} is now {value}.")
    for jid, name, _ in targets:
        task.check(f"paused-{jid}", f"{name} is disabled", field_is("scheduler", "jobs", jid, "enabled", False), weight=2)
        task.check(f"last-run-{jid}", f"the reply gives {name}'s last run", reply_states("scheduler", "jobs", jid,
                                                                                           "last_run"))
    task.check("recorded", f"{key} is {value}", field_is("config", "entries", key, "value", value), weight=2)
    task.check("only-those", "only those jobs and the config store changed",
               frame(*(allow("scheduler", "jobs", jid, ["enabled"]) for jid, _, _ in targets),
                     allow("config", "entries", key), allow("config", "revisions", where=[cond("key", key)])),
               weight=0.5)
    return task.build(f"Pause failing {stem} jobs", ["scheduler", "config-store", "compare-and-set"])


@register("inventory_restock_policy")
def inventory_restock_policy(ctx: GenContext) -> EnvSpec:
    """Restock one store's low items from the warehouse up to the level the published KB policy names."""
    d = ctx.difficulty
    org = Workspace(ctx.rng, d)
    user = org.pick_person()
    add_background(org, user, mail=d, files=1)
    cities = ctx.rng.sample(pools.CITIES, 3)
    wh, store, other = (f"wh-{cities[0].lower().replace(' ', '')}", f"store-{cities[1].lower().replace(' ', '')}",
                        f"store-{cities[2].lower().replace(' ', '')}")
    for loc, kind, city in ((wh, "warehouse", cities[0]), (store, "store", cities[1]), (other, "store", cities[2])):
        org.add("inventory", "locations", {"id": loc, "name": f"{city} {kind}", "kind": kind})
    factor, trap = ctx.rng.sample((2, 3, 4), 2)
    low: list[tuple[str, int, int]] = []  # (sku, quantity, target)
    for k, (name, code) in enumerate(ctx.rng.sample(PRODUCTS, 3 + d)):
        sku = f"{code}-{ctx.rng.randrange(10, 99)}"
        level = ctx.rng.randrange(4, 20)
        qty = ctx.rng.randrange(0, level) if k < 1 + d // 2 else ctx.rng.randrange(level, 3 * level)
        if qty < level:
            low.append((sku, qty, factor * level))
        for loc, q in ((store, qty), (other, ctx.rng.randrange(0, 2 * level)), (wh, 5 * level + ctx.rng.randrange(50))):
            org.add("inventory", "items", {"id": f"{sku}@{loc}", "sku": sku, "name": name, "location": loc,
                                           "quantity": q, "reorder_level": level if loc != wh else 0, "unit": "pcs"})
    author = org.pick_person().id
    policy = org.add_article(
        "Store restocking policy",
        f"When a store item's quantity is below its reorder level, transfer units from the warehouse {wh} so the store "
        f"holds {factor} times the reorder level. Do not restock items at or above their reorder level.",
        "operations", author)
    org.add_article("Restocking policy (proposal)", f"Proposal: restock stores to {trap} times the reorder level.",
                    "operations", author, status="draft")
    org.add_article("Returns handling", "Damaged returns go to quarantine; adjust stock with reason 'damaged'.",
                    "operations", author)
    task = Task(ctx, org, user)
    task.ask(ctx.pick((
        "Restock the {store} store following our published restocking policy in the knowledge base. Tell me what you moved.",
        "Our {store} shop is low on some items. Apply the restocking policy from the KB (the published one) and report.",
    )).format(store=cities[1]))
    task.read("kb_search", query=ctx.pick(("restocking policy", "restock", "restocking")))
    task.read("kb_get_article", article_id=policy)
    task.maybe("inventory_list_locations", 0.6)
    task.read("inventory_search_items", location=store, below_reorder=True)
    wh_after = {r["sku"]: r["quantity"] for r in org.rows("inventory", "items") if r["location"] == wh}
    for sku, qty, target in low:
        task.write("inventory_transfer", item_id=f"{sku}@{wh}", to_location=store, quantity=target - qty)
        wh_after[sku] -= target - qty
    task.say("Moved " + ", ".join(f"{target - qty} x {sku}" for sku, qty, target in low) + f" from {wh} to {store}.")
    for sku, _, target in low:
        task.check(f"restocked-{sku}", f"{sku} at {store} holds {target}",
                   field_is("inventory", "items", f"{sku}@{store}", "quantity", target), weight=2)
        task.check(f"from-{sku}", f"the units came from {wh}",
                   field_is("inventory", "items", f"{sku}@{wh}", "quantity", wh_after[sku]))
    names = {r["sku"]: r["name"] for r in org.rows("inventory", "items")}
    task.check("reply-moves", "the reply names each item restocked and how many units moved",
               _words(*([sku, names[sku]] for sku, _, _ in low), *(str(target - qty) for _, qty, target in low)))
    moved = {f"{sku}@{loc}" for sku, _, _ in low for loc in (wh, store)}
    task.check("only-low-items", "no other stock changed",
               frame(*(allow("inventory", "items", i, ["quantity"]) for i in sorted(moved)),
                     allow("inventory", "movements")), weight=0.5)
    return task.build(f"Restock {cities[1]} by policy", ["inventory", "knowledge-base", "policy"])


@register("web_page_audit")
def web_page_audit(ctx: GenContext) -> EnvSpec:
    """Fetch every URL a note lists; each page not answering 200 becomes a to-do naming the URL and status."""
    d = ctx.difficulty
    org = Workspace(ctx.rng, d)
    user = org.pick_person()
    add_background(org, user, mail=d, chat=1)
    hosts = [f"https://www.{org.domain}", f"https://docs.{org.domain}", f"https://shop.{org.domain}"]
    urls = [f"{ctx.pick(hosts)}/{path}" for path in ctx.rng.sample(WEB_PATHS, 4 + d)]
    broken: list[tuple[str, int]] = []
    for k, url in enumerate(urls):
        title = url.rsplit("/", 1)[-1].replace("-", " ").capitalize()
        if k < 1 + d // 2:
            status = ctx.pick((404, 410, 500, 502, 503, 301))
            broken.append((url, status))
            if status == 404 and ctx.chance(0.5):
                continue  # not there at all: fetch answers 404 too
            org.add_page(url, title, "", status, location=f"{hosts[0]}/" if status == 301 else None)
        else:
            org.add_page(url, title, f"{title} of {org.company}. {org.business}.")
    order = list(urls)
    ctx.rng.shuffle(order)
    note_title = ctx.pick(("Pages to watch", "Site check list", "URLs to monitor", "Web pages I own"))
    note = org.add_note(note_title, "\n".join(order), ["web", "monitoring"])
    org.add_note("Ideas", "Refresh the pricing page copy.", ["ideas"])
    lists = {name: org.add_list(name, user.id) for name in ctx.rng.sample(("Website", "Fixes", "Ops", "Later"), 2)}
    target_name, target = next(iter(lists.items()))
    task = Task(ctx, org, user)
    task.ask(compose(ctx.rng, (
        "Check every page listed in my note '{note}'.",
        "Please go through the URLs in my '{note}' note and fetch each one.",
        "My note '{note}' lists some of our web pages; open each of them.",
        "Could you visit every URL in the '{note}' note?",
        "Run through the links saved in '{note}' and load every page.",
    ), (
        "For each one that does not answer HTTP 200, add a task to my '{lst}' list with the URL and the status code in "
        "the title.",
        "Any page that isn't a 200 gets one task in '{lst}', naming the URL and its status code.",
        "Whenever a page answers with anything but 200, put a to-do on my '{lst}' list whose title has the URL and "
        "the status.",
        "Log each broken page (anything other than HTTP 200) as a task in '{lst}', URL and status code in the title.",
    ), (
        "Tell me how many are broken.", "Then tell me the count.", "Tell me how many pages failed and which ones.",
        "At the end, tell me how many are broken.", "Tell me the number of broken pages when you are done.",
    ), note=note_title, lst=target_name))
    tool, args = ctx.pick((("notes_list_notes", {}), ("notes_search_notes", {"query": note_title.split()[0]})))
    task.read(tool, **args)
    task.read("notes_read_note", note_id=note)
    for url in order:
        task.read("web_fetch", url=url)
    task.read("todo_list_lists")
    for url, status in broken:
        task.write("todo_add_task", list_id=target, title=f"Fix {url} (HTTP {status})")
    task.say(f"{len(broken)} of {len(urls)} pages are broken: " + ", ".join(f"{u} {s}" for u, s in broken))
    for url, status in broken:
        task.check(f"task-{url}", f"one task in {target_name} for {url} with {status}",
                   # left open to be done: a task added and ticked off at once is no task to fix the page
                   records("todo", "tasks", [cond("list_id", target), cond("title", url, "contains"),
                                             cond("title", str(status), "contains"), cond("done", False)],
                           count=1, count_op="equals"),
                   weight=2)
    task.check("reply-count", f"the reply counts {len(broken)} broken pages and names them with their status",
               {**_words(*(url.removeprefix("https://") for url, _ in broken), *(str(st) for _, st in broken)),
                "number": {"value": len(broken)}})
    task.check("only-broken", f"exactly {len(broken)} new tasks",
               records("todo", "tasks", [cond("created_at", org.iso(0), "gte")], count=len(broken), count_op="equals"))
    task.check("only-todo", f"only tasks of {target_name} changed",
               frame(allow("todo", "tasks", where=[cond("list_id", target)])), weight=0.5)
    return task.build("Audit watched web pages", ["web", "http-status", "notes", "todo"])
