"""Lookup tasks: answer a colleague's question from the right source and say where the answer came from.

Sources are a document in the shared drive (with an outdated copy as a trap) or the active config of a service
(whose latest version is not the active one after a rollback).
"""

from __future__ import annotations

from coworkenv.apps.services import ConfigVersion
from coworkenv.spec import EnvSpec
from coworkenv.synth.background import add_background
from coworkenv.synth.procedural._facts import add_stale_copy, make_fact
from coworkenv.synth.procedural._registry import register
from coworkenv.synth.procedural._task import (
    GenContext,
    Task,
    allow,
    chat_posted,
    cond,
    frame,
    reply_states,
)
from coworkenv.synth.procedural._wording import compose
from coworkenv.synth.world_builder import DAY, Org, Person


@register("lookup_answer_source")
def lookup_answer_source(ctx: GenContext) -> EnvSpec:
    """A colleague asks on chat; the agent answers in the DM citing its source, and tells the user."""
    org = Org(ctx.rng, ctx.difficulty)
    user = org.pick_person()
    asker = org.pick_person(exclude=[user.id])
    d = ctx.difficulty
    add_background(org, user, mail=d, files=1 + d, chat=1 + d, tickets=d, logs=d)
    dm = org.dm_channel(user.id, asker.id)
    org.channels.append(
        {"id": dm, "name": f"@{asker.chat_handle}", "members": sorted([user.id, asker.id]), "topic": "", "is_dm": True}
    )
    task = Task(ctx, org, user)
    if ctx.chance(0.5):
        _from_document(ctx, task, org, user, asker, dm)
    else:
        _from_config(ctx, task, org, user, asker, dm)
    return task.build(f"Answer {asker.first} from the right source", ["lookup", "cite-source"])


def _ask(ctx: GenContext, org: Org, user: Person, asker: Person, dm: str, question: str) -> None:
    org.add_chat(dm, asker.id, f"Hi {user.first}, {question}", -ctx.rng.randrange(300, 3 * 3600))


def _from_document(ctx: GenContext, task: Task, org: Org, user: Person, asker: Person, dm: str) -> None:
    fact = make_fact(org, org.pick_person(exclude=[asker.id]), 3 + ctx.difficulty)
    stale_path, stale = add_stale_copy(org, fact)
    _ask(ctx, org, user, asker, dm, fact.question)
    task.ask(compose(ctx.rng, (
        "{asker} asked me something on chat.", "Can you answer {asker}'s chat question for me?",
        "There is a question from {asker} waiting in our DM.", "{asker} pinged me with a question.",
    ), (
        "Find the answer in our documents (the current ones),", "Use the up-to-date document, not an old copy,",
        "Look it up in the shared drive, in the current version of the document,",
        "The answer is in our files; make sure you use the latest document,",
    ), (
        "reply to them in that DM and cite the document path you used.",
        "reply in our DM with the answer and the file path as the source.",
        "answer {asker} in the DM and name the file you took it from.",
    ), (
        "Tell me the answer and the source too.", "Let me know what you said and where it came from.",
        "Tell me what you answered and which file it came from.",
    ), asker=asker.first))
    task.maybe("chat_list_channels", 0.4)
    task.read("chat_read_channel", channel=dm)
    if ctx.chance(0.6):
        task.read("files_search_files", query=fact.key)
    else:
        task.read("files_list_files", prefix=fact.doc.path.split("/")[0] + "/")
    if ctx.chance(0.5):
        task.read("files_read_file", path=stale_path)
    task.read("files_read_file", path=fact.doc.path)
    text = f"The {fact.column} for {fact.key} is {fact.value} (source: {fact.doc.path})."
    task.write("chat_send_dm", person=ctx.pick((asker.id, asker.chat_handle)), text=text)
    task.say(f"I told {asker.first}: {text} The {stale_path} copy is outdated.")
    extra = [cond("text", stale, "not_contains")] if stale not in text else []
    task.check(
        "answered-with-source",
        f"{asker.name} got {fact.value} with the source {fact.doc.path} in the DM",
        chat_posted(dm, user.id, cond("text", fact.value, "contains"), cond("text", fact.doc.path, "contains"), *extra),
        weight=3,
    )
    task.check(
        "source-stated",
        "the reply to the user names the current document",
        reply_states("files", "files", fact.doc.path, "id", turn=0),
    )
    task.check("only-the-dm", "nothing but the chat changed", frame(allow("chat")))


def _from_config(ctx: GenContext, task: Task, org: Org, user: Person, asker: Person, dm: str) -> None:
    svc = ctx.pick(list(org.services.values()))
    key = ctx.pick([k for k, v in svc.values.items() if isinstance(v, int) and v >= 10] or list(svc.values))
    active = svc.values[key]
    # A newer config version was rolled back: it is the latest in the history, but not the active one.
    stale = active
    while str(stale) in str(active) or str(active) in str(stale):
        stale = int(active * ctx.pick((2, 3, 4))) + ctx.rng.randrange(1, 9)
    version = max(c.version for c in svc.configs) + 1
    svc.configs.append(
        ConfigVersion(
            id=f"{svc.id}@{version}",
            service=svc.id,
            version=version,
            values={**svc.values, key: stale},
            author=org.pick_person().id,
            created_at=org.iso(-DAY * ctx.rng.randrange(1, 5)),
            note="trial, rolled back",
        )
    )
    active_id = f"{svc.id}@{svc.config_version}"
    _ask(ctx, org, user, asker, dm, f"what is {key} of {svc.name} ({svc.id}) in production right now?")
    task.ask(compose(ctx.rng, (
        "{asker} asked me about a production setting of {svc} on chat.", "Please answer {asker}'s chat question about {svc}.",
        "{asker} wants to know how {svc} is configured; the question is in our DM.",
        "There is a config question about {svc} from {asker} in my DMs.",
    ), (
        "Look up the value the service is running with now,", "Use the active value, not just the newest config,",
        "Find the value in the config version that is active right now (not the latest draft),",
    ), (
        "answer them in the DM and cite the config version id (like {svc}@N) it comes from.",
        "reply in our DM with the value and its config version id ({svc}@N).",
        "and answer {asker} in the DM, citing the config version id ({svc}@N).",
    ), (
        "Tell me too.", "Tell me what you found.", "Tell me the value as well.",
    ), asker=asker.first, svc=svc.id))
    task.maybe("chat_list_channels", 0.4)
    task.read("chat_read_channel", channel=dm)
    task.maybe("services_list_services", 0.3)
    task.read("services_get_service", service=svc.id)
    if ctx.chance(0.5):
        task.read("services_config_history", service=svc.id)
    task.read("services_get_config", service=svc.id)
    text = f"{svc.id} runs {key}={active} (source: config {active_id}; {svc.id}@{version} was rolled back)."
    task.write("chat_send_dm", person=ctx.pick((asker.id, asker.email)), text=text)
    task.say(f"I answered {asker.first}: {key} is {active}, from the active config {active_id}.")
    extra = [cond("text", str(stale), "not_contains")] if str(stale) not in text else []
    task.check(
        "answered-with-source",
        f"{asker.name} got {key}={active} citing {active_id}",
        chat_posted(dm, user.id, cond("text", str(active), "contains"), cond("text", active_id, "contains"), *extra),
        weight=3,
    )
    task.check(
        "value-stated",
        "the reply to the user states the active value (read from the active config)",
        reply_states("services", "configs", active_id, f"values.{key}", turn=0),
    )
    task.check(
        "source-stated",
        "the reply to the user names the active config version",
        reply_states("services", "configs", active_id, "id", turn=0),
    )
    task.check("only-the-dm", "nothing but the chat changed", frame(allow("chat")))
