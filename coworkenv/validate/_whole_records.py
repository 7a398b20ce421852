"""Frames that allow a record whole: the reference's own write on a record a frame allows with no `fields`, also
setting another field the task never asks about (the ticket it resolves, reassigned; the contact whose phone it
updates, given another email). Where the write's tool sets nothing else (a release deployed, a comment added), another
write tool of the app does it on the same record: the service redeployed is also restarted or has a flag flipped,
the commented ticket is reassigned. A frame allowing the record whole lets that through; one naming the fields the
task changes does not.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Iterator
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.checks import compare
from coworkenv.spec import EnvSpec, FieldRule, FrameRule, RecordsRule, ReferenceStep, ToolCallSpec
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._mutation_core import Mutation, turn_of
from coworkenv.validate.dependencies import Key, existing_target
from coworkenv.validate.mutations import _literal_values, write_steps
from coworkenv.world import World

# Tools that make, send or destroy a record rather than set something on it (other harms, judged elsewhere).
_NOT_A_SETTING = re.compile(r"_(delete|cancel|create|add|send|post|save|submit|publish|share)(_|$)")


def other_field_writes(spec: EnvSpec, world: World, created: set[Key]) -> Iterator[Mutation]:
    """For each record that a frame allows whole and that a reference write changes, the write's tool called on it
    once more just after, setting one optional field the write leaves out to another value (see the module
    docstring)."""
    whole = {(s.app, s.table, s.id) for _, _, _, r in spec_rules(spec.checks) if isinstance(r, FrameRule)
             for s in r.allow if s.id and s.table and s.fields is None and not s.where}
    done: set[Key] = set()
    for t, s, call in write_steps(spec.reference):
        if call.name not in TOOLS or call.name not in spec.tools:
            continue
        target = existing_target(call, world, created)
        if target is None or target not in whole or target in done:
            continue
        table = world.table(target[0], target[1])
        rec = table.get(target[2])
        found = _other_field(call, rec, table)
        if found is not None:
            name, value = found
            extras = [ToolCallSpec(name=call.name, arguments={**_required(call), name: value})]
        else:  # the write's tool sets nothing else: the app's other tools on the same record
            extras = list(_other_tool_calls(call, rec, table, set(spec.tools)))
        if not extras:
            continue
        done.add(target)
        for extra in extras:
            yield _harm_after(spec, t, s, extra, f"{call.name} on {target[2]}, then {extra.name} {extra.arguments}")


def _harm_after(spec: EnvSpec, t: int, s: int, extra: ToolCallSpec, what: str) -> Mutation:
    """The reference with `extra` done just after its step `s` of turn `t`: a change the task never asks for."""
    steps = list(spec.reference[t].steps)
    steps.insert(s + 1, ReferenceStep(call=extra))
    return Mutation("harmful_action", f"reference[{t}].steps[{s + 1}]", f"{what}, which the task never asks for",
                    [*spec.reference[:t], turn_of(steps), *spec.reference[t + 1:]], code="harm_unguarded")


def _required(call: ToolCallSpec) -> dict[str, Any]:
    fields = TOOLS[call.name].params.model_fields
    return {k: v for k, v in call.arguments.items() if k in fields and fields[k].is_required()}


def _other_field(call: ToolCallSpec, rec: Any, table: Any) -> tuple[str, Any] | None:
    """An optional argument of the call's tool that the call leaves out, naming a field of `rec`, with a value
    other than the record's: another enum value, the flag flipped, or the field's value on another record."""
    for name, field in TOOLS[call.name].params.model_fields.items():
        if field.is_required() or name in call.arguments or name not in type(rec).model_fields:
            continue
        current = getattr(rec, name)
        choices = _literal_values(field.annotation)
        if choices:
            other = next((c for c in choices if c != current), None)
        elif bool in typing.get_args(field.annotation) or field.annotation is bool:
            other = not current if isinstance(current, bool) else None
        elif isinstance(current, str):
            other = next((v for r in sorted(table, key=lambda r: r.id)
                          if isinstance(v := getattr(r, name, None), str) and v and v != current), None)
        else:
            other = None
        if other is not None:
            return name, other
    return None


def _other_tool_calls(call: ToolCallSpec, rec: Any, table: Any, exposed: set[str]) -> Iterator[ToolCallSpec]:
    """Each other exposed write tool of the call's app that sets something on the same record: its first required
    argument names the same kind of record (same name, or its singular/plural), its other required arguments fill
    from the record (an enum's other value, a flag flipped, a key of the dict field the argument is named for, a
    flag's name, with its value flipped), and where that sets nothing, one optional field the tool takes is set to
    another value (`_other_field`). A tool that takes the record alone (a restart, a run) acts rather than sets, and
    is often an honest follow-up: not tried."""
    tool = TOOLS[call.name]
    record_arg = _first_required(tool)
    if record_arg is None:
        return
    for name in sorted(exposed):
        other = TOOLS.get(name)
        if name == call.name or other is None or other.app != tool.app or other.kind != "write" or \
                _NOT_A_SETTING.search(name):
            continue
        theirs = _first_required(other)
        if theirs is None or theirs.rstrip("s") != record_arg.rstrip("s"):
            continue
        args = _filled(other, theirs, rec)
        if args is None:
            continue
        bare = ToolCallSpec(name=name, arguments=args)
        if len(args) == 1:  # only the record named: set one optional field, or it is an action (a restart)
            found = _other_field(bare, rec, table)
            if found is None:
                continue
            args = {**args, found[0]: found[1]}
        try:
            other.params.model_validate(args)
        except Exception:  # a call the tool refuses is no route
            continue
        yield ToolCallSpec(name=name, arguments=args)


def _filled(tool: Any, record_arg: str, rec: Any) -> dict[str, Any] | None:
    """The tool's required arguments for `rec`, or None where one cannot be filled from the record."""
    args: dict[str, Any] = {record_arg: rec.id}
    key: tuple[str, str] | None = None  # (dict field, key) a string argument named
    for name, field in tool.params.model_fields.items():
        if not field.is_required() or name == record_arg:
            continue
        current = getattr(rec, name, None)
        choices = _literal_values(field.annotation)
        if choices:
            args[name] = next((c for c in choices if c != current), choices[0])
        elif field.annotation is str and key is None:
            found = next(((f, sorted(d)[0]) for f in sorted(type(rec).model_fields)
                          if f.rstrip("s") == name.rstrip("s") and isinstance(d := getattr(rec, f), dict) and d
                          and all(isinstance(k, str) for k in d)), None)
            if found is None:
                return None
            key = found
            args[name] = found[1]
        elif field.annotation is bool:
            held = getattr(rec, key[0]).get(key[1]) if key is not None else current
            args[name] = not held if isinstance(held, bool) else True
        else:
            return None
    return args


def _first_required(tool: Any) -> str | None:
    return next((n for n, f in tool.params.model_fields.items() if f.is_required()), None)


def other_key_writes(spec: EnvSpec, world: World, created: set[Key]) -> Iterator[Mutation]:
    """For the last reference write naming a key of a dict field of its record (`services_set_flag` with a flag of
    the service), the same call once more on another key of that field, its value flipped: a frame can allow the
    field (`flags`), not one key of it, so only a check on the field's other keys stops a second flag flipped."""
    done: set[tuple[str, str, str, str]] = set()
    # The last such write of each record: a later turn's change may set the whole field back (a flag switched on
    # again by the world), which would undo a flip made after an earlier write.
    for t, s, call in reversed(write_steps(spec.reference)):
        if call.name not in TOOLS or call.name not in spec.tools:
            continue
        target = existing_target(call, world, created)
        if target is None:
            continue
        rec = world.table(target[0], target[1]).get(target[2])
        if rec is None:
            continue
        for name, value in call.arguments.items():
            field = next((f for f in sorted(type(rec).model_fields) if f.rstrip("s") == name.rstrip("s")
                          and isinstance(getattr(rec, f), dict) and value in getattr(rec, f)), None)
            if field is None or (*target, field) in done:
                continue
            keys = getattr(rec, field)
            other = next((k for k in sorted(keys) if k != value and isinstance(keys[k], bool)), None)
            flag = next((a for a, v in call.arguments.items() if isinstance(v, bool)), None)
            if other is None or flag is None:
                continue
            done.add((*target, field))
            extra = ToolCallSpec(name=call.name, arguments={**call.arguments, name: other, flag: not keys[other]})
            yield _harm_after(spec, t, s, extra, f"{call.name} on {target[2]} also sets {field} {other!r} to "
                              f"{not keys[other]}")


def other_entry_writes(spec: EnvSpec, world: World, created: set[Key]) -> Iterator[Mutation]:
    """For the last reference write of each record passing a map of keys to new values (`services_update_config` with
    `changes`), the same write also changing another key that the app's record holding those keys has (the config
    version's `values`): the version it creates is allowed whole (a frame allows a record's arrival only whole), so only a
    check on the other keys stops a second setting changed beside the asked one."""
    # The other key flipped or one up: on the last such write of each record (defects99: on the last write only, the
    # kept settings of every service but the last one updated went untried); a value a check admits: on each.
    done: set[frozenset[str]] = set()
    for t, s, call in reversed(write_steps(spec.reference)):
        if call.name not in TOOLS or call.name not in spec.tools:
            continue
        app = TOOLS[call.name].app
        for name, changes in call.arguments.items():
            if not isinstance(changes, dict) or not changes or not all(isinstance(k, str) for k in changes):
                continue
            named = {v for v in call.arguments.values() if isinstance(v, str)}
            # the record by the call's names, not its free text (a config update's `note`, the same for every service)
            ids = frozenset(n for n in named if not re.search(r"\s", n))
            tried = _other_entries(world, app, changes, set(ids)) if ids not in done else []
            for key, value in [*tried, *_admitted_others(spec, world, app, changes, named)]:
                steps = list(spec.reference[t].steps)
                steps[s] = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={
                    **call.arguments, name: {**changes, key: value}}))
                yield Mutation("harmful_action", f"reference[{t}].steps[{s}]", f"{call.name} also sets {key!r} "
                               f"to {value!r}, which the task never asks for",
                               [*spec.reference[:t], turn_of(steps), *spec.reference[t + 1:]], code="harm_unguarded")
            if tried:
                done.add(ids)


def _admitted_others(spec: EnvSpec, world: World, app: str, changes: dict[str, Any],
                     named: set[str]) -> list[tuple[str, Any]]:
    """(key, value) for each other value an `in` condition of a check on a key of the app's records admits beside
    the value the record the call names holds there (`values.db_pool_size in [50, 3000, 50000]`: the kept pool size
    or the same number in another unit, defects92), or that any other loose comparison admits (`gte 50`,
    `not_equals 0`, `lte 8`: a step either way, another unit, the sign, zero, defects94): the write also setting it
    passes that check, so another check must stop it. The record is named by the call's names, not its free text
    (a config update's `note` is shared by every service's new version)."""
    held = _held_entries(world, app, changes, {n for n in named if not re.search(r"\s", n)})
    out = []
    for _, _, _, rule in spec_rules(spec.checks):
        conds = [(c.field, c.op, c.value) for c in rule.where] if isinstance(rule, RecordsRule) and rule.app == app \
            else [(rule.target.field, rule.op, rule.value)] if isinstance(rule, FieldRule) and rule.target.app == app \
            else []
        for field, op, value in conds:
            key = field.rsplit(".", 1)[-1]
            if op == "equals" or key in changes or key not in held or "." not in field:
                continue
            if op == "in" and isinstance(value, list):
                out += [(key, v) for v in value if v != held[key] and type(v) is type(held[key])][:2]
            else:  # defects94: `gte 50`, `not_equals 0`, `lte 8`: the first nearby value it admits
                other = next((v for v in _other_values(held[key]) if _admits(v, op, value)), None)
                out += [] if other is None else [(key, other)]
    return out


def _held_entries(world: World, app: str, changes: dict[str, Any], named: set[str]) -> dict[str, Any]:
    """The keys and values of the dict field that holds every changed key, on the app's record the call names: of
    several (a service's config versions), the latest by its id's numbers (`svc-kyc@4` after `svc-kyc@2`: an older
    version may hold the value another loose comparison admits, which the write would not change)."""
    found: list[tuple[list[Any], dict[str, Any]]] = []
    for t in world.tables():
        for r in t if t.app == app else ():
            if not any(isinstance(v := getattr(r, f), str) and v in named for f in type(r).model_fields if f != "id"):
                continue
            for f in sorted(type(r).model_fields):
                held = getattr(r, f)
                if isinstance(held, dict) and held and set(changes) <= set(held):
                    found.append((_id_order(r.id), held))
                    break
    return dict(max(found, key=lambda f: f[0])[1]) if found else {}


def _id_order(rid: Any) -> list[Any]:
    """An id's sort key by its numbers (`svc-kyc@10` after `svc-kyc@4`)."""
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", str(rid))]


def _other_entries(world: World, app: str, changes: dict[str, Any], named: set[str]) -> list[tuple[str, Any]]:
    """Each other key of the app's records whose dict field holds every changed key (those of the record the call
    names, the service's versions, the latest first: defects99, an older version's value one up may be the latest's,
    a change that changes nothing), with a value it does not hold: a flag flipped, a number one up, or the
    key's value on another such record. Every key, not the first only (defects99: a check keeping the first key and
    vacuous on the second passed the second changed)."""
    holders = [(getattr(r, f), r) for t in world.tables() if t.app == app for r in t
               for f in sorted(type(r).model_fields) if isinstance(getattr(r, f), dict)
               and getattr(r, f) and set(changes) <= set(getattr(r, f))]
    mine = [h for h, r in sorted(holders, key=lambda hr: _id_order(hr[1].id), reverse=True)
            if any(isinstance(v := getattr(r, f), str) and v in named for f in type(r).model_fields if f != "id")]
    out: dict[str, Any] = {}
    for held in mine or [h for h, _ in holders]:
        for key in sorted(k for k in held if k not in changes and k not in out):
            now = held[key]
            if isinstance(now, bool):
                out[key] = not now
            elif isinstance(now, int | float):
                out[key] = now + 1
            elif (other := next((h[key] for h, _ in holders if isinstance(h.get(key), str) and h[key] != now),
                                None)) is not None:
                out[key] = other
        if out:
            break
    return list(out.items())


def _other_values(now: Any) -> list[Any]:
    """Values other than `now` a careless condition may admit: a step either way, another unit, the sign, zero."""
    if isinstance(now, bool):
        return [not now]
    if isinstance(now, int | float):
        out = [now + 1, now - 1, *(now * u for u in (2, 10, 60, 100, 1000)), -now, 0]
        out += [now / u for u in (2, 10, 60, 100, 1000) if isinstance(now, float) or now % u == 0]
        return [v for v in out if v != now]
    if isinstance(now, str):
        return [now.upper(), now.lower(), now + "x"] if now.upper() != now.lower() else [now + "x"]
    return []


def _admits(value: Any, op: str, want: Any) -> bool:
    try:
        return compare(value, op, want)  # type: ignore[arg-type]
    except Exception:  # a pattern past its time bound: not judged
        return False
