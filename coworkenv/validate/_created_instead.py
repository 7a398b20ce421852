"""Created instead of changed: a new record made to look like the task's record after the change.

A check that finds the task's record by what it holds (`records` where the name is the contact's and the phone
is the new one, count 1) rather than by its id is also met by a new record holding the same: the agent creates a
contact of that name with the new phone and leaves the old one as it was, which is cheaper than finding the
right record, and wrong (the user's contact still has the old number, and now there are two). For each record of
the world that reference writes act on by its id (their first required argument), the last of those writes is
replaced by the app's exposed creating tool (`*_create_*`, `*_add_*`) with every argument it takes filled from
that record as the oracle's run left it (the record after the change, copied), and the earlier writes on it are
dropped; a creating tool is tried only where each of its required arguments is a field of that record (it makes a
record of the same kind). A sound verifier fails the mutant (the record the task names is unchanged); one that
still passes finds the record by its content, not its identity. Where an `order` or `called` check counts calls of
the write's tool, a second mutant also calls it on the record with nothing but the record (a call that changes
nothing, which the check counts all the same), where the tool takes that.

Where the creating tool cannot carry a field the writes change (`tickets_create` sets no status, no comment), the copy
alone does not look like the record after the change, but a copy made as the record was before, with the task's
writes then made on the copy (two to four calls), does: a third mutant makes the copy at the first write and turns
every write on the record into the same write on the copy, whose id is read from a run of the mutant's calls up to
the copy on a fork of the initial world (ids are handed out in creation order).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from coworkenv.bindings import exposed_tools
from coworkenv.env import base_world
from coworkenv.spec import CalledRule, EnvSpec, OrderRule, ReferenceStep, ReferenceTurn, ToolCallSpec
from coworkenv.tools import ToolBox, ToolDef
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._mutation_core import Mutation, turn_of, without
from coworkenv.validate.entities import EntityIndex

_CREATES = re.compile(r"(^|_)(create|add)(_|$)")
_DESTROYS = re.compile(r"(^|_)(delete|cancel|remove)(_|$)")
# Fields a creating tool must not be handed from the copied record: who made it and when are the world's to set.
_NOT_COPIED = frozenset({"id", "created_at", "updated_at", "created_by", "reporter", "organizer", "sender"})


def created_instead_mutations(spec: EnvSpec, tools: Mapping[str, ToolDef],
                              writes: list[tuple[int, int, ToolCallSpec]], index: EntityIndex) -> Iterator[Mutation]:
    """For each record reference writes act on: the record copied, as the oracle's run left it, by the app's creating
    tool (the first whose arguments the record fills) in place of the last write, the earlier ones dropped."""
    creators = [tools[n] for n in exposed_tools(spec) if n in tools and tools[n].kind == "write"
                and _CREATES.search(tools[n].op)]
    if not creators:
        return
    on: dict[str, list[tuple[int, int, ToolCallSpec]]] = {}  # record id -> the writes acting on it, in order
    records: dict[str, dict[str, Any]] = {}
    for t, s, call in writes:
        tool = tools[call.name]
        if _CREATES.search(tool.op) or _DESTROYS.search(tool.op):
            continue
        record = _target(call, tool, index)
        if record is not None:
            on.setdefault(record["id"], []).append((t, s, call))
            records[record["id"]] = record
    for record_id, acts in on.items():
        t, s, call = acts[-1]
        app = tools[call.name].app
        for creator in creators:
            args = _copied(records[record_id], creator) if creator.app == app else None
            if args is None:
                continue
            where = f"reference[{t}].steps[{s}]"
            copy = ReferenceStep(call=ToolCallSpec(name=creator.name, arguments=args))
            what = f"{creator.name} making a copy of {record_id} as changed, instead of {call.name} at {where}"
            yield Mutation("created_instead", where, what, _instead(spec, acts, [copy]), code="created_instead",
                           targets=(creator.name,))
            touch = _touch(call, tools[call.name]) if _process_checked(spec, call.name) else None
            if touch is not None:  # the call a process check counts, made on the record with nothing changed
                yield Mutation("created_instead", where, f"{what}, {call.name} on {record_id} changing nothing",
                               _instead(spec, acts, [touch, copy]), code="created_instead",
                               targets=(creator.name, call.name))
            yield from _written_after(spec, tools, acts, records[record_id], args, creator, index)
            break


def _written_after(spec: EnvSpec, tools: Mapping[str, ToolDef], acts: list[tuple[int, int, ToolCallSpec]],
                   after: dict[str, Any], copied: dict[str, Any], creator: ToolDef,
                   index: EntityIndex) -> Iterator[Mutation]:
    """The record made as it was before the writes, at the first write, and every write on it made on the copy
    instead (and where a process check counts the writes' tool, each also called on the record with nothing but its
    id); none where the copy already carries every field the writes change (the plain copy covers it), or the record
    cannot be copied or its copy's id not read."""
    record_id = after["id"]
    app, table = index.table_of[record_id]
    world = base_world(spec)
    original = world.table(app, table).get(record_id)
    if original is None:
        return
    before = original.model_dump(mode="json")
    if all(after.get(f) == before.get(f) or f in copied or f in _NOT_COPIED for f in after):
        return
    bare = _copied(before, creator)
    if bare is None:
        return
    create = ReferenceStep(call=ToolCallSpec(name=creator.name, arguments=bare))
    new_id = _created_id(spec, tools, acts[0][:2], create, world)
    if new_id is None:
        return
    moved = {(t, s): [ReferenceStep(call=ToolCallSpec(name=call.name, arguments={
        k: new_id if v == record_id else v for k, v in call.arguments.items()}))] for t, s, call in acts}
    t, s, call = acts[0]
    what = f"{creator.name} making a copy of {record_id} as it was, then its writes ({call.name} ...) made on {new_id}"
    yield Mutation("created_instead", f"reference[{t}].steps[{s}]", what, _redirected(spec, acts[0][:2], create, moved),
                   code="created_instead", targets=(creator.name,))
    touches = {(t0, s0): _touch(c, tools[c.name]) for t0, s0, c in acts if _process_checked(spec, c.name)}
    if touches and all(touches.values()):  # the calls a process check counts, made on the record changing nothing
        touched = {at: [step for step in (touches.get(at),) if step is not None] + steps for at, steps in moved.items()}
        yield Mutation("created_instead", f"reference[{t}].steps[{s}]", f"{what}, each also on {record_id} changing "
                       "nothing", _redirected(spec, acts[0][:2], create, touched), code="created_instead",
                       targets=(creator.name, call.name))


def _redirected(spec: EnvSpec, first: tuple[int, int], create: ReferenceStep,
                moved: dict[tuple[int, int], list[ReferenceStep]]) -> list[ReferenceTurn]:
    """The reference with `create` before the step `first` and each step of `moved` replaced by its steps."""
    return [turn_of([new for s, step in enumerate(turn.steps)
                     for new in ([create] if (t, s) == first else []) + moved.get((t, s), [step])])
            for t, turn in enumerate(spec.reference)]


def _created_id(spec: EnvSpec, tools: Mapping[str, ToolDef], at: tuple[int, int], create: ReferenceStep,
                world: Any) -> str | None:
    """The id the creating call gets when made just before the reference's step `at`: the reference's calls before it
    run on a fork of the initial world, then the call."""
    fork = world.fork()
    box = ToolBox(fork, tools, [n for n in exposed_tools(spec) if n in tools])
    for t, turn in enumerate(spec.reference):
        for s, step in enumerate(turn.steps):
            if (t, s) == at:
                assert create.call is not None
                outcome = box.call(create.call.name, create.call.arguments)
                made = outcome.result.get("id") if outcome.ok and isinstance(outcome.result, dict) else None
                return made if isinstance(made, str) else None
            if step.call is not None:
                box.call(step.call.name, step.call.arguments)
    return None


def _instead(spec: EnvSpec, acts: list[tuple[int, int, ToolCallSpec]],
             steps: list[ReferenceStep]) -> list[ReferenceTurn]:
    """The reference with the last write of `acts` replaced by `steps` and the earlier ones dropped."""
    t, s, _ = acts[-1]
    turn = list(spec.reference[t].steps)
    turn[s:s + 1] = steps
    reference = [*spec.reference[:t], turn_of(turn), *spec.reference[t + 1:]]
    for t0, s0, _ in reversed(acts[:-1]):
        reference = without(reference, t0, s0)
    return reference


def _process_checked(spec: EnvSpec, tool: str) -> bool:
    """Whether an `order` or `called` check matches calls of `tool` (a call it counts, whatever it changed)."""
    for _, _, _, rule in spec_rules(spec.checks):  # a tier's rule too
        matchers = [rule.first, rule.then] if isinstance(rule, OrderRule) else \
            [rule.call] if isinstance(rule, CalledRule) else []
        if any(m.tool == tool for m in matchers):
            return True
    return False


def _touch(call: ToolCallSpec, tool: ToolDef) -> ReferenceStep | None:
    """The write called on its record with nothing else (None where the tool needs more than the record)."""
    required = [n for n, f in tool.params.model_fields.items() if f.is_required()]
    if len(required) != 1:
        return None
    args = {required[0]: call.arguments[required[0]]}
    try:
        tool.params.model_validate(args)
    except Exception:
        return None
    return ReferenceStep(call=ToolCallSpec(name=call.name, arguments=args))


def _target(call: ToolCallSpec, tool: ToolDef, index: EntityIndex) -> dict[str, Any] | None:
    """The record (as the oracle's run left it) of the write's app that its first required argument names."""
    first = next((n for n, f in tool.params.model_fields.items() if f.is_required()), None)
    value = call.arguments.get(first) if first is not None else None
    if not isinstance(value, str) or value not in index.table_of:
        return None
    app, table = index.table_of[value]
    if app != tool.app:
        return None
    return index.record(app, table, value)


def _copied(record: dict[str, Any], creator: ToolDef) -> dict[str, Any] | None:
    """The creating tool's arguments filled from the record's fields of the same names; None where a required
    argument is no field of the record (the tool makes another kind of record) or the record's values do not fit."""
    fields = record
    args: dict[str, Any] = {}
    for name, param in creator.params.model_fields.items():
        if name in fields and name not in _NOT_COPIED:
            value = fields[name]
            if value is not None and value != [] and value != "":
                args[name] = value
        if param.is_required() and name not in args:
            return None
    try:
        creator.params.model_validate(args)
    except Exception:
        return None
    return args
