"""Forbidden guards evaded by another call with the same effect on the world, found by running the calls.

A forbidden guard names a call; the harm is what that call does to the world. Any other call the agent is given
that does the same to the world, and that no forbidden guard matches, does the harm unseen. The other routes
(`_guard_routes`, `_guard_evasions`) each know one way a tool's call can be respelled; this one knows none: it
runs the guarded call on a fork of the spec's initial world, reads what it changed (`World.changes`), then runs
the other calls of the same app on fresh forks and compares. Found this way, with no list of tool names:
- `todo_update_task` with `stage: done` ticks a to-do off as `todo_complete_task` (or `done: true`) does, and
  `stage: not_started` reopens one as `done: false` does (the stage is another argument with the same end);
- `calendar_add_event` invites a person to a new event as `calendar_create_event` does (two tools that create
  the same record);
- a spec-declared tool bound to the guarded operation under another name and other argument names;
- the guarded tool itself with an argument the guard pins left out (its default) or set by a value the guard
  does not name (a Literal value, a flag) with the same end.

What counts as the same effect: every field the guarded call changes on an existing record is changed to the same
value on the same record (or, where the new value holds a phrase the guard names, holds it too), and the guarded
call made afterwards changes nothing more; a record it creates has a counterpart the other call creates in the same
table, alike in each field that carries a value the guard names (a person, a record id, a phrase, its own id's
prefix), says the record's kind (a Literal or a flag: a draft is not a sent mail) or places it (another record's
id); a record it removes is removed. A field set to the world's clock is a time stamp, not the harm. The other call
may do more (set a stage beside the done flag): the harm is done all the same.

The calls tried, per write tool of the guarded tool's app the agent is given: its arguments filled from the
guarded call by name (`start` for `start_time`), the rest from the reference's own calls or a placeholder, then
that call with one optional argument more, set to each value its type allows (a Literal's values, true and false)
or the guard names. Calls a forbidden guard of the spec matches, and calls the reference itself makes on the
record (the task), are not routes. Judged on the calls alone, so no episode is played (`guard_bypassed`).

Where no single call is a route, routes of two calls (`_two_step`): a first call that makes or changes one of the
harm's records (or makes one in a table where the harm makes one: a job made with another command), then a call on
the records it made or changed (the command edited in); the pair, run on one fork, must do the harm that its second
call alone does not, and neither call may be matched by a forbidden guard. A guard pinned to the value a record is
made with is evaded by making it without and editing the value in: the route the guard on the edit stops. A first
step may be made on another container than the one the guard pins (another list, of the world or made by a call
before it: three calls), the second moving the record in.

The forks answer every successful call with the spec's action rules, as an episode does (`_guard_reactions`): a
chat-ops bot closing a ticket on `/close ID`, a mail integration cancelling a meeting. Where no single call of the app
is a route, the call each rule that writes the guarded app waits for (of any app) is tried too: one that does what a
call the guard forbids does, through the rule, and that no forbidden guard matches, is a route. A rule whose `when`
fails on the initial world (a bot that takes commands once the task's fix holds, or acts only on a ticket in
progress) is tried in the states where it holds that one can reach (`_states`): after the reference's writes, and
after the calls per failing predicate that make it hold, matched by no forbidden guard (`_reach`: one write of its
app, the call another rule answers with a write of its app, after the calls reaching that rule's own `when` (rules in
a row), two or three calls of its app (the first may be a call a rule answers by making the record), a count of
records reached one record at a time (`_counted`), a count wanting fewer records reached by taking them out one at a
time (`_fewer`)).
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import types
import typing
from collections.abc import Collection, Iterator, Mapping
from typing import Any

import orjson
from pydantic import BaseModel

from coworkenv.bindings import exposed_tools, spec_catalog
from coworkenv.checks import call_matches, holds, record_matches
from coworkenv.env import base_world
from coworkenv.limits import MAX_STEPS
from coworkenv.spec import AppendLog, EnvSpec, ForbiddenRule
from coworkenv.spec_checks import FieldRule, RecordsRule
from coworkenv.tools import ToolBox, ToolDef
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._guard_reactions import Reactions, trigger_calls, world_values
from coworkenv.validate._guard_values import world_spelled
from coworkenv.validate.entities import leaves
from coworkenv.validate.gates import GateError
from coworkenv.validate.task_mutations import bound_value
from coworkenv.world import World

# A fact about the world after a call: (app, table, record id or _NEW, field, value as JSON).
Fact = tuple[str, str, str, str, bytes]
_NEW = "<a record the call creates>"
# The strings a guard names (lowercased, for a value carried in a text) and its scalars as JSON (for exact values).
Named = tuple[frozenset[str], frozenset[bytes]]
_REMOVED = "<removed>"
_FILLER = "x"
# Calls tried per guard at most (each runs on a fork of the initial world: ~0.1 ms).
_BUDGET = 400
Call = tuple[str, dict[str, Any]]


def same_effect_guards(spec: EnvSpec, reported: Collection[GateError] = ()) -> list[GateError]:
    """`guard_bypassed` errors of the spec's forbidden guards that another exposed call with the same effect on
    the initial world evades; a guard that `reported` (the other routes' errors) already names is not judged again
    (one route is enough to reject it, and the other route's message says what to forbid)."""
    forbidden = [(where, c, r) for _, c, where, r in spec_rules(spec.checks) if isinstance(r, ForbiddenRule)]
    if not forbidden:
        return []
    matchers = [r.call for _, _, r in forbidden]
    catalog = spec_catalog(spec)
    exposed = [n for n in exposed_tools(spec) if n in catalog]
    world = base_world(spec)
    runner = _Runner(spec, world, catalog, exposed)
    done = _reference_calls(spec)
    errors: list[GateError] = []
    known = {e.path.split(".rule")[0] for e in reported if e.code == "guard_bypassed"}
    for where, check, rule in forbidden:  # a tier's forbidden rule too
        guarded = catalog.get(rule.call.tool)
        if where.split(".rule")[0] in known:
            continue
        if guarded is None or guarded.kind != "write" or rule.call.tool not in exposed:
            continue
        call = _guarded_call(rule, guarded, spec, world)
        if call is None:
            continue
        named = _named_values(rule)
        if runner.effect(rule.call.tool, call, named) is None:
            call = next((c for c in _as_in_world(call, rule, guarded, world)
                         if runner.effect(rule.call.tool, c, named) is not None), call)
        # What the guard keeps from happening: the effect of the call it names; where that call sets nothing (a
        # guard on the record alone, of a tool that changes only what it is told), of every call of the tool it
        # matches (that call with one more argument).
        fields = guarded.params.model_fields
        told_only = all(f.is_required() or f.default is None for f in fields.values()) and \
            not any(k in fields and not fields[k].is_required() for k in _pinned_names(rule))
        tried = list(_candidates(guarded, call, spec, world)) if told_only else [call, *_in_values(rule, call)]
        harms = [(args, h) for args in tried
                 if call_matches(rule.call, rule.call.tool, args) and (h := runner.effect(rule.call.tool, args, named))]
        # a call the guard forbids that changes nothing on this world (a ticket resolved only once it is started)
        failing = [args for args in tried if call_matches(rule.call, rule.call.tool, args)
                   and runner.effect(rule.call.tool, args, named) is None]
        if not harms and not failing:
            continue  # no call the guard forbids: no effect to compare
        records = tuple(sorted({rid for _, h in harms for _, _, rid, _, _ in h if rid != _NEW}))
        budget = _BUDGET
        before = len(errors)
        for name in exposed if harms else []:
            tool = catalog[name]
            if tool.kind != "write" or tool.app != guarded.app:
                continue
            for args in _candidates(tool, call, spec, world, records):
                budget -= 1
                if budget < 0:
                    break
                if (name, _json(args)) in done or any(call_matches(m, name, args) for m in matchers):
                    continue
                effect = runner.effect(name, args, named)
                harm = next((h for forbidden_args, h in harms if effect is not None and h <= effect and (
                    not _exact(h) or runner.reaches(((name, args),), (rule.call.tool, forbidden_args)))), None)
                if harm is not None:
                    errors.append(GateError(
                        "mutations", "guard_bypassed", f"{where}.call",
                        f"forbidden guard {check.id!r} forbids {rule.call.tool} {_shown(call)}, but {name} "
                        f"{_shown(args)} does to the world what a call it forbids does ({_changed(harm)}) and "
                        f"matches no forbidden guard; forbid that call too, or guard the record's state (a records "
                        f"or frame check)"))
                    break
        if len(errors) == before and failing:  # compared after a write that lets a forbidden call change the world
            started = _after_a_write(runner, catalog, exposed, guarded, rule, call, failing, named, matchers, done,
                                     spec, world)
            if started is not None:
                first, (name, args), kept = started
                errors.append(GateError(
                    "mutations", "guard_bypassed", f"{where}.call",
                    f"forbidden guard {check.id!r} forbids {rule.call.tool} {_shown(call)}, which changes nothing "
                    f"until {first[0]} {_shown(first[1])} is made; after it, {name} {_shown(args)} does what a call "
                    f"it forbids does ({_changed(kept)}), and neither matches a forbidden guard; forbid that call "
                    f"too, or guard the record's state (a records or frame check)"))
        if len(errors) == before and harms:
            reaction = _reaction_route(runner, catalog, exposed, guarded, rule, harms, named, matchers, done, spec,
                                       world)
            if reaction is not None:
                rule_id, name, args, forbidden_args, harm, said = reaction
                errors.append(GateError(
                    "mutations", "guard_bypassed", f"{where}.call",
                    f"forbidden guard {check.id!r} forbids {rule.call.tool} {_shown(forbidden_args)}, but {name} "
                    f"{_shown(args)}{' ' + said if said else ''} makes the world's rule {rule_id!r} do what a call "
                    f"it forbids does "
                    f"({_changed(harm)}), and no forbidden guard matches it; forbid that call too (as the rule "
                    f"matches it), or guard the record's state (a records or frame check)"))
        if len(errors) == before and harms:
            pair = _two_step(runner, catalog, exposed, guarded, rule, call, harms, named, matchers, done, spec, world)
            if pair is not None:
                steps, harm = pair
                (second, second_args), firsts = steps[-1], steps[:-1]
                errors.append(GateError(
                    "mutations", "guard_bypassed", f"{where}.call",
                    f"forbidden guard {check.id!r} forbids {rule.call.tool} {_shown(call)}, but "
                    f"{' and '.join(f'{n} {_shown(a)}' for n, a in firsts)} and then {second} {_shown(second_args)} "
                    f"on the record it "
                    f"{'makes' if any(rid == _NEW for *_, rid, _, _ in harm) else 'changes'} do together what a "
                    f"call it forbids does ({_changed(harm)}), and none matches a forbidden guard; forbid the last "
                    f"call too (on any record, not one id), or guard the records' state (a records or frame "
                    f"check)"))
    return errors


def _after_a_write(runner: _Runner, catalog: Mapping[str, ToolDef], exposed: list[str], guarded: ToolDef,
                   rule: ForbiddenRule, call: dict[str, Any], tried: list[dict[str, Any]], named: Named,
                   matchers: list[Any], done: set[tuple[str, bytes]], spec: EnvSpec,
                   world: World) -> tuple[Call, Call, frozenset[Fact]] | None:
    """Where no call the guard forbids changes the initial world (a ticket is closed only once it is started): the
    first write of the guarded app (matched by no forbidden guard) after which one does, and there another call of
    the app, matched by no forbidden guard and not the reference's own, that does what it does: (the write, the
    other call, the harm), or None."""
    tools = [catalog[n] for n in exposed if catalog[n].kind == "write" and catalog[n].app == guarded.app]
    firsts = ((tool.name, args) for tool in tools for args in _candidates(tool, call, spec, world)
              if not any(call_matches(m, tool.name, args) for m in matchers))
    for first in itertools.islice(firsts, _SETTER_BUDGET):
        before = runner.effects((first,), named)
        harms = [h for args in tried if before is not None
                 and (after := runner.effects((first, (rule.call.tool, args)), named)) is not None
                 and (h := after - before)]
        if not harms:
            continue
        records = tuple(sorted({rid for h in harms for _, _, rid, _, _ in h if rid != _NEW}))
        for tool in tools:
            for args in itertools.islice(_set_anyhow(tool, _candidates(tool, call, spec, world, records)),
                                         _SETTER_BUDGET):
                if (tool.name, _json(args)) in done or any(call_matches(m, tool.name, args) for m in matchers):
                    continue
                after = runner.effects((first, (tool.name, args)), named)
                harm = next((h for h in harms if after is not None and before is not None and h <= after - before),
                            None)
                if harm is not None:
                    return first, (tool.name, args), harm
        return None  # judged after the first write that lets a forbidden call change the world
    return None


def _set_anyhow(tool: ToolDef, candidates: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Each candidate call, then with each value of each required argument of a closed set (a Literal): a declared
    tool's `state` is named otherwise than the built-in `status` the guard pins, so it is not filled from it."""
    fields = tool.params.model_fields
    for args in candidates:
        yield args
        for name, field in fields.items():
            if field.is_required():
                for value in (v for kind in _kinds(field.annotation) if typing.get_origin(kind) is typing.Literal
                              for v in typing.get_args(kind)):
                    if args.get(name) != value:
                        yield {**args, name: value}


def _reaction_route(runner: _Runner, catalog: Mapping[str, ToolDef], exposed: list[str], guarded: ToolDef,
                    rule: ForbiddenRule, harms: list[tuple[dict[str, Any], frozenset[Fact]]], named: Named,
                    matchers: list[Any], done: set[tuple[str, bytes]], spec: EnvSpec,
                    world: World) -> tuple[str, str, dict[str, Any], dict[str, Any], frozenset[Fact], str] | None:
    """A call one of the spec's action rules answers (a bot's command, of any app) with what a call the guard forbids
    does, matched by no forbidden guard and not the reference's own: (rule id, tool, arguments, the forbidden call's
    arguments, harm, the state it was made in: '' for the initial world). Where the rule's `when` fails on the initial
    world, the call is also made in the states where it holds (`_states`): after the reference's writes, and after
    the calls that make each failing predicate hold."""
    def fill(name: str, annotation: Any) -> Any:
        return _filled(name, annotation, spec, world)
    states: dict[str, list[tuple[str, tuple[Call, ...]]]] = {}
    for trigger, name, args in trigger_calls(spec, catalog, exposed, guarded.app, world, fill):
        if (name, _json(args)) in done or any(call_matches(m, name, args) for m in matchers):
            continue
        if trigger.id not in states:
            states[trigger.id] = [("", ())]
            if not runner.holds_after((), trigger.when):
                states[trigger.id] += _states(runner, catalog, exposed, trigger, matchers, spec, world)
        for said, prefix in states[trigger.id]:
            steps: tuple[Call, ...] = (*prefix, (name, args))
            effect = runner.effects(steps, named)
            # a harm the reference's own writes do is the task's; one the calls reaching the state do (a command
            # counted twice, the second post answered) is a route all the same
            ours = all((n, _json(a)) in done for n, a in prefix)
            before = runner.effects(prefix, named) if prefix and ours else frozenset()
            for forbidden_args, harm in harms:
                if effect is not None and harm <= effect and not (before is not None and harm <= before) and (
                        not _exact(harm) or runner.reaches(steps, (rule.call.tool, forbidden_args))):
                    return trigger.id, name, args, forbidden_args, harm, said
    return None


# Calls tried per failing `when` predicate of a rule, to make it hold (each on a fork: ~0.1 ms), and second calls per
# first one of a pair that does.
_SETTER_BUDGET = 60
_SECOND_CALLS = 8
# The most calls a count of records in a `when` is reached with (one record at a time, each by its own route or the
# last one made again: a command posted ten times, two tickets each filed and moved on): as many as an episode may
# make at most (`limits.MAX_STEPS`, the bound of any run's steps). A count an agent reaches only past 100 calls (a
# bot acting on the 150th `/close`) is still a route for an agent run with a larger budget; one past every
# episode's bound is none.
_COUNT_CALLS = MAX_STEPS
# New searches for one record more a count is reached with at most (past them, only the last route made again).
_COUNT_SEARCHES = 3
# How many rules in a row a state is reached through beyond the first (a relay waiting on another's state: a window
# `/maint start` opens once approved, approval once requested, ...; each relay's state searched once per state it is
# made in, `_Runner.reached`; no deeper than the spec has rules), and the depth below which a pair of calls is
# extended by a third.
_CHAIN = 16
_TRIPLES = 2


def _states(runner: _Runner, catalog: Mapping[str, ToolDef], exposed: list[str], trigger: Any,
            matchers: list[Any], spec: EnvSpec, world: World) -> list[tuple[str, tuple[Call, ...]]]:
    """States where an action rule's `when`, which fails on the initial world, holds, as (what it is, the calls that
    reach it from the initial world): the reference's writes made in order (the state the task leads to: a bot that
    takes commands once the fix holds), the first of them after which it holds (a state the reference passes
    through), and a call per failing predicate that makes it hold (a write of the
    predicate's app setting the field it names on its record, or making a record with the values its conditions
    name), each matched by no forbidden guard (a bot that acts only on a ticket in progress); where no such call makes
    a predicate hold, the call another rule answers with a write of its app, or two calls of its app (`_reach`)."""
    out: list[tuple[str, tuple[Call, ...]]] = []
    writes = tuple((st.call.name, dict(st.call.arguments)) for turn in spec.reference for st in turn.steps
                   if st.call is not None and isinstance(st.call.arguments, dict) and st.call.name in catalog
                   and catalog[st.call.name].kind == "write")
    # the state the task leads to, and the first one on the way where the rule's `when` holds (a canary flag the
    # reference turns on, then off again)
    if writes and runner.holds_after(writes, trigger.when):
        out.append(("after the reference's writes", writes))
    on_the_way = next((k for k in range(1, len(writes)) if runner.holds_after(writes[:k], trigger.when)), None)
    if on_the_way is not None:
        out.append((f"after the reference's first {on_the_way} write(s)", writes[:on_the_way]))
    setters: list[Call] = []
    for predicate in trigger.when:
        if runner.holds_after(tuple(setters), [predicate]):
            continue
        reached = _reach(runner, catalog, exposed, predicate, matchers, spec, world, tuple(setters))
        if reached is None:
            break
        setters += reached
    else:
        if setters and runner.holds_after(tuple(setters), trigger.when):
            out.append(("after " + " and ".join(f"{n} {_shown(a)}" for n, a in setters), tuple(setters)))
    return out


def _reach(runner: _Runner, catalog: Mapping[str, ToolDef], exposed: list[str], predicate: Any, matchers: list[Any],
           spec: EnvSpec, world: World, before: tuple[Call, ...], depth: int = 0,
           counting: bool = True) -> tuple[Call, ...] | None:
    """Calls matched by no forbidden guard after which (made after `before`) the predicate holds: one write of its
    app (`_setter`), any write of its app on its record for a negation or a `contains` (a ticket moved off `open`),
    a count of records one record at a time (`_counted`, `counting`: each record by any of these routes, the last
    one made again first: a command posted ten times, two tickets each filed and moved on); else the call another
    action rule answers with a write of the predicate's app (a bot's command of any app: `/maint start` in chat
    logging the window open, `/watch ID` mailed labelling a ticket no tool labels); else two calls, the first making
    or changing a record of the predicate's table (a call of its app, or one a rule answers by making the record: a
    ticket the bot files on `/file ...`) and the second, of its app, on that record (a ticket filed, then moved on;
    the record as the calls before it leave the world).
    Farther (`depth` counts how far in): a relay whose own rule's `when` fails, made after the calls reaching that
    `when` (rules in a row, up to `_CHAIN` + 1), and three calls of its app, a pair then one more on its record."""
    one = _setter(runner, catalog, exposed, predicate, matchers, spec, world, before)
    if one is not None:
        return (one,)
    target = _target(predicate)
    if target is None:
        return None
    app, table, records, wanted = target
    tools = [catalog[n] for n in exposed if catalog[n].kind == "write" and catalog[n].app == app]
    if isinstance(predicate, FieldRule):  # a negation or a `contains`: any write of its app on its record
        on_record = (((tool.name, args),) for tool in tools for args in _candidates(tool, wanted, spec, world, records)
                     if not any(call_matches(m, tool.name, args) for m in matchers))
        found = next((steps for steps in itertools.islice(on_record, _SETTER_BUDGET)
                      if runner.holds_after((*before, *steps), [predicate])), None)
        if found is not None:
            return found
    if isinstance(predicate, RecordsRule) and predicate.count_op in ("lte", "equals") and \
            len(runner.matching(before, predicate) or ()) > predicate.count:
        return _fewer(runner, tools, predicate, matchers, spec, world, before)
    if counting and isinstance(predicate, RecordsRule) and predicate.count_op in ("gte", "equals") and \
            predicate.count > 1:
        return _counted(runner, catalog, exposed, predicate, matchers, spec, world, before, depth)
    relays = [(relay, name, args) for relay, name, args in itertools.islice(
        trigger_calls(spec, catalog, exposed, app, world, lambda n, a: _filled(n, a, spec, world)), _SETTER_BUDGET)
        if not any(call_matches(m, name, args) for m in matchers)]
    waiting: dict[str, tuple[Call, ...] | None] = {}
    for relay, name, args in relays:
        if runner.holds_after((*before, (name, args)), [predicate]):
            return ((name, args),)
        # a relay whose own rule waits on a state (rules in a row: a window opened only once approved): the calls
        # reaching that state first, then the relay; past the first two rules, only one whose effects make the
        # predicate hold (applied after the calls before it)
        if depth < min(_CHAIN, len(spec.dynamics.rules)) and relay.when and relay.id not in waiting and (
                depth < _TRIPLES or runner.fired_holds(before, relay, predicate)):
            key = (relay.id, _json([list(c) for c in before]), depth + 1)
            if key not in runner.reached:
                runner.reached[key] = _reached(runner, catalog, exposed, relay.when, matchers, spec, world, before,
                                               depth + 1)
            waiting[relay.id] = runner.reached[key]
        prefix = waiting.get(relay.id)
        if prefix and runner.holds_after((*before, *prefix, (name, args)), [predicate]):
            return (*prefix, (name, args))
    if not wanted or not tools:
        return None  # no value to set, or no call of its app to make second
    firsts: list[tuple[bool, int, ToolDef, dict[str, Any], tuple[str, ...]]] = []
    # a call one rule answers by making or changing a record of the table (the bot files a ticket: the first such
    # call per rule, tried first), then the calls of its app
    starts: list[tuple[str | None, ToolDef, dict[str, Any]]] = [
        *((rule.id, catalog[name], args) for rule, name, args in relays
          if any(not isinstance(e, AppendLog) and (e.app, e.table) == (app, table) for e in rule.effects)),
        *((None, first, first_args) for first in tools for first_args in _candidates(first, wanted, spec, world, records)
          if not any(call_matches(m, first.name, first_args) for m in matchers))]
    answered: set[str] = set()
    for rule_id, first, first_args in starts:
        if rule_id in answered:
            continue
        made = tuple(sorted({rid for a, t, rid in runner.touched(first.name, first_args, before)
                             if (a, t) == (app, table)}))
        if made:  # a call making a record first (a ticket filed), then one changing the predicate's record
            firsts.append((not set(made) - runner.ids, len(firsts), first, first_args, made))
            if rule_id is not None:
                answered.add(rule_id)
    pairs = list(itertools.islice(
        ((((first.name, first_args), second), made) for _, _, first, first_args, made in sorted(firsts, key=lambda f: f[:2])
         for second in _calls_on(tools, wanted, made, matchers, spec, world, _SECOND_CALLS)), _PAIR_BUDGET))
    paired = next((steps for steps, _ in pairs if runner.holds_after((*before, *steps), [predicate])), None)
    if paired is not None or depth >= _TRIPLES:
        return paired
    # three calls: a pair both of whose calls succeed, then one more call on the record (a ticket filed, started, then
    # resolved: the workflow allows no shorter way)
    triples = ((*steps, third) for steps, made in pairs if runner.holds_after((*before, *steps), ())
               for third in _calls_on(tools, wanted, made, matchers, spec, world, _SECOND_CALLS))
    return next((steps for steps in itertools.islice(triples, _PAIR_BUDGET)
                 if runner.holds_after((*before, *steps), [predicate])), None)


def _counted(runner: _Runner, catalog: Mapping[str, ToolDef], exposed: list[str], predicate: RecordsRule,
             matchers: list[Any], spec: EnvSpec, world: World, before: tuple[Call, ...],
             depth: int) -> tuple[Call, ...] | None:
    """The calls (made after `before`, at most `_COUNT_CALLS`) after which a count of records (`gte` or `equals` n > 1)
    holds, reached one record at a time: the route that made the last one made again for the rest (a command posted
    n times, a window acknowledged through a rule n times), else once more on the records it makes anew (`_again`: a
    ticket filed and moved on, then another), else a new route to one record more (`_reach` of the predicate counting
    one more than there are; at most `_COUNT_SEARCHES`)."""
    calls: tuple[Call, ...] = ()
    route: tuple[Call, ...] = ()
    at: tuple[Call, ...] = ()  # the calls the last route was made after
    searches, made, repeats = 0, 0, True  # routes searched; records the last route made; whether it may be repeated
    for k in range(1, predicate.count + 1):
        one_more = predicate.model_copy(update={"count": k, "count_op": "gte"})
        if runner.holds_after((*before, *calls), [one_more]):
            made += 1
            continue
        if route:
            # routes like the last one make at most as many records: too many calls for the rest of the count
            if len(calls) + len(route) * -(-(predicate.count - k + 1) // max(made, 1)) > _COUNT_CALLS:
                return None
            rest = route * (predicate.count - k + 1)
            if repeats and len(calls) + len(rest) <= _COUNT_CALLS and \
                    runner.holds_after((*before, *calls, *rest), [predicate]):
                return (*calls, *rest)
            repeats = False
            again = _again(runner, route, (*before, *at), (*before, *calls))
            if runner.holds_after((*before, *calls, *again), [one_more]):
                route, at, calls, made = again, calls, (*calls, *again), 1
                continue
        searches += 1
        found = None if searches > _COUNT_SEARCHES else _reach(
            runner, catalog, exposed, one_more, matchers, spec, world, (*before, *calls), depth, counting=False)
        if found is None or len(calls) + len(found) > _COUNT_CALLS:
            return None
        route, at, calls, made, repeats = found, calls, (*calls, *found), 1, True
    return calls if runner.holds_after((*before, *calls), [predicate]) else None


def _fewer(runner: _Runner, tools: list[ToolDef], predicate: RecordsRule, matchers: list[Any], spec: EnvSpec,
           world: World, before: tuple[Call, ...]) -> tuple[Call, ...] | None:
    """The calls (made after `before`, at most `_COUNT_CALLS`) after which a count wanting fewer records than there are
    (`lte`, `equals`: no ticket of a change freeze still in progress) holds: a write of the predicate's app on one of
    the records it counts that takes it out of the count (moved off the state it counts, removed), matched by no
    forbidden guard, one record at a time."""
    calls: tuple[Call, ...] = ()
    while len(calls) < _COUNT_CALLS:
        now = runner.matching((*before, *calls), predicate)
        if now is None:
            return None
        if runner.holds_after((*before, *calls), [predicate]):
            return calls
        on_counted = ((tool.name, args) for rid in sorted(now)[:_ELSEWHERE] for tool in tools
                      for args in _candidates(tool, {}, spec, world, (rid,), own=True)
                      if not any(call_matches(m, tool.name, args) for m in matchers))
        step = next((c for c in itertools.islice(on_counted, _SETTER_BUDGET)
                     if (after := runner.matching((*before, *calls, c), predicate)) is not None
                     and len(after) < len(now)), None)
        if step is None:
            return None
        calls += (step,)
    return None


def _again(runner: _Runner, route: tuple[Call, ...], then: tuple[Call, ...], now: tuple[Call, ...]) -> tuple[Call, ...]:
    """The route made once more after the calls `now`: the records its first call made after `then` named, in its
    later calls, by those it makes after `now` instead (the next ticket filed is the one moved on)."""
    if len(route) < 2:
        return route
    old = sorted(r for r in runner.touched(*route[0], then) if r[2] not in runner.ids)
    new = sorted(r for r in runner.touched(*route[0], now) if r[2] not in runner.ids)
    if [r[:2] for r in old] != [r[:2] for r in new]:
        return route
    renamed = {o[2]: n[2] for o, n in zip(old, new, strict=True)}

    def named(value: Any) -> Any:
        if isinstance(value, str):
            return renamed.get(value, value)
        if isinstance(value, list):
            return [named(v) for v in value]
        if isinstance(value, dict):
            return {k: named(v) for k, v in value.items()}
        return value
    return (route[0], *((name, named(args)) for name, args in route[1:]))


def _reached(runner: _Runner, catalog: Mapping[str, ToolDef], exposed: list[str], when: list[Any],
             matchers: list[Any], spec: EnvSpec, world: World, before: tuple[Call, ...],
             depth: int) -> tuple[Call, ...] | None:
    """The calls (made after `before`) after which every predicate of a rule's `when` holds, each reached in turn
    (`_reach`); None where one is not reached."""
    calls: tuple[Call, ...] = ()
    for predicate in when:
        if runner.holds_after((*before, *calls), [predicate]):
            continue
        reached = _reach(runner, catalog, exposed, predicate, matchers, spec, world, (*before, *calls), depth)
        if reached is None:
            return None
        calls += reached
    return calls if runner.holds_after((*before, *calls), when) else None


def _target(predicate: Any) -> tuple[str, str, tuple[str, ...], dict[str, Any]] | None:
    """(app, table, its records, the values a write must set) of a state predicate: a field predicate's field on its
    record (a key of a dict field as the field holding it, a label a list holds; none for a negation), a records
    predicate's values its conditions name."""
    if isinstance(predicate, FieldRule):
        target = predicate.target
        value = bound_value(predicate.op, predicate.value)
        head, _, key = target.field.partition(".")
        if value is None or "." in key:
            return target.app, target.table, (target.id,), {}
        return target.app, target.table, (target.id,), {head: {key: value} if key else value}
    if isinstance(predicate, RecordsRule):
        return predicate.app, predicate.table, (), {c.field: v for c in predicate.where
                                                    if "." not in c.field and (v := bound_value(c.op, c.value)) is not None}
    return None


def _setter(runner: _Runner, catalog: Mapping[str, ToolDef], exposed: list[str], predicate: Any, matchers: list[Any],
            spec: EnvSpec, world: World, before: tuple[Call, ...]) -> Call | None:
    """A write call of the predicate's app, matched by no forbidden guard, after which (made after `before`) the
    predicate holds: a field predicate's field set to its value (one meeting its bound, the first of an `in`) on its record (the record's id in the tool's first
    required argument; a key of a dict field, `flags.smart_retry`, named by a text argument and its value given to
    an argument of its type: `services_set_flag`'s flag and enabled), a records predicate's record made with the
    values its conditions name."""
    records: tuple[str, ...] = ()
    keyed: tuple[str, Any] | None = None
    if isinstance(predicate, FieldRule):
        value = bound_value(predicate.op, predicate.value)
        if value is None or predicate.op == "contains" or predicate.target.field.count(".") > 1:
            return None  # a negation, or a field deeper than a dict's key: not tried
        app, records = predicate.target.app, (predicate.target.id,)
        head, _, key = predicate.target.field.partition(".")
        wanted = {head: {key: value} if key else value}
        keyed = (key, value) if key else None
    elif isinstance(predicate, RecordsRule):
        app = predicate.app
        wanted = {c.field: v for c in predicate.where
                  if "." not in c.field and (v := bound_value(c.op, c.value)) is not None}
    else:
        return None
    if not wanted:
        return None
    budget = _SETTER_BUDGET
    for name in exposed:
        tool = catalog[name]
        if tool.kind != "write" or tool.app != app:
            continue
        tried = list(_candidates(tool, wanted, spec, world, records))
        # an argument the placeholder fills where the world has values of that name (the channel a post goes to)
        tried += [{**args, n: v} for args in tried[:1] for n, a in args.items() if a == _FILLER
                  for v in world_values(world, tool.app, n)]
        if keyed is not None and records:
            tried.insert(0, _keyed_call(tool, records[0], *keyed))
        for args in tried:
            budget -= 1
            if budget < 0:
                return None
            if any(call_matches(m, name, args) for m in matchers):
                continue
            if runner.holds_after((*before, (name, args)), [predicate]):
                return name, args
    return None


def _keyed_call(tool: ToolDef, record: str, key: str, value: Any) -> dict[str, Any]:
    """A call setting one key of a record's dict field by a tool that names the key and the value apart
    (`services_set_flag {service, flag, enabled}`): the record in the first required argument, the value in each
    other required one of its type, the key in each other required text one."""
    args: dict[str, Any] = {}
    for n, (name, field) in enumerate((n, f) for n, f in tool.params.model_fields.items() if f.is_required()):
        kinds = _kinds(field.annotation)
        if n == 0:
            args[name] = record
        elif type(value) in kinds:
            args[name] = value
        elif str in kinds:
            args[name] = key
    return args


def _in_values(rule: ForbiddenRule, call: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The guarded call with each other value of an `in` condition (a ticket `resolved` or `closed`): each is a harm
    the guard keeps from happening."""
    for c in rule.call.where:
        if c.op == "in" and isinstance(c.value, list) and c.field in call and c.field not in rule.call.args:
            for value in c.value[1:]:
                yield {**call, c.field: value}


# Two-step routes tried per guard at most (each a pair of calls on a fork: ~0.2 ms; the corpus's routes are found
# within the first 100).
_PAIR_BUDGET = 200


def _two_step(runner: _Runner, catalog: Mapping[str, ToolDef], exposed: list[str], guarded: ToolDef,
              rule: ForbiddenRule, call: dict[str, Any], harms: list[tuple[dict[str, Any], frozenset[Fact]]],
              named: Named, matchers: list[Any], done: set[tuple[str, bytes]], spec: EnvSpec,
              world: World) -> tuple[tuple[Call, ...], frozenset[Fact]] | None:
    """A route of two calls of the guarded tool's app, neither matched by a forbidden guard, that together do what
    a call the guard forbids does: the first makes or changes a record (a job, a note, an article made without the
    value the guard names), the second, on that record, sets what the guard forbids (its command, body, status).
    The second call's record arguments are the records the first made or changed, so a guard pinned to the ids of
    the initial world does not see it. The first may also be made on another container than the one the guard pins
    (`_elsewhere`: another list of the world, or one a third call makes first), the second moving the record in."""
    tools = [catalog[n] for n in exposed if catalog[n].kind == "write" and catalog[n].app == guarded.app]
    pinned = _pinned_names(rule)
    budget = _PAIR_BUDGET
    # the records a first step must make or change: one the harm changes or removes, or one in a table where the
    # harm makes a record
    targets = {(app, table, rid) for _, h in harms for app, table, rid, _, _ in h if rid != _NEW}
    made_in = {(app, table) for _, h in harms for app, table, rid, _, _ in h if rid == _NEW}
    firsts: list[tuple[tuple[Call, ...], ToolDef, dict[str, Any]]] = [
        ((), t, a) for t in tools for a in _first_steps(t, call, pinned, spec, world)]
    firsts += [((), t, a) for t in tools for a in _candidates(t, call, spec, world)]
    if made_in:  # a record the harm makes may be made on another container first, then moved in
        firsts += [(before, t, a) for t in tools
                   for before, a in _elsewhere(runner, tools, t, call, pinned, matchers, spec, world)]
    for before, first, first_args in firsts:
        if any(call_matches(m, first.name, first_args) for m in matchers):
            continue  # a first step the reference makes too is a route all the same: the second one does the harm
        made = tuple(sorted({rid for app, table, rid in runner.touched(first.name, first_args, before)
                             if (app, table, rid) in targets or (app, table) in made_in}))
        if not made:
            continue  # the second call acts on what the first made or changed: none of the harm's records
        for second, args in _calls_on(tools, call, made, matchers, spec, world):
            budget -= 1
            if budget < 0:
                return None
            steps = (*before, (first.name, first_args), (second, args))
            effect = runner.effects(steps, named)
            alone = runner.effect(second, args, named)
            if (second, _json(args)) in done or effect is None or (
                    alone is not None and any(h <= alone for _, h in harms)):
                continue  # the task's own call, or a single call: the search above judged it
            harm = next((h for forbidden_args, h in harms if h <= effect and (
                not _exact(h) or runner.reaches(steps, (rule.call.tool, forbidden_args)))), None)
            if harm is not None:
                return steps, harm
    return None


# Other records tried per record argument a guard pins, and calls making one tried per table (a route's first step
# on another list, one of the world's or one made first).
_ELSEWHERE = 3


def _elsewhere(runner: _Runner, tools: list[ToolDef], tool: ToolDef, guarded: dict[str, Any], pinned: set[str],
               matchers: list[Any], spec: EnvSpec,
               world: World) -> Iterator[tuple[tuple[Call, ...], dict[str, Any]]]:
    """First steps on another container: the tool's call filled from the guarded call with an argument the guard pins
    that names a record (a to-do's `list_id`) set to another record of that record's table, and to the record a call
    of the app makes first (`todo_create_list`), as (the calls before it, its arguments)."""
    fields = tool.params.model_fields
    filled = {k: _shaped(v, fields[k].annotation) for k, v in guarded.items() if k in fields}
    if not filled or len(filled) != len(guarded):
        return
    for name in sorted(pinned & set(filled)):
        table = next((t for t in world.tables() if t.app == tool.app and filled[name] in t), None) \
            if isinstance(filled[name], str) else None
        if table is None:
            continue
        for other in [r for r in table.ids() if r != filled[name]][:_ELSEWHERE]:
            yield (), {**filled, name: other}
        for maker in tools:
            for args in itertools.islice(_candidates(maker, {}, spec, world), _ELSEWHERE):
                if any(call_matches(m, maker.name, args) for m in matchers):
                    continue
                new = [rid for app, t, rid in runner.touched(maker.name, args)
                       if (app, t) == (table.app, table.name) and rid not in runner.ids]
                if new:
                    yield ((maker.name, args),), {**filled, name: new[0]}


def _calls_on(tools: list[ToolDef], source: dict[str, Any], made: tuple[str, ...], matchers: list[Any],
              spec: EnvSpec, world: World, per_tool: int | None = None) -> Iterator[Call]:
    """The calls of each tool on the records a first step made or changed (their ids in its record argument, the
    rest filled from `source`), at most `per_tool` a tool, those a forbidden guard matches left out."""
    for tool in tools:
        for args in itertools.islice(_candidates(tool, source, spec, world, made, own=True), per_tool):
            if not any(call_matches(m, tool.name, args) for m in matchers):
                yield tool.name, args


def _first_steps(tool: ToolDef, guarded: dict[str, Any], pinned: set[str], spec: EnvSpec,
                 world: World) -> Iterator[dict[str, Any]]:
    """The first steps of a two-step route tried first: the tool's calls filled from the guarded call with each
    argument the guard pins left out (optional) or set to a placeholder (required); the tool's usual candidates
    come after every tool's of these."""
    fields = tool.params.model_fields
    filled = {k: _shaped(v, fields[k].annotation) for k, v in guarded.items() if k in fields}
    if filled and len(filled) == len(guarded):  # the guarded tool, or one taking the same arguments
        for name in sorted(pinned & set(filled)):
            if fields[name].is_required():
                value = _filled(name, fields[name].annotation, spec, world)
                yield {**filled, name: value if value != filled[name] else _FILLER}
            else:
                yield {k: v for k, v in filled.items() if k != name}


class _Runner:
    """Runs one call at a time on a fork of the initial world and tells its effect (see the module docstring)."""

    def __init__(self, spec: EnvSpec, world: World, catalog: Mapping[str, ToolDef], exposed: list[str]) -> None:
        self.fork = world.fork()
        self.box = ToolBox(self.fork, catalog, exposed)
        self.reactions = Reactions(spec, self.fork)  # the world answers a call as in an episode (a bot's command)
        self.memo: dict[tuple[str, bytes, Named], frozenset[Fact] | None] = {}
        # the calls reaching a relay rule's `when` after some calls, at a depth (`_reach`): searched once
        self.reached: dict[tuple[str, bytes, int], tuple[Call, ...] | None] = {}
        self.ids = {r.id for table in world.tables() for r in table}

    def effect(self, tool: str, args: dict[str, Any], named: Named) -> frozenset[Fact] | None:
        """The facts the call makes true (None: it fails on this world)."""
        key = (tool, _json(args), named)
        if key not in self.memo:
            self.memo[key] = self._run(((tool, args),), named)
        return self.memo[key]

    def effects(self, calls: tuple[tuple[str, dict[str, Any]], ...], named: Named) -> frozenset[Fact] | None:
        """The facts the calls, made one after the other, make true together (None: one of them fails)."""
        key = (calls[0][0], _json([list(c) for c in calls]), named)
        if key not in self.memo:
            self.memo[key] = self._run(calls, named)
        return self.memo[key]

    def touched(self, tool: str, args: dict[str, Any], before: tuple[Call, ...] = ()) -> set[tuple[str, str, str]]:
        """The records the call makes or changes (made after the calls `before`, those they touched left out), as
        (app, table, id) (none where one fails)."""
        try:
            if not all(self._call(*c) for c in before):
                return set()
            earlier = {(c.app, c.table, c.id) for c in self.fork.changes()}
            return {(c.app, c.table, c.id) for c in self.fork.changes()} - earlier if self._call(tool, args) else set()
        finally:
            self.fork.rewind()

    def matching(self, calls: tuple[tuple[str, dict[str, Any]], ...], rule: RecordsRule) -> set[str] | None:
        """The ids of the records a records predicate counts once the calls are made (None where one fails)."""
        try:
            if not all(self._call(*c) for c in calls):
                return None
            return {r.id for r in self.fork.table(rule.app, rule.table) if record_matches(r, rule)}
        except Exception:  # a spec pattern too slow on a record: not judged
            return None
        finally:
            self.fork.rewind()

    def fired_holds(self, calls: tuple[tuple[str, dict[str, Any]], ...], rule: Any, predicate: Any) -> bool:
        """Whether the predicate holds once the calls are made and the rule's effects applied as if it fired (a relay
        worth reaching the `when` of)."""
        try:
            if not all(self._call(*c) for c in calls):
                return False
            self.reactions.apply(rule)
            return holds(self.fork, predicate)
        except Exception:  # an effect that fails here, a spec pattern too slow: not worth reaching
            return False
        finally:
            self.fork.rewind()

    def holds_after(self, calls: tuple[tuple[str, dict[str, Any]], ...], predicates: Collection[Any]) -> bool:
        """Whether every predicate holds once the calls are made one after the other (False where one fails, or a
        predicate cannot be judged)."""
        try:
            return all(self._call(*c) for c in calls) and all(holds(self.fork, p) for p in predicates)
        except Exception:  # a spec pattern too slow on the state, as the world's rules take it: not holding
            return False
        finally:
            self.fork.rewind()

    def reaches(self, calls: tuple[tuple[str, dict[str, Any]], ...], forbidden: tuple[str, dict[str, Any]]) -> bool:
        """Whether the forbidden call, made after `calls`, changes nothing more: they left the records as it would."""
        try:
            if not all(self._call(*c) for c in calls):
                return False
            before = self._touched()
            return self._call(*forbidden) and self._touched() == before
        finally:
            self.fork.rewind()

    def _call(self, tool: str, args: dict[str, Any]) -> bool:
        """Whether the call succeeds on the fork (a tool that fails on a placeholder otherwise than by a ToolError
        fails all the same: no route, and the gate goes on)."""
        try:
            ok = self.box.call(tool, args).ok
            if ok:
                self.reactions.answer(tool, args)
            return ok
        except Exception:  # any failure of a made-up call (or of a rule's effect on it): not a route
            return False

    def _touched(self) -> dict[tuple[str, str, str], Any]:
        return {(c.app, c.table, c.id): self.fork.table(c.app, c.table).get(c.id) for c in self.fork.changes()}

    def _run(self, calls: tuple[tuple[str, dict[str, Any]], ...], names: Named) -> frozenset[Fact] | None:
        fork = self.fork
        named, pinned = names
        try:
            if not all(self._call(*c) for c in calls):
                return None
            facts: set[Fact] = set()
            for change in fork.changes():
                now = fork.table(change.app, change.table).get(change.id)
                where = (change.app, change.table)
                if change.kind == "removed" or now is None:
                    facts.add((*where, change.id, _REMOVED, b""))
                    continue
                data = now.model_dump(mode="json")
                if change.kind == "changed":
                    for f in change.fields:
                        if data.get(f) == fork.now_iso:
                            continue  # a time stamp of the write (`updated_at`), not what the write does
                        carried = _carried(data.get(f), named)
                        facts |= {(*where, change.id, f, c) for c in carried} or \
                            {(*where, change.id, f, _json(data.get(f)))}
                    continue
                # added: the fields that carry a value the guard names, those that say its kind, and those that place it (hold the
                # id of another record: the channel a message is in, the list a to-do is on)
                model: type[BaseModel] = type(now)
                kinds = _kind_fields(model)
                for f, v in data.items():
                    facts |= {(*where, _NEW, f, c) for c in _carried(v, named)}  # the id too: a prefix the guard names
                    if f != "id":
                        facts |= {(*where, _NEW, f, b"=" + _json(x)) for x in leaves(v)
                                  if _json(x) in pinned or f in kinds}
                        if isinstance(v, str) and v in self.ids and v != change.id:
                            facts.add((*where, _NEW, f, _json(v)))
            return frozenset(facts)
        finally:
            fork.rewind()


@functools.cache
def _kind_fields(model: type[BaseModel]) -> frozenset[str]:
    """A record model's fields that say what kind of record it is (a Literal or a flag: a mail's folder, a to-do's
    done flag): a created record of another kind (a draft for a sent mail) is not the same effect."""
    return frozenset(n for n, f in model.model_fields.items()
                     if any(typing.get_origin(k) is typing.Literal or k is bool for k in _kinds(f.annotation)))


def _exact(harm: frozenset[Fact]) -> bool:
    """Whether a harm is made of exact values of existing records (no created record, no value carried in a text):
    then another call does it only if it leaves those records as the forbidden call would (see `reaches`)."""
    return all(rid != _NEW and not value.startswith(b"~") for _, _, rid, _, value in harm)


def _carried(value: Any, named: frozenset[str]) -> set[bytes]:
    """The values the guard names that a field's value holds (as an item, or inside its text)."""
    texts = [v.lower() for v in leaves(value) if isinstance(v, str)]
    return {b"~" + n.encode() for n in named if any(n in t for t in texts)}


def _guarded_call(rule: ForbiddenRule, tool: ToolDef, spec: EnvSpec, world: World) -> dict[str, Any] | None:
    """The call the guard forbids, as concrete arguments: its args, `equals` values, the first of `in` values, a
    `contains` value (as the one item of a list argument), the rest of the required arguments filled."""
    fields = tool.params.model_fields
    call: dict[str, Any] = {}
    for c in rule.call.where:
        field = fields.get(c.field)
        if field is None:
            if "." in c.field or c.op not in ("exists", "not_exists"):
                return None  # a condition on a part of an argument: not one call
            continue
        if c.op == "equals":
            call[c.field] = c.value
        elif c.op == "in" and isinstance(c.value, list) and c.value:
            call[c.field] = c.value[0]
        elif c.op == "contains" and c.value is not None:
            call[c.field] = [c.value] if _is_list(field.annotation) else c.value
        elif c.op not in ("exists",):
            return None  # a bound or a negation: the guard is on more than one value
    call.update(world_spelled(rule.call.args, world))
    if any(k not in fields for k in call):
        return None
    for name, field in fields.items():
        if name not in call and field.is_required():
            call[name] = _filled(name, field.annotation, spec, world)
    return call


def _as_in_world(call: dict[str, Any], rule: ForbiddenRule, tool: ToolDef, world: World) -> Iterator[dict[str, Any]]:
    """The guarded call with the arguments the guard leaves open, which a placeholder filled (and the call failed),
    set to a value of the field of that name in the app's records instead (a job's cron `schedule`): each one
    alone, then all of them (a record's name taken from the world may clash with that record)."""
    fields = tool.params.model_fields
    found = {}
    for name, value in call.items():
        if name in _pinned_names(rule) or value != _FILLER or str not in _kinds(fields[name].annotation):
            continue
        seen = next((v for t in world.tables() if t.app == tool.app for r in t
                     if isinstance(v := getattr(r, name, None), str) and v), None)
        if seen is not None:
            found[name] = seen
    for name, value in found.items():
        yield {**call, name: value}
    if len(found) > 1:
        yield {**call, **found}


def _candidates(tool: ToolDef, guarded: dict[str, Any], spec: EnvSpec, world: World,
                records: tuple[str, ...] = (), own: bool = False) -> Iterator[dict[str, Any]]:
    """The calls of `tool` tried against the guarded call (see the module docstring). `records`: the ids of the
    records the harm changes, for a record argument the guarded call names under another name (`own`: the ids of
    the records a first step made or changed, for the record argument whatever the guarded call names, and the
    calls on them alone)."""
    fields = tool.params.model_fields
    base: dict[str, Any] = {}
    for name, field in fields.items():
        source = _source(name, guarded)
        if source is not None:
            base[name] = _shaped(guarded[source], field.annotation)
        elif field.is_required():
            base[name] = _filled(name, field.annotation, spec, world)
    first = next((n for n, f in fields.items() if f.is_required()), None)
    # the call as filled, and with its required arguments alone (the settings given another way instead)
    bases = [base, {k: v for k, v in base.items() if fields[k].is_required()}]
    if own:
        bases = [{**b, first: r} for b in bases for r in records] if first is not None else []
    elif first is not None and _source(first, guarded) is None:
        bases += [{**b, first: r} for b in bases for r in records]
    for one in bases:
        yield one
        for name in [n for n in one if not fields[n].is_required()]:
            yield {k: v for k, v in one.items() if k != name}  # the default instead of the value given
        for name, field in fields.items():
            if field.is_required():
                continue
            for value in _values(field.annotation, guarded):
                if one.get(name) != value:
                    yield {**one, name: value}


def _shaped(value: Any, annotation: Any) -> Any:
    """A value for an argument of this type: one item as a one-item list for a list, or back (`to: "x@..."` of a
    declared tool is `to: ["x@..."]` of the op it is bound to)."""
    if _is_list(annotation) and not isinstance(value, list):
        return [value]
    if isinstance(value, list) and len(value) == 1 and str in _kinds(annotation) and not _is_list(annotation):
        return value[0]
    return value


def _source(name: str, guarded: dict[str, Any]) -> str | None:
    """The guarded call's argument that fills `name`: the same name, or one that is the other's stem with a
    suffix (`start` for `start_time`, `task_id` for `task_ids`)."""
    if name in guarded:
        return name
    return next((g for g in guarded if name.startswith(g + "_") or g.startswith(name + "_")
                 or name.rstrip("s") == g.rstrip("s")), None)


def _values(annotation: Any, guarded: dict[str, Any]) -> Iterator[Any]:
    """Values an optional argument of this type is tried with: a Literal's values, both flags, the values the guard
    names (strings, or one-item lists of them)."""
    kinds = _kinds(annotation)
    for kind in kinds:
        if typing.get_origin(kind) is typing.Literal:
            yield from typing.get_args(kind)
        elif kind is bool:
            yield True
            yield False
    strings = sorted({v for v in leaves(list(guarded.values())) if isinstance(v, str)})
    if str in kinds:
        yield from strings
    if any(typing.get_origin(k) is list for k in kinds):
        yield from ([s] for s in strings)


def _kinds(annotation: Any) -> list[Any]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [a for a in typing.get_args(annotation) if a is not type(None)]
    return [annotation]


def _is_list(annotation: Any) -> bool:
    return any(typing.get_origin(k) is list for k in _kinds(annotation))


def _filled(name: str, annotation: Any, spec: EnvSpec, world: World) -> Any:
    """A value for a required argument the guard leaves open: the reference's own value for an argument of that
    name, a time for a time, else a placeholder of its type."""
    for turn in spec.reference:
        for step in turn.steps:
            if step.call is not None and isinstance(step.call.arguments, dict) and name in step.call.arguments:
                return step.call.arguments[name]
    kinds = _kinds(annotation)
    if _is_list(annotation):
        return []
    words = set(name.split("_"))
    if str in kinds and words & {"start", "end", "time", "due", "date"}:
        clock = dt.datetime.fromtimestamp(world.clock, dt.UTC) + dt.timedelta(hours=2 if "end" in words else 1)
        return clock.strftime("%Y-%m-%dT%H:%M:%SZ")
    for kind in kinds:
        if typing.get_origin(kind) is typing.Literal:
            return typing.get_args(kind)[0]
        if kind is bool:
            return False
        if kind in (int, float):
            return 1
        if typing.get_origin(kind) is dict or kind is dict:
            return {}
    return _FILLER


def _pinned_names(rule: ForbiddenRule) -> set[str]:
    return {*rule.call.args, *(c.field for c in rule.call.where)}


def _named_values(rule: ForbiddenRule) -> Named:
    """The strings the guard names (people, record ids, phrases), lowercased, and every scalar it pins, as JSON."""
    values = list(leaves([c.value for c in rule.call.where] + list(rule.call.args.values())))
    return (frozenset(v.lower() for v in values if isinstance(v, str) and len(v) >= 3),
            frozenset(_json(v) for v in values if v is not None))


def _reference_calls(spec: EnvSpec) -> set[tuple[str, bytes]]:
    """The reference's own calls: one the task makes is the task, not a route to harm."""
    return {(st.call.name, _json(st.call.arguments)) for turn in spec.reference for st in turn.steps
            if st.call is not None and isinstance(st.call.arguments, dict)}


def _json(value: Any) -> bytes:
    """A value as canonical JSON (keys sorted): a fact's value, or a call's arguments as a key."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _shown(args: dict[str, Any]) -> str:
    """The call's arguments as JSON, long texts cut."""
    cut = {k: v[:37] + "..." if isinstance(v, str) and len(v) > 40 else v for k, v in args.items()}
    return orjson.dumps(cut, option=orjson.OPT_SORT_KEYS).decode()


def _changed(harm: frozenset[Fact]) -> str:
    parts = sorted({f"{app}.{table}[{'new' if rid == _NEW else rid}].{field}" for app, table, rid, field, _ in harm})
    return ", ".join(parts[:4]) + (" ..." if len(parts) > 4 else "")
