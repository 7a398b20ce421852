"""Plain-language descriptions of tool calls: what a call sets out to do, what a read found, what a write did.

The oracle teacher's messages are built from these, from the actual arguments and results of its calls and the
names in the world's directory, so its transcripts read like an assistant narrating its work.
"""

from __future__ import annotations

import csv
import io
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import orjson
from pydantic import ValidationError

from coworkenv.apps import TOOLS
from coworkenv.tools import ToolError
from coworkenv.world import World

Args = dict[str, Any]
_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


class Phrasing:
    """Shared helpers: names from the directory, counts, lists, times; `rng` picks among equivalent phrasings.
    `declared`: the tools the env's spec declares (`tool_decls`), which may carry a built-in tool's name and answer
    in any shape; every other tool with a phrasing is the built-in one, answered by its app."""

    def __init__(self, world: World, rng: random.Random, declared: frozenset[str] = frozenset()) -> None:
        self.world = world
        self.rng = rng
        self.declared = declared

    def person(self, ref: Any) -> str:
        if not isinstance(ref, str) or not ref:
            return "someone"
        people = self.world.table("directory", "people")
        found = people.get(ref)
        if found is None:
            found = next((p for p in people if p.email.lower() == ref.lower() or p.chat_handle == ref.lstrip("@")),
                         None)
        return str(found.name) if found is not None else ref

    def people(self, refs: Any) -> str:
        return join([self.person(r) for r in refs or []]) or "nobody"

    def count(self, n: int, noun: str) -> str:
        word = _NUMBERS[n] if n < len(_NUMBERS) else str(n)
        return f"{word} {noun}{'' if n == 1 else 's'}"

    def found(self, n: int, noun: str) -> str:
        what = self.count(n, noun)
        return self.rng.choice((f"Found {what}", f"There {'is' if n == 1 else 'are'} {what}",
                                f"That returned {what}", f"I got back {what}"))

    def nothing(self, noun: str) -> str:
        return self.rng.choice((f"No {noun}s matched.", f"That came back empty: no {noun}s.",
                                f"There were no {noun}s."))


def join(items: list[str], total: int | None = None) -> str:
    """'a', 'a and b', 'a, b and c'; with `total` above the list length, '..., and N more'."""
    items = [i for i in items if i]
    more = (total or len(items)) - len(items)
    if more > 0:
        items = [*items, f"{more} more"]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def quote(text: Any, limit: int = 90) -> str:
    line = " ".join(str(text or "").split())
    return f'"{line if len(line) <= limit else line[: limit - 3].rstrip() + "..."}"'


def when(ts: Any) -> str:
    """'2026-03-02T08:15:31Z' as '2026-03-02 08:15 UTC'."""
    text = str(ts or "")
    if "T" not in text:
        return text
    day, clock = text.split("T", 1)
    suffix = " UTC" if clock.endswith("Z") or clock.endswith("+00:00") else ""
    return f"{day} {clock[:5]}{suffix}"


# -- intents: an infinitive phrase for "I'll ..." ----------------------------------------------------------------
def _logs_intent(a: Args, p: Phrasing) -> str:
    scope = f"the {a['service']} logs" if a.get("service") else "the logs"
    level = f"{a['min_level']}-level " if a.get("min_level") else ""
    if level:
        scope = f"the {level}{scope[4:]}"
    detail = f" for request {a['request_id']}" if a.get("request_id") else ""
    detail += f" mentioning {quote(a['contains'])}" if a.get("contains") else ""
    return f"search {scope}{detail}"


INTENTS: dict[str, Callable[[Args, Phrasing], str]] = {
    "mail_list_messages": lambda a, p: f"check your {'unread ' if a.get('unread_only') else ''}{a.get('folder', 'inbox')}",
    "mail_search": lambda a, p: f"search your mail for {quote(a.get('query'))}",
    "mail_read_message": lambda a, p: f"open message {a.get('message_id')}",
    "mail_mark_read": lambda a, p: f"mark {p.count(len(a.get('message_ids', [])), 'message')} as "
                                   f"{'read' if a.get('read', True) else 'unread'}",
    "mail_move": lambda a, p: f"move {a.get('message_id')} to {a.get('folder')}",
    "mail_save_draft": lambda a, p: f"draft an email to {p.people(a.get('to'))}",
    "mail_send": lambda a, p: f"email {p.people(a.get('to'))}",
    "mail_send_draft": lambda a, p: f"send draft {a.get('draft_id')}",
    "calendar_cancel_event": lambda a, p: f"cancel event {a.get('event_id')}",
    "calendar_create_event": lambda a, p: f"put {quote(a.get('title'))} on the calendar",
    "calendar_find_events": lambda a, p: f"look for events matching {quote(a.get('query'))}",
    "calendar_free_busy": lambda a, p: f"check when {p.people(a.get('people'))} "
                                       f"{'is' if len(a.get('people') or []) == 1 else 'are'} busy",
    "calendar_get_event": lambda a, p: f"open event {a.get('event_id')}",
    "calendar_list_events": lambda a, p: f"list the events between {when(a.get('start'))} and {when(a.get('end'))}",
    "calendar_update_event": lambda a, p: f"update event {a.get('event_id')}",
    "files_delete_file": lambda a, p: f"delete {a.get('path')}",
    "files_list_files": lambda a, p: f"list the files under {a.get('prefix') or 'the shared drive'}",
    "files_read_file": lambda a, p: f"read {a.get('path')}",
    "files_search_files": lambda a, p: f"search the files for {quote(a.get('query'))}",
    "files_write_file": lambda a, p: f"write {a.get('path')}",
    "chat_list_channels": lambda a, p: "list the chat channels",
    "chat_post_message": lambda a, p: f"post an update in {a.get('channel')}",
    "chat_read_channel": lambda a, p: f"read the latest messages in {a.get('channel')}",
    "chat_send_dm": lambda a, p: f"message {p.person(a.get('person'))} directly",
    "tickets_comment": lambda a, p: f"add a note to {a.get('ticket_id')}",
    "tickets_create": lambda a, p: f"open a {a.get('priority', 'p3').upper()} ticket",
    "tickets_get": lambda a, p: f"pull up {a.get('ticket_id')}",
    "tickets_search": lambda a, p: f"search the tickets{' for ' + quote(a['query']) if a.get('query') else ''}",
    "tickets_update": lambda a, p: f"update {a.get('ticket_id')}",
    "services_config_history": lambda a, p: f"look at the config history of {a.get('service')}",
    "services_deploy": lambda a, p: f"deploy {a.get('version')} to {a.get('service')}",
    "services_get_config": lambda a, p: f"check the config of {a.get('service')}",
    "services_get_service": lambda a, p: f"check the status of {a.get('service')}",
    "services_list_services": lambda a, p: "list the services",
    "services_restart": lambda a, p: f"restart {a.get('service')}",
    "services_rollback_config": lambda a, p: f"roll {a.get('service')} back to config v{a.get('to_version')}",
    "services_set_flag": lambda a, p: f"turn {a.get('flag')} {'on' if a.get('enabled') else 'off'} for {a.get('service')}",
    "services_update_config": lambda a, p: f"change the {a.get('service')} config ({join(sorted(a.get('changes', {})))})",
    "logs_search": _logs_intent,
    "logs_tail": lambda a, p: f"look at the latest {a.get('service')} logs",
    "directory_get_person": lambda a, p: f"look up {p.person(a.get('person'))} in the directory",
    "directory_get_team": lambda a, p: f"look up team {a.get('team_id')}",
    "directory_search": lambda a, p: f"search the directory for {quote(a['query'])}" if a.get("query")
    else "go through the directory",
}


def _phrased(table: dict[str, Callable[..., str]], tool: str, args: Any, *answer_and_phrasing: Any) -> str | None:
    """The built-in tool's phrasing of a call, or None where it has none or the call is not the built-in's: arguments
    the built-in tool does not take (a reference call of a defective spec; an imported tool of its name:
    `calendar_list_events` with a `date`), or, for a tool the spec declares under a built-in name (`Phrasing.declared`),
    an answer the phrasing cannot read (`_SHAPE_ERRORS`). Such a call is described as any tool's is.

    The built-in tool itself is answered by its app, in the shape its phrasing reads: a phrasing that fails on its
    call raises (a bug of the phrasing, never hidden behind the generic wording)."""
    built_in, describe = TOOLS.get(tool), table.get(tool)
    if describe is None or built_in is None or not isinstance(args, dict):
        return None
    phrasing = answer_and_phrasing[-1]
    if tool not in phrasing.declared:
        try:
            built_in.validate(args)
        except (ValidationError, ToolError):
            return None  # not a call the built-in tool runs: nothing its phrasing is written for
        return describe(args, *answer_and_phrasing)
    if not set(args) <= set(built_in.params.model_fields):
        return None
    try:
        return describe(args, *answer_and_phrasing)
    except _SHAPE_ERRORS:
        return None


def intent(tool: str, args: Args, p: Phrasing) -> str:
    """What calling `tool` with `args` sets out to do, e.g. 'search your mail for "checkout"'."""
    return _phrased(INTENTS, tool, args, p) or f"call {tool}"


# -- sources: what a read looked at, as a noun phrase -------------------------------------------------------------
def source(tool: str, args: Args) -> str:
    """What a read call looked at, e.g. 'the svc-payments logs'."""
    app = tool.split("_", 1)[0]
    if tool in ("logs_search", "logs_tail"):
        return f"the {args['service']} logs" if args.get("service") else "the logs"
    if tool.startswith("services_"):
        return f"the {args['service']} config and status" if args.get("service") else "the service list"
    if tool in ("files_read_file",):
        return str(args.get("path"))
    if tool == "tickets_get":
        return str(args.get("ticket_id"))
    if tool == "chat_read_channel":
        return str(args.get("channel"))
    if tool == "calendar_free_busy":
        return "everyone's availability"
    return {"mail": "your mail", "calendar": "the calendar", "files": "the shared drive", "chat": "the chat channels",
            "tickets": "the ticket tracker", "directory": "the directory"}.get(app, tool)


# -- findings: one or two sentences about what a read returned -----------------------------------------------------
def _mail_list(a: Args, r: Any, p: Phrasing) -> str:
    if not r:
        return p.nothing("message")
    items = [f"{quote(m['subject'], 60)} from {p.person(m['sender'])} ({m['id']})" for m in r[:3]]
    return f"{p.found(len(r), 'message')}: {join(items, len(r))}."


def _mail_read(a: Args, r: Any, p: Phrasing) -> str:
    return f"{p.person(r['sender'])} wrote ({quote(r['subject'], 60)}): {quote(r['body'], 160)}."


def _logs(a: Args, r: Any, p: Phrasing) -> str:
    if not r:
        return p.nothing("log line")
    levels = Counter(line["level"] for line in r)
    by_level = join([f"{n} {lvl}" for lvl, n in sorted(levels.items())])
    worst = next((line for line in r if line["level"] == "ERROR"), None) or r[0]
    failing = list(dict.fromkeys(line["request_id"] for line in r if line["level"] == "ERROR" and line["request_id"]))
    text = f"{p.found(len(r), 'log line')} ({by_level}). At {when(worst['ts'])} {worst['service']} logged " \
           f"{quote(worst['message'])}"
    if worst.get("request_id"):
        text += f" for request {worst['request_id']}"
    if len(failing) > 1:
        text += f"; failing requests: {join(failing[:4], len(failing))}"
    return text + "."


def _config_history(a: Args, r: Any, p: Phrasing) -> str:
    if not r:
        return p.nothing("config version")
    latest = r[-1]
    text = f"{a.get('service')} has {p.count(len(r), 'config version')}; the newest is v{latest['version']} " \
           f"by {p.person(latest['author'])} at {when(latest['created_at'])} ({quote(latest['note'], 60)})"
    if len(r) > 1:
        before = r[-2]["values"]
        changed = [f"{k} from {before.get(k)} to {v}" for k, v in latest["values"].items() if before.get(k) != v]
        if changed:
            text += f", which changed {join(changed)} compared with v{r[-2]['version']}"
    return text + "."


def _service(a: Args, r: Any, p: Phrasing) -> str:
    flags = [k for k, v in (r.get("flags") or {}).items() if v]
    extra = f", flags on: {join(flags)}" if flags else ""
    return f"{r['id']} is {r['status']}, on config v{r['config_version']} and release {r['deployed_version']}{extra}."


def _services(a: Args, r: Any, p: Phrasing) -> str:
    unwell = [f"{s['id']} is {s['status']}" for s in r if s["status"] != "healthy"]
    tail = f"{join(unwell)}; the rest are healthy" if unwell else "all of them are healthy"
    return f"{p.found(len(r), 'service')}: {tail}."


def _config(a: Args, r: Any, p: Phrasing) -> str:
    values = join([f"{k}={v}" for k, v in sorted(r["values"].items())])
    return f"{r['service']} config v{r['version']} sets {values}."


def _tickets(a: Args, r: Any, p: Phrasing) -> str:
    if not r:
        return p.nothing("ticket")
    items = [f"{t['id']} {quote(t['title'], 60)} ({t['status']}, {t['priority']})" for t in r[:3]]
    return f"{p.found(len(r), 'ticket')}: {join(items, len(r))}."


def _ticket(a: Args, r: Any, p: Phrasing) -> str:
    owner = p.person(r["assignee"]) if r.get("assignee") else "nobody"
    return f"{r['id']} {quote(r['title'], 60)} is {r['status']} ({r['priority']}), assigned to {owner}, " \
           f"with {p.count(len(r.get('comments') or []), 'comment')}."


def _chat(a: Args, r: Any, p: Phrasing) -> str:
    if not r:
        return f"{a.get('channel')} has no messages yet."
    last = r[-1]
    return f"{p.found(len(r), 'message')} in {a.get('channel')}; the latest, from {p.person(last['sender'])}: " \
           f"{quote(last['text'])}."


def _people(a: Args, r: Any, p: Phrasing) -> str:
    if not r:
        return p.nothing("person")
    items = [f"{x['name']} ({x['role']})" for x in r[:5]]
    return f"{p.found(len(r), 'person' if len(r) == 1 else 'colleague')}: {join(items, len(r))}."


def _events(a: Args, r: Any, p: Phrasing) -> str:
    if not r:
        return p.nothing("event")
    items = [f"{quote(e['title'], 60)} at {when(e['start'])} ({e['id']})" for e in r[:3]]
    return f"{p.found(len(r), 'event')}: {join(items, len(r))}."


def _free_busy(a: Args, r: Any, p: Phrasing) -> str:
    parts = []
    for email, slots in r.items():
        busy = join([f"{str(s['start'])[11:16]}-{str(s['end'])[11:16]}" for s in slots[:3]], len(slots))
        parts.append(f"{p.person(email)} is busy {busy} UTC" if slots else f"{p.person(email)} is free")
    return f"In that window {join(parts)}."


def _file(a: Args, r: Any, p: Phrasing) -> str:
    content, path = r["content"], r["path"]
    if r.get("kind") == "csv":
        rows = list(csv.reader(io.StringIO(content)))
        header = join(rows[0]) if rows else "no header"
        return f"{path} is a CSV with {p.count(max(len(rows) - 1, 0), 'row')} (columns {header})."
    if r.get("kind") == "json":
        try:
            data = orjson.loads(content)
        except orjson.JSONDecodeError:
            data = None
        keys = join(sorted(str(k) for k in data)[:6], len(data)) if isinstance(data, dict) else "a list"
        return f"{path} is a JSON document with {keys}."
    lines = [line for line in content.splitlines() if line.strip()]
    first = quote(lines[0].lstrip("# "), 80) if lines else "nothing"
    return f"{path} has {p.count(len(lines), 'line')}, starting with {first}."


def _files(a: Args, r: Any, p: Phrasing) -> str:
    if not r:
        return p.nothing("file")
    return f"{p.found(len(r), 'file')}: {join([f['path'] for f in r[:5]], len(r))}."


def _channels(a: Args, r: Any, p: Phrasing) -> str:
    return f"{p.found(len(r), 'channel')}: {join([c['name'] for c in r[:6]], len(r))}."


def _team(a: Args, r: Any, p: Phrasing) -> str:
    return f"{r['name']} is led by {p.person(r['lead'])} and has {p.count(len(r.get('members') or []), 'member')}."


FINDINGS: dict[str, Callable[[Args, Any, Phrasing], str]] = {
    "mail_list_messages": _mail_list, "mail_search": _mail_list, "mail_read_message": _mail_read,
    "logs_search": _logs, "logs_tail": _logs, "services_config_history": _config_history,
    "services_get_service": _service, "services_list_services": _services, "services_get_config": _config,
    "tickets_search": _tickets, "tickets_get": _ticket, "chat_read_channel": _chat, "chat_list_channels": _channels,
    "directory_search": _people, "directory_get_person": lambda a, r, p: _people(a, [r], p),
    "directory_get_team": _team, "calendar_list_events": _events, "calendar_find_events": _events,
    "calendar_get_event": lambda a, r, p: f"{quote(r['title'], 60)} ({r['id']}) runs {r['local_start']} to "
                                          f"{r['local_end']} {r['timezone']}, with {p.people(r['attendees'])}.",
    "calendar_free_busy": _free_busy, "files_read_file": _file, "files_list_files": _files,
    "files_search_files": _files,
}


def finding(tool: str, args: Args, result: Any, p: Phrasing) -> str:
    """What a successful read returned, as a sentence naming counts, ids and names."""
    return _phrased(FINDINGS, tool, args, result, p) or _named_finding(tool, result, p)


# What reading a tool's answer in a shape its phrasing does not expect raises: a dict sliced or indexed by position
# (TypeError, KeyError), a string read as a record (TypeError, AttributeError), a field absent (KeyError), an empty
# list's last item (IndexError), a value of another type formatted or compared (TypeError, ValueError). The answer is
# then described as any JSON value is (`_named_finding`, `_gist`): an imported tool may answer in any shape.
_SHAPE_ERRORS = (KeyError, TypeError, AttributeError, IndexError, ValueError)
_NAMING_KEYS = ("id", "key", "name", "title", "summary", "subject", "email")


def _naming(key: Any) -> bool:
    return isinstance(key, str) and any(key == n or key.endswith(f"_{n}") for n in _NAMING_KEYS)


def _scalar(value: Any, limit: int = 60) -> str:
    """A JSON scalar as it reads in a sentence: a string quoted, null, true and false as JSON writes them."""
    if isinstance(value, str):
        return quote(value, limit)
    return orjson.dumps(value).decode() if value is None or isinstance(value, bool) else str(value)


def _gist(value: Any, depth: int = 0) -> str:
    """Any JSON value in a few words: a record by its id and name (else its first fields), a list by its count."""
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if not isinstance(value, dict):
        return _scalar(value)
    shown = [str(v) for k, v in value.items() if isinstance(v, str) and v and _naming(k)][:2]
    if shown:
        return " ".join([shown[0], quote(shown[1], 60)]) if len(shown) == 2 else shown[0]
    fields = [f"{k} {_gist(v, depth + 1)}" for k, v in value.items()
              if depth == 0 or not isinstance(v, dict)][:3]
    more = f" and {len(value) - len(fields)} more fields" if len(value) > len(fields) else ""
    return f"{', '.join(fields)}{more}" if fields else "an empty record"


def _listed(result: Any) -> tuple[list[Any], dict[str, Any]]:
    """The items an answer lists and its other scalar fields: a list, a wrapper holding one list among scalars
    (`{"events": [...], "total": 3}`; a record, which names itself, is one item), or any other value as one item."""
    if isinstance(result, list):
        return result, {}
    if isinstance(result, dict) and not any(_naming(k) for k in result):
        lists = [k for k, v in result.items() if isinstance(v, list)]
        if len(lists) == 1 and all(isinstance(v, list) or not isinstance(v, dict) for v in result.values()):
            return result[lists[0]], {k: v for k, v in result.items() if k != lists[0]}
    return [result], {}


def _answer(result: Any, p: Phrasing) -> str:
    """Any JSON answer as the object of "returned": a scalar as it is, else the count, then the ids and names it
    returned (the first fields where none names it)."""
    if not isinstance(result, list | dict):
        return _scalar(result, 160)
    items, rest = _listed(result)
    names = [_gist(item) for item in items[:3]]
    listed = f": {join(names, len(items))}" if any(names) else ""
    extra = f" ({', '.join(f'{k} {_scalar(v)}' for k, v in rest.items())})" if rest else ""
    return f"{p.count(len(items), 'item')}{extra}{listed}"


def _named_finding(tool: str, result: Any, p: Phrasing) -> str:
    """A tool without its own phrasing (a spec-declared or imported one, or an answer its phrasing cannot read)."""
    return f"{tool} returned {_answer(result, p)}."


# -- actions: what a successful write did, as a past-tense phrase for "I ..." -------------------------------------
def _ticket_update(a: Args, r: Any, p: Phrasing) -> str:
    changes = [f"status {r['status']}" if a.get("status") else "", f"priority {r['priority']}" if a.get("priority") else "",
               f"assignee {p.person(r['assignee'])}" if a.get("assignee") else ""]
    return f"updated {r['id']} ({join(changes) or 'no field changes'})"


def _ticket_create(a: Args, r: Any, p: Phrasing) -> str:
    owner = f", assigned to {p.person(r['assignee'])}" if r.get("assignee") else ""
    return f"opened {r['id']} {quote(r['title'], 70)} ({r['priority'].upper()}{owner})"


def _mail_send(a: Args, r: Any, p: Phrasing) -> str:
    attached = f" with {join(a['attachments'])} attached" if a.get("attachments") else ""
    return f"emailed {p.people(a.get('to'))} ({quote(a.get('subject'), 70)}){attached}"


ACTIONS: dict[str, Callable[[Args, Any, Phrasing], str]] = {
    "mail_mark_read": lambda a, r, p: f"marked {p.count(len(r['updated']), 'message')} as "
                                      f"{'read' if r['read'] else 'unread'}",
    "mail_move": lambda a, r, p: f"moved {r['id']} to {r['folder']}",
    "mail_save_draft": lambda a, r, p: f"saved a draft to {p.people(a.get('to'))} ({r['id']})",
    "mail_send": _mail_send,
    "mail_send_draft": lambda a, r, p: f"sent draft {r['id']}",
    "calendar_cancel_event": lambda a, r, p: f"cancelled event {r['id']}",
    "calendar_create_event": lambda a, r, p: f"created {quote(r['title'], 60)} ({r['id']}) from {when(r['start'])} "
                                             f"to {when(r['end'])}",
    "calendar_update_event": lambda a, r, p: f"updated {quote(r['title'], 60)} ({r['id']}), which now runs from "
                                             f"{when(r['start'])} to {when(r['end'])}",
    "files_delete_file": lambda a, r, p: f"deleted {r['deleted']}",
    "files_write_file": lambda a, r, p: f"wrote {r['path']} ({r['size']} characters)",
    "chat_post_message": lambda a, r, p: f"posted an update in {a.get('channel')}",
    "chat_send_dm": lambda a, r, p: f"sent {p.person(a.get('person'))} a direct message",
    "tickets_comment": lambda a, r, p: f"added a note to {r['id']}",
    "tickets_create": _ticket_create,
    "tickets_update": _ticket_update,
    "services_rollback_config": lambda a, r, p: f"rolled {r['service']} back to config v{r['config_version']} "
                                                f"(it was on v{r['previous']})",
    "services_update_config": lambda a, r, p: f"activated config v{r['config_version']} on {r['service']} "
                                              f"({join([f'{k}={v}' for k, v in sorted(a.get('changes', {}).items())])})",
    "services_restart": lambda a, r, p: f"restarted {r['service']}",
    "services_deploy": lambda a, r, p: f"deployed {r['version']} to {r['service']}",
    "services_set_flag": lambda a, r, p: f"turned {r['flag']} {'on' if r['enabled'] else 'off'} for {r['service']}",
}


def action(tool: str, args: Args, result: Any, p: Phrasing) -> str:
    """What a successful write did, e.g. 'rolled svc-payments back to config v3 (it was on v4)'."""
    phrased = _phrased(ACTIONS, tool, args, result, p)
    if phrased is not None:
        return phrased
    if result is None or result == {}:
        return f"ran {tool}"
    if isinstance(result, dict) and _listed(result)[0] == [result]:  # a record: the one it wrote, or a status
        return f"ran {tool} ({_gist(result)})"
    return f"ran {tool}, which returned {_answer(result, p)}"
