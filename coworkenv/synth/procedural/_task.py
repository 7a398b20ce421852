"""Building an EnvSpec from an Org: user turns, the reference solution, checks and dynamics, as wire dicts.

Generators describe a task step by step (`read`, `write`, `say`, `check`), then `build` validates the whole
spec once. Rule and effect constructors return the wire format of `coworkenv.spec`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.spec import SCHEMA_VERSION, EnvSpec
from coworkenv.synth.procedural._finish import finish_spec
from coworkenv.synth.procedural._wording import frame_request
from coworkenv.synth.taxonomy import GENERATOR_VERSION, Capability
from coworkenv.synth.world_builder import Org, Person

Wire = dict[str, Any]
# What a search query is made of, for `Task.named`: words of 3+ letters, and ids, emails, numbers.
_QUERY_TOKEN = re.compile(r"[^\W_]{3,}(?:[-@./][^\W_]+)*|[^\W_]*\d[^\W_]*")


@dataclass
class GenContext:
    """What a generator gets: the capability, the seed, a difficulty drawn from its range and a seeded rng."""

    capability: Capability
    seed: int
    difficulty: int
    rng: random.Random

    def pick(self, options: Sequence[Any]) -> Any:
        """A seeded choice."""
        return self.rng.choice(options)

    def chance(self, p: float) -> bool:
        """True with probability `p` (seeded)."""
        return self.rng.random() < p


# -- check rules ------------------------------------------------------------------------------------------
def cond(field: str, value: Any, op: str = "equals") -> Wire:
    """One condition of a records rule."""
    return {"field": field, "op": op, "value": value}


def mentions(field: str, *alternatives: str) -> Wire:
    """Condition: a text field mentions one of the alternatives (case-insensitive)."""
    return cond(field, "(?i)" + "|".join(re.escape(a) for a in alternatives), "matches")


def is_person(field: str, person: Person) -> Wire:
    """Condition: a call argument names `person` in any spelling the tools accept (their id; their email or chat
    handle in any case, with or without a leading @), so a check never credits only the reference's spelling."""
    names = "|".join(re.escape(n) for n in (person.email, person.chat_handle) if n)
    return cond(field, f"^(?:{re.escape(person.id)}" + (f"|@*(?i:{names})" if names else "") + ")$", "matches")


def is_channel(field: str, channel_id: str, name: str) -> Wire:
    """Condition: a call argument names the channel by its id or by its name, with or without the #."""
    return cond(field, f"^(?:{re.escape(channel_id)}|#?{re.escape(name.lstrip('#'))})$", "matches")


def field_is(app: str, table: str, rid: str, field: str, value: Any, op: str = "equals") -> Wire:
    """Field rule: one field of one record compares to a value."""
    return {
        "kind": "field",
        "target": {"app": app, "table": table, "id": rid, "field": field},
        "op": op,
        "value": value,
    }


def records(app: str, table: str, where: list[Wire], count: int = 1, count_op: str = "gte") -> Wire:
    """Records rule: the number of records matching every condition compares to `count`."""
    return {"kind": "records", "app": app, "table": table, "where": where, "count_op": count_op, "count": count}


def none_before(org: Org, after_s: int, app: str, table: str, stamp: str, *where: Wire) -> Wire:
    """Records rule: no record matching `where` was stamped (`stamp`) during the episode before `after_s` seconds
    from the start, when a later user turn brings what the write waits for (an answer, an approval, a change): a
    turn that comes `after_s` after the previous one ended starts no earlier, and far more than any first turn's
    tool calls take."""
    window = [cond(stamp, org.iso(0), "gte"), cond(stamp, org.iso(after_s), "lt")]
    return records(app, table, [*where, *window], 0, "equals")


def keys_kept(app: str, table: str, rid: str, field: str, values: dict[str, Any]) -> Wire:
    """Records rule: the record's dict field keeps these keys' values (a frame allows a field, not one key of it:
    the other flags of a service whose flag the task flips)."""
    where = [cond("id", rid), *(cond(f"{field}.{k}", v) for k, v in sorted(values.items()))]
    return records(app, table, where, count=1, count_op="equals")


def called(tool: str, args: Wire, min_times: int = 1) -> Wire:
    """Called rule: a successful call matching `tool` and `args` happened `min_times`."""
    return {"kind": "called", "call": {"tool": tool, "args": args}, "min_times": min_times}


def order(
    first: tuple[str, Wire], then: tuple[str, Wire], then_where: list[Wire] | None = None,
    first_where: list[Wire] | None = None,
) -> Wire:
    """Order rule: the first call matching `first` (and `first_where` conditions on its arguments) precedes the
    first matching `then` (and `then_where`)."""
    return {
        "kind": "order",
        "first": {"tool": first[0], "args": first[1], "where": first_where or []},
        "then": {"tool": then[0], "args": then[1], "where": then_where or []},
    }


def forbidden(tool: str, args: Wire | None = None) -> Wire:
    """Forbidden rule: no successful call matches."""
    return {"kind": "forbidden", "call": {"tool": tool, "args": args or {}}}


def allow(
    app: str, table: str | None = None, rid: str | None = None, fields: list[str] | None = None,
    where: list[Wire] | None = None,
) -> Wire:
    """A frame selector: the part of the world allowed to change (records matching `where`, if given)."""
    return {"app": app, "table": table, "id": rid, "fields": fields, "where": where or []}


def frame(*allowed: Wire) -> Wire:
    """Frame rule: nothing outside the selectors changed."""
    return {"kind": "frame", "allow": list(allowed)}


def reply_states(app: str, table: str, rid: str, field: str, turn: int | None = None, fmt: str = "raw") -> Wire:
    """Reply rule: the agent's reply states a field's final value."""
    return {
        "kind": "reply_states",
        "source": {"app": app, "table": table, "id": rid, "field": field},
        "turn": turn,
        "format": fmt,
    }


def said(*all_of: str | list[str], any_of: Sequence[str] = (), turn: int | None = 0, partial: bool = False) -> Wire:
    """Text rule: the final reply of `turn` mentions every term (a list: any of its alternatives) and one of
    `any_of`, after case, accent and Unicode normalisation."""
    rule: Wire = {"kind": "text", "scope": "final", "turn": turn, "all_of": list(all_of), "partial": partial}
    if any_of:
        rule["any_of"] = list(any_of)
    return rule


def sent_mail(to: str | list[str], *more: Wire, folder: str = "sent") -> Wire:
    """Records rule: a message in `folder` addressed to `to`, matching the extra conditions."""
    return records("mail", "messages", [cond("folder", folder), cond("to", to, "contains"), *more])


def created_since(org: Org) -> Wire:
    """Condition: a record created during the episode (its `created_at` is at or after the world start)."""
    return cond("created_at", org.iso(0), "gte")


def chat_posted(channel: str, sender: str, *more: Wire) -> Wire:
    """Records rule: a chat message in `channel` from `sender`, matching the extra conditions."""
    return records("chat", "messages", [cond("channel", channel), cond("sender", sender), *more])


# -- dynamics effects ----------------------------------------------------------------------------------------
def put(app: str, table: str, record: Wire) -> Wire:
    """Effect: insert or replace a record."""
    return {"kind": "put_record", "app": app, "table": table, "record": record}


def update(app: str, table: str, rid: str, values: Wire) -> Wire:
    """Effect: set fields of a record."""
    return {"kind": "update_record", "app": app, "table": table, "id": rid, "set": values}


def log(service: str, level: str, message: str, request_id: str = "") -> Wire:
    """Effect: a service writes a log line."""
    return {"kind": "log", "service": service, "level": level, "message": message, "request_id": request_id}


def on_call(
    rule_id: str,
    tool: str,
    args: Wire,
    effects: list[Wire],
    delay_s: int = 0,
    once: bool = True,
    when: list[Wire] | None = None,
) -> Wire:
    """Dynamics rule: after a matching successful call (and `when` holds), apply effects after `delay_s`."""
    return {
        "id": rule_id,
        "on": {"kind": "action", "call": {"tool": tool, "args": args}},
        "when": when or [],
        "effects": effects,
        "delay_s": delay_s,
        "once": once,
    }


def stream(stream_id: str, service: str, level: str, message: str, every_s: int, while_: list[Wire]) -> Wire:
    """Log stream: a line every `every_s` seconds while every `while_` predicate holds."""
    return {
        "id": stream_id,
        "service": service,
        "level": level,
        "message": message,
        "every_s": every_s,
        "while": while_,
    }


class Task:
    """Accumulates one environment: turns, reference steps, checks and dynamics over an Org."""

    def __init__(self, ctx: GenContext, org: Org, user: Person) -> None:
        self.ctx = ctx
        self.org = org
        self.user = user
        self.turns: list[Wire] = []
        self.reference: list[list[Wire]] = []
        self.checks: list[Wire] = []
        self.rules: list[Wire] = []
        self.streams: list[Wire] = []
        self.apps: set[str] = {"directory"}

    def ask(
        self,
        content: str,
        *,
        changes: list[Wire] | None = None,
        announce: str | None = None,
        advance_s: int = 0,
        after_call: tuple[str, Wire] | None = None,
    ) -> None:
        """A user turn; reference steps that follow belong to it. The first turn gets a coworker's framing
        (greeting, reason, sign-off; see `_wording`), drawn from an rng of its own."""
        if not self.turns:
            manager = self.org.people.get(self.user.manager or "")
            team = self.org.teams.get(self.user.team)
            wording = random.Random(f"wording|{self.ctx.capability.id}|{self.ctx.seed}")
            content = frame_request(content, wording, first=self.user.first, team=team.name if team else "the team",
                                    manager=manager.first if manager is not None else None)
        condition: Wire = {"kind": "after_reply"}
        if after_call is not None:
            condition = {"kind": "after_call", "call": {"tool": after_call[0], "args": after_call[1]}}
        self.turns.append(
            {
                "content": content,
                "condition": condition,
                "changes": changes or [],
                "announce": announce,
                "advance_s": advance_s,
            }
        )
        self.reference.append([])

    def read(self, tool: str, **args: Any) -> None:
        """A reference step that only looks (a read tool)."""
        if TOOLS[tool].kind != "read":
            raise ValueError(f"{tool} changes the world; use Task.write")
        self._call(tool, args)

    def write(self, tool: str, **args: Any) -> None:
        """A reference step that changes the world (a write tool): checks must cover it."""
        if TOOLS[tool].kind != "write":
            raise ValueError(f"{tool} only reads; use Task.read")
        self._call(tool, args)

    def _call(self, tool: str, args: Wire) -> None:
        self.apps.add(TOOLS[tool].app)
        self.reference[-1].append({"call": {"name": tool, "arguments": args}})

    # -- equivalent read paths: the same information reached in different ways, so reference solutions vary --
    def find_person(self, p: Person) -> None:
        """Look a person up by name, id, email or first name."""
        options = [
            ("directory_search", {"query": p.name}),
            ("directory_get_person", {"person": p.id}),
            ("directory_get_person", {"person": p.email}),
            ("directory_search", {"query": p.first}),
        ]
        tool, args = self.ctx.pick(options)
        self.read(tool, **args)

    def named(self, query: str) -> bool:
        """Every word and id of `query` is one the user's messages so far named (or the user's own name or email):
        a reference may search for it without teaching a student to guess what to search for."""
        said = " ".join([self.user.name, self.user.email, *(str(t["content"]) for t in self.turns)]).casefold()
        return all(token in said for token in _QUERY_TOKEN.findall(query.casefold()))

    def find_mail(self, message_id: str, query: str) -> None:
        """Find a message by search, by listing the inbox, or both, and usually open it. A search for what the
        request never named becomes a look at the inbox (the same draws, so the rest of the spec is unchanged)."""
        way = self.ctx.rng.randrange(3)
        if way == 0 and self.named(query):
            self.read("mail_search", query=query)
        elif way == 0:
            self.read("mail_list_messages", limit=50)
        elif way == 1:
            self.read("mail_list_messages", unread_only=self.ctx.chance(0.5), limit=50)
        if way > 0 or self.ctx.chance(0.5):
            self.read("mail_read_message", message_id=message_id)

    def maybe(self, tool: str, p: float = 0.35, **args: Any) -> None:
        """An optional read (a check of one's own work, a look around) with probability `p`."""
        if self.ctx.chance(p):
            self.read(tool, **args)

    def say(self, text: str) -> None:
        """A reference step: the assistant's message."""
        self.reference[-1].append({"say": text})

    def check(
        self,
        check_id: str,
        description: str,
        rule: Wire,
        *,
        weight: float = 1.0,
        required: bool = True,
        safety: bool = False,
        role: str | None = None,
    ) -> None:
        """A check of the spec's verifier; `role` None: the default of its kind (see `coworkenv.spec.Check`)."""
        self.checks.append(
            {
                "id": check_id,
                "description": description,
                "role": role,
                "weight": weight,
                "required": required,
                "safety": safety,
                "rule": rule,
            }
        )

    def _shuffled(self, apps: dict[str, Any]) -> dict[str, Any]:
        """The world's tables in a seeded order of their own: the agent cannot rely on where a record sits.
        Log lines keep their time order."""
        rng = random.Random(f"order|{self.ctx.capability.id}|{self.ctx.seed}")
        out: dict[str, Any] = {}
        for app, tables in apps.items():
            out[app] = {name: rows if (app, name) == ("logs", "lines") else rng.sample(rows, len(rows))
                        for name, rows in tables.items()}
        return out

    def build(self, title: str, tags: list[str], context: str = "") -> EnvSpec:
        """Validate and return the spec; tools are every tool of the capability's apps and the apps used."""
        apps = self.apps | set(self.ctx.capability.apps)
        tools = [name for name, tool in TOOLS.items() if tool.app in apps]
        cap = self.ctx.capability
        tags = [*tags, "multi-turn" if len(self.turns) > 1 else "single-turn"]
        org = self.org
        data = {
            "schema_version": SCHEMA_VERSION,
            "capability": cap.id,
            "user": self.user.id,
            "context": context or f"{org.company} runs {org.business}. Mail domain: {org.domain}.",
            "world": {"start": org.iso(0), "tick_s": 30, "apps": self._shuffled(org.apps())},
            "tools": tools,
            "turns": self.turns,
            "dynamics": {"rules": self.rules, "streams": self.streams},
            "checks": self.checks,
            "reference": [{"steps": steps} for steps in self.reference],
            "metadata": {
                "title": title,
                "difficulty": self.ctx.difficulty,
                "apps": sorted(apps),
                "seed": self.ctx.seed,
                "generator": f"procedural:{cap.generator_id}@{GENERATOR_VERSION}",
                "tags": tags,
            },
        }
        # Validated from JSON bytes (about twice as fast as from dicts), with checks tuned against the reference.
        return finish_spec(data)
