"""The world's own reactions, for the forbidden-guard routes: a spec's action rules (a chat-ops bot closing a ticket on
`/close ID`, a mail integration cancelling a meeting, a tracker command in a comment) change the world in answer to a
call, as they do in an episode. A guard on the call that does a harm is evaded by the call a rule answers with that
harm, often of another app, when no guard matches it; `_guard_effects` runs its forks with these reactions and tries
the calls the rules wait for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from coworkenv.checks import call_matches
from coworkenv.dynamics import Dynamics
from coworkenv.spec import AppendLog, CallMatcher, EnvSpec, OnAction, Rule
from coworkenv.spec_regex import PatternRefused, PatternTimeout
from coworkenv.tools import ToolDef
from coworkenv.validate.task_mutations import meeting_values
from coworkenv.world import World

# Values of the world tried per required argument a trigger call leaves open (a channel, a ticket to comment on).
_WORLD_VALUES = 3


class Reactions:
    """The spec's action rules, applied at once after a successful call on a fork (a delayed rule's effects too: they
    happen all the same, later in the episode)."""

    def __init__(self, spec: EnvSpec, world: World) -> None:
        reacts = any(isinstance(rule.on, OnAction) for rule in spec.dynamics.rules)
        self._dynamics = Dynamics(spec, world) if reacts else None

    def answer(self, tool: str, args: dict[str, Any]) -> None:
        """Apply the effects of every rule the call fires (`Dynamics.triggered`: as in an episode)."""
        if self._dynamics is None:
            return
        for rule in self._dynamics.triggered(tool, args):
            self._dynamics.apply(rule.effects)

    def apply(self, rule: Rule) -> None:
        """Apply a rule's effects as if it fired, whatever its `when` says (what it would do once reached)."""
        if self._dynamics is not None:
            self._dynamics.apply(rule.effects)


def trigger_calls(spec: EnvSpec, catalog: Mapping[str, ToolDef], exposed: list[str], app: str, world: World,
                  fill: Callable[[str, Any], Any]) -> Iterator[tuple[Rule, str, dict[str, Any]]]:
    """(rule, tool, arguments) of the calls the spec's action rules wait for, where a rule's effects write `app`:
    the rule's `args` and a value meeting each `where` condition, the rest of the tool's arguments from the
    reference's own call of that tool, else `fill`ed, then each one the rule leaves open (required, or optional and
    not given) set to a value of the field of that name in the tool's app's records (a channel of the world), and
    each optional one not given filled; each as the rule's matcher takes it (`_met`). The rule's `when` is the caller's
    to meet (`_guard_effects`: the call is also made in the states where it holds)."""
    for rule in spec.dynamics.rules:
        if not isinstance(rule.on, OnAction) or rule.on.call.tool not in exposed or rule.on.call.tool not in catalog:
            continue
        if not any(writes(e, app) for e in rule.effects):
            continue
        tool = catalog[rule.on.call.tool]
        fields = tool.params.model_fields
        if any(c.field.split(".")[0] not in fields for c in rule.on.call.where):
            continue
        wanted = {**meeting_values(fields, rule.on.call.where), **rule.on.call.args}
        if any(k not in fields for k in wanted):
            continue
        like = next((dict(st.call.arguments) for turn in spec.reference for st in turn.steps
                     if st.call is not None and st.call.name == tool.name and isinstance(st.call.arguments, dict)), {})
        args = {**{k: v for k, v in like.items() if k in fields and k not in wanted}, **wanted}
        open_ = [n for n, f in fields.items() if f.is_required() and n not in args]
        args.update({n: fill(n, fields[n].annotation) for n in open_})
        # then each argument the rule leaves open, required or not given, set to a value of the world (a channel), and
        # each optional one not given filled (the supplier an order needs where the item has none on record)
        tried = [args, *({**args, name: value} for name in [n for n, f in fields.items() if n not in wanted
                                                             and (f.is_required() or n not in args)]
                         for value in world_values(world, tool.app, name) if value != args.get(name)),
                 *({**args, n: fill(n, f.annotation)} for n, f in fields.items() if n not in args)]
        for one in tried:
            met = _met(rule.on.call, tool, one)
            if met is not None:
                yield rule, tool.name, met


def writes(effect: Any, app: str) -> bool:
    """Whether a rule's effect writes the app (a log line writes `logs`)."""
    return app == "logs" if isinstance(effect, AppendLog) else bool(effect.app == app)


def _met(matcher: CallMatcher, tool: ToolDef, args: dict[str, Any]) -> dict[str, Any] | None:
    """The call as made, where the rule's matcher takes it; else with the optional arguments a negation names left
    out (an argument not given meets `not_equals` and `not_contains`); else None (a condition no value made here
    meets: a negation of a required argument's only value, a bound on a text)."""
    fields = tool.params.model_fields
    negated = {c.field for c in matcher.where if c.op in ("not_equals", "not_contains")}
    bare = {k: v for k, v in args.items() if k not in negated or fields[k].is_required()}
    try:  # a spec pattern too slow on the call's arguments: the rule would not fire on it (Dynamics.triggered)
        return next((one for one in (args, bare) if call_matches(matcher, tool.name, one)), None)
    except (PatternTimeout, PatternRefused):
        return None


def world_values(world: World, app: str, name: str) -> Iterator[str]:
    """Distinct string values of the field `name` in the app's records (`channel` of its messages), a few; for a
    record argument no record holds a field of (`event_id`), the ids of the app's records of that kind (the table
    named after it: `events`), a few: a rule that answers a call on any record waits for one the agent may name."""
    seen: list[str] = []
    for table in world.tables():
        if table.app != app:
            continue
        for record in table:
            value = getattr(record, name, None)
            if isinstance(value, str) and value and value not in seen:
                seen.append(value)
                yield value
                if len(seen) >= _WORLD_VALUES:
                    return
    kind = name.removesuffix("_id")
    if seen or kind == name:
        return
    for table in world.tables():
        if table.app == app and table.name.rstrip("s") == kind.rstrip("s"):
            for record in table:
                yield record.id
                seen.append(record.id)
                if len(seen) >= _WORLD_VALUES:
                    return
