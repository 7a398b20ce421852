"""Pinned spellings: a matcher that misses the reference's call once a person or channel is spelled another way.

Some tool arguments accept one thing in several spellings and store it one way: a person as id, email or chat
handle (`chat_send_dm`, a ticket's assignee), a channel as id or `#name` (`chat_post_message`). The spelling an
agent picks is invisible in the world, so a dynamics rule or a follow-up turn whose call matcher pins the
reference's spelling (`{"person": "esra"}`) never fires for an honest agent that wrote `u-esra`: the colleague
never answers, the next turn never comes. For each reference write such a matcher matches, each such argument is
spelled the other way, then each other way the tool takes (a matcher naming two of a person's three spellings,
`[esra, u-esra]`, misses the email; `[#finance, c-finance]` the bare `finance`, defects110); where the matcher misses, the respelled reference is played, and the mutations gate
reports `spelling_pinned` when a state or reply check fails on it (the world's reaction mattered). A check's own
call matcher (`called`, either side of `order`) that pins the spelling is reported when that check fails on the
respelled replay: an honest agent that assigned by email, or posted to the channel by id, loses the check.

A time is spelled many ways too: `2026-11-03T09:30:00Z` and `2026-11-03T13:30:00+04:00` are one instant, which the
tools store one way (UTC), so a matcher comparing a date-time argument as a string (`{"start": "...Z"}`) misses the
agent that wrote the time in the user's zone. Each date-time argument (an ISO time with `Z` or an offset) is respelled
as the same instant in the user's zone (in UTC where the reference wrote another offset), reported as
`instant_pinned`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from coworkenv.checks import call_matches
from coworkenv.spec import (
    AfterCall,
    CalledRule,
    CallMatcher,
    EnvSpec,
    OnAction,
    OrderRule,
    ReferenceStep,
    ReferenceTurn,
    ToolCallSpec,
)
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate.mutations import replaced
from coworkenv.world import World, format_time, parse_time
from coworkenv.world._time import zone

# (tool, argument) -> what the argument names, for arguments the tool resolves from several spellings.
FORMS = {("chat_send_dm", "person"): "person", ("tickets_create", "assignee"): "person",
          ("tickets_update", "assignee"): "person", ("chat_post_message", "channel"): "channel"}
FORMS_TOOLS = {tool for tool, _ in FORMS}


@dataclass(frozen=True)
class Respelled:
    """A reference write a dynamics rule or turn condition matches only in the reference's spelling."""

    path: str  # the matcher's path in the spec
    description: str
    reference: list[ReferenceTurn]  # the reference with that write spelled the other way
    check: str | None = None  # the check whose own matcher it is (None: a dynamics rule or turn condition)
    what: str = "person"  # what the respelled argument names: "person", "channel" or "time"


def respelled_writes(spec: EnvSpec, world: World) -> Iterator[Respelled]:
    """Each dynamics rule, turn condition or check call matcher (`called`, `order`) that matches a reference write,
    but no longer matches it once a person or channel argument is spelled another way the tool accepts (at most
    one per matcher)."""
    matchers: list[tuple[str, CallMatcher, str | None]] = [
        (f"dynamics.rules[{i}].on.call", r.on.call, None) for i, r in enumerate(spec.dynamics.rules)
        if isinstance(r.on, OnAction)]
    matchers += [(f"turns[{i}].condition.call", t.condition.call, None) for i, t in enumerate(spec.turns)
                 if isinstance(t.condition, AfterCall)]
    for i, check, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if isinstance(rule, CalledRule):
            matchers.append((f"checks[{i}].rule.call", rule.call, check.id))
        elif isinstance(rule, OrderRule):
            matchers += [(f"checks[{i}].rule.first", rule.first, check.id),
                         (f"checks[{i}].rule.then", rule.then, check.id)]
    user = _user_zone(spec, world)
    for path, matcher, check_id in matchers:
        found = _first_miss(spec, world, matcher, user)
        if found is not None:
            yield Respelled(path, found[0], found[1], check_id, found[2])


_ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:\d{2})$")


def _user_zone(spec: EnvSpec, world: World) -> str:
    try:
        person = world.table("directory", "people").get(spec.user)
    except KeyError:
        return "UTC"
    return str(person.timezone) if person is not None else "UTC"


def respelled_time(value: str, user: str) -> str | None:
    """The same instant in the user's zone, or in UTC (`Z`) where `value` is already in the user's offset; a UTC
    user's `Z` time is respelled `+00:00`. None where `value` is no date-time with a zone."""
    if not _ISO_TIME.match(value):
        return None
    try:
        instant = parse_time(value)
    except ValueError:
        return None
    local = datetime.fromtimestamp(instant, zone(user)).isoformat()
    mine = "+00:00" if value.endswith("Z") else value[-6:]
    if local[-6:] != mine or value.endswith("Z"):
        return local  # (a UTC user's time written with `Z` respelled `+00:00`)
    return format_time(instant)


def _first_miss(spec: EnvSpec, world: World, matcher: CallMatcher,
                user: str) -> tuple[str, list[ReferenceTurn], str] | None:
    for t, turn in enumerate(spec.reference):
        for s, step in enumerate(turn.steps):
            call = step.call
            if call is None or not call_matches(matcher, call.name, dict(call.arguments)):
                continue
            for arg, value in call.arguments.items():
                what = FORMS.get((call.name, arg)) if matcher.tool in FORMS_TOOLS else None
                if what is None and isinstance(value, str) and _ISO_TIME.match(value):
                    what, other = "time", respelled_time(value, user)
                else:
                    other = respelled_value(world, what, value) if what is not None and isinstance(value, str) else None
                if other is None or what is None:
                    continue
                # The other spelling first, then every spelling the tool takes: a matcher naming two of a person's
                # three (`[u-esra, esra@...]`) misses the chat handle an agent DMs them by (defects110).
                spellings = [other] if what == "time" else [other, *respelled_forms(world, what, value)]
                for spelled in dict.fromkeys(spellings):
                    args = {**call.arguments, arg: spelled}
                    if not call_matches(matcher, call.name, args):
                        new = ReferenceStep(call=ToolCallSpec(name=call.name, arguments=args))
                        return (f"{call.name} with {arg}={spelled!r} (the same {what} as {value!r})",
                                replaced(spec.reference, t, s, new), what)
    return None


def respelled_forms(world: World, what: str, value: str) -> list[str]:
    """Every other spelling the tools take of the person (id, email, chat handle) or channel (id, `#name`, bare name)
    `value` names; empty if it names none (a direct conversation is no channel a post names)."""
    if what == "person":
        people = world.table("directory", "people")
        person = people.get(value) or next((p for p in people if value.lower().lstrip("@") in (
            p.email.lower(), p.chat_handle.lower())), None)
        forms = [] if person is None else [person.id, person.email, person.chat_handle]
    else:
        channels = world.table("chat", "channels")
        channel = channels.get(value) or next((c for c in channels if c.name.lower() in (value.lower(),
                                                                                        "#" + value.lower())), None)
        forms = [] if channel is None or channel.is_dm else [channel.id, channel.name, channel.name.lstrip("#")]
    return [str(f) for f in forms if f and str(f).lower() != value.lower()]


def respelled_value(world: World, what: str, value: str) -> str | None:
    """The same person (id <-> email) or channel (id <-> #name) spelled the other way; None if it names none."""
    if what == "person":
        people = world.table("directory", "people")
        person = people.get(value) or next((p for p in people if value.lower().lstrip("@") in (
            p.email.lower(), p.chat_handle.lower())), None)
        if person is None:
            return None
        return str(person.email) if value == person.id and person.email else str(person.id)
    channels = world.table("chat", "channels")
    channel = channels.get(value) or next((c for c in channels if c.name.lower() in (value.lower(),
                                                                                    "#" + value.lower())), None)
    if channel is None or channel.is_dm:
        return None
    return str(channel.name) if value == channel.id else str(channel.id)
