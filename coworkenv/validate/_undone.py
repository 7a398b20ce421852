"""Writes a check credits by the call rather than by its effect: a completion `called` check (or either side of an
`order` check) that matches a reference write on a record there before the episode ("tickets_update on PLAT-113
with assignee u-sofia") holds as soon as the call is in the audit. The reference replayed with the same tool called
once more on the same record at the end of the last turn, each field the write set put back to its value before the
episode (the ticket handed back, the job enabled again, the meeting moved back), undoes the work; where that replay
still passes, the check credits a call whose effect is gone (`undone_unchecked`). A state check on the record's field
stops it. Only fields the record holds under the argument's own name are put back, or, for a keyed write (one
argument names a key of a dict field of the record, `services_set_flag(service, flag="dark-mode", enabled=True)` on
`flags`), that key's old value; and only where the tool takes the old values (a refused call is not judged).

Writes taken back by their inverse (`inverse_writes`), for every reference write, credited or not: a check may read a
trace the undo leaves rather than the effect (the config version a rollback leaves behind, the movement a transfer
back leaves in the log, the `mail_label` call in the audit, a deploy or rollback an `order` check credits, whose
argument is not named as the field it sets: `version` for `deployed_version`, `to_version` for `config_version`).
The inverse, where the agent is given its tool: a config update or rollback rolled back to the version the service
ran before the episode (`services_rollback_config`), a deploy of the release it ran before, a label added taken off
and one removed put back (`mail_label`), a transfer sent back to where it came from, a stock adjustment by the
opposite delta. A write that a later reference write on the same record overwrites is not taken
back.

Records the reference creates, removed (`created_writes`): a check may find the new record by a trace its removal
leaves (the `todo_add_task` or `files_write_file` call in the audit, an event that `calendar_cancel_event` keeps,
cancelled, where the check does not ask for its status). Each record of the reference's final world that was not
there before is removed at the end of the last turn by the tool of its app that deletes or cancels a record of its
kind (`<app>_delete_<kind>` or `<app>_cancel_<kind>`, one required argument naming the record: `todo_delete_task`,
`files_delete_file`, `calendar_cancel_event`, `notes_delete_note`, `scheduler_delete_job`), where the agent is given
it; a record no tool removes is closed instead by its app's update tool (`<app>_update_<kind>` or `<app>_update`, one
required argument naming the record) with a closing value of its status enum (`tickets_update` with `status: closed`,
else `resolved`: one replay per value, tried in turn until one the workflow takes), where the agent is given it: a
check that finds the filed ticket without its status credits one closed again.

Records the reference creates, put out of force (`created_writes` too): a record can be left in place and yet undone,
the to-do ticked off, the job disabled, the article archived or taken back to a draft; a check that finds the new
to-do by its list, title and due date, but not that it is still open, credits one ticked off at once. Each such
record is set, at the end of the last turn, to each value that puts it out of force that a write tool of its app
sets by the record's id (`<kind>_id`, its one required argument): a flag that holds while the record is in force set
false (`enabled`, `active`, `published`), one that marks it out of force set true (`done`, `archived`, `disabled`),
an enum argument set to a value out of force (`archived`, `draft`, `disabled`, `paused`, `inactive`); one replay
per field and value, by the first such tool in name order (`todo_complete_task` before `todo_update_task`), only
where the record's field, as the reference leaves it, holds another value (a to-do the task itself ticks off is not
ticked off again), where the agent is given the tool.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.bindings import exposed_tools
from coworkenv.checks import call_matches
from coworkenv.spec import CalledRule, CallMatcher, EnvSpec, OrderRule, PythonRule, ReferenceTurn, ToolCallSpec
from coworkenv.validate._check_reads import parts_read, spec_rules
from coworkenv.validate._guard_evasions import _CLOSING
from coworkenv.validate.dependencies import existing_target
from coworkenv.validate.episode_gates import is_guard
from coworkenv.validate.mutations import _literal_values, is_write, write_steps
from coworkenv.validate.task_mutations import _last_turn_insert
from coworkenv.world import World


@dataclass(frozen=True)
class Undone:
    """The reference with one credited write taken back at the end of the last turn."""

    path: str
    description: str
    tool: str
    reference: list[ReferenceTurn]
    write_path: str = ""  # the write taken back (where dropping it passes too, drop_write judges it)
    record: str = ""  # the record a closing replay closes: its other closing values are tried only while refused


def _credited(spec: EnvSpec) -> list[CallMatcher]:
    """The call matchers of the completion checks that credit a call (`called`, either side of `order`)."""
    out: list[CallMatcher] = []
    for _, check, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if isinstance(rule, CalledRule):  # a guard's too: "PLAT-112 keeps p3" written as the call that set it
            out.append(rule.call)
        elif isinstance(rule, OrderRule) and not is_guard(check):
            out += [rule.first, rule.then]
    return out


def _audit_read(spec: EnvSpec) -> bool:
    """Whether a Python check reads the audit: it may credit a write by the call it logged or by the record the call
    returned then (a snapshot of that moment, not the final state), so every write is taken back for it (defects83)."""
    return any(isinstance(rule, PythonRule) and "audit" in parts_read(rule.code, rule.entrypoint)
               for _, _, _, rule in spec_rules(spec.checks))


def undone_writes(spec: EnvSpec, world: World) -> Iterator[Undone]:
    """One replay per reference write a credited matcher matches (every write, where a Python check reads the audit),
    on a record of the initial `world`, taken back."""
    matchers = _credited(spec)
    every = _audit_read(spec)
    if not matchers and not every:
        return
    writes = list(write_steps(spec.reference))
    for n, (t, s, call) in enumerate(writes):
        tool = TOOLS.get(call.name)
        if tool is None or not (every or any(call_matches(m, call.name, call.arguments) for m in matchers)):
            continue
        found = _record(call, world)
        if found is None:
            continue
        arg, record = found
        before = {k: getattr(record, k) for k, v in call.arguments.items()
                  if k != arg and k in type(record).model_fields and getattr(record, k) != v}
        ident, old = ({arg: call.arguments[arg]}, before) if before else _keyed(call, arg, record)
        later = [c for _, _, c in writes[n + 1:]]
        replays: list[tuple[dict[str, Any], str]] = []
        if old and not _overwritten(ident, old, call.name, later) and _takes(call.name, {**ident, **old}):
            replays.append(({**ident, **old}, "taken back"))
        # The fields the write sets that hold a flag or one of a closed set of values, set to another value: the
        # write's effect overwritten (a ticket's priority set to what it already was, then to another; staging's flag
        # put back off, then on again), where putting the old values back cannot undo it.
        other = _other_values(call, arg, record)
        if other is not None and not _overwritten(other[0], other[1], call.name, later) \
                and all(args != {**other[0], **other[1]} for args, _ in replays):  # a flag's take-back is its other
            replays.append(({**other[0], **other[1]}, "overwritten with another value"))
        # A field that was empty before (a ticket nobody was assigned): putting None back leaves it as written, so
        # it is set to the value another record of the table holds there instead (defects83).
        for name, alt in _filled_elsewhere(call, arg, before, world):
            args = {arg: call.arguments[arg], name: alt}
            if not _overwritten(args, {name: alt}, call.name, later) and _takes(call.name, args):
                replays.append((args, "overwritten with another value"))
        for args, taken in replays:
            reference, where = _last_turn_insert(spec.reference, ToolCallSpec(name=call.name, arguments=args))
            yield Undone(where, f"reference[{t}].steps[{s}] ({call.name}) {taken} at the end: {call.name} {args}",
                         call.name, reference)


def _filled_elsewhere(call: ToolCallSpec, arg: str, before: dict[str, Any], world: World) -> list[tuple[str, Any]]:
    """(argument, another record's value of that field) for each text argument the write set on a field that held
    None before the episode, from the first record of the table (by id) holding another text value there."""
    key = existing_target(call, world, set()) if any(v is None for v in before.values()) else None
    if key is None:
        return []
    peers = sorted(world.table(key[0], key[1]), key=lambda r: r.id)
    out = []
    for name, old in before.items():
        value = call.arguments[name]
        alt = next((getattr(p, name) for p in peers if isinstance(getattr(p, name, None), str)
                    and getattr(p, name) != value), None) if old is None and isinstance(value, str) else None
        if alt is not None:
            out.append((name, alt))
    return out


def _other_values(call: ToolCallSpec, arg: str, record: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(the record's arguments, {argument: another value}) for a write: each argument the record holds under its own
    name (or, for a keyed write, the key's value argument) that is a flag or one of a closed set of values, set to the
    flag's other value or the set's first value that is neither the written one nor the record's before the episode;
    None where there is none or the tool refuses the call."""
    ident: dict[str, Any] = {arg: call.arguments[arg]}
    names = [k for k in call.arguments if k != arg and k in type(record).model_fields]
    keyed = _keyed_value(call, arg, record)
    if keyed is not None:
        ident, names = {**ident, keyed[0]: keyed[1]}, [keyed[2]]
    other: dict[str, Any] = {}
    fields = TOOLS[call.name].params.model_fields
    for name in names:
        value = call.arguments[name]
        held = getattr(record, name, None) if keyed is None else None
        if isinstance(value, bool):
            choices: list[Any] = [not value]
        elif name in fields:
            choices = [v for v in _literal_values(fields[name].annotation) if v != value and v != held]
        else:
            choices = []
        if choices:
            other[name] = choices[0]
    if not other or not _takes(call.name, {**ident, **other}):
        return None
    return ident, other


def _keyed_value(call: ToolCallSpec, arg: str, record: Any) -> tuple[str, Any, str] | None:
    """(key argument, key, value argument) of a keyed write (see `_keyed`), else None."""
    rest = {k: v for k, v in call.arguments.items() if k != arg}
    if len(rest) != 2:
        return None
    for field in type(record).model_fields:
        held = getattr(record, field)
        keys = [k for k, v in rest.items() if isinstance(v, str) and isinstance(held, dict) and v in held]
        if len(keys) == 1:
            return keys[0], rest[keys[0]], next(k for k in rest if k != keys[0])
    return None


def _overwritten(ident: dict[str, Any], old: dict[str, Any], tool: str, later: list[ToolCallSpec]) -> bool:
    """Whether a later write of the reference with the same tool on the same record (and key) sets a field `old`
    puts back: the write's effect is not what the final state holds (staging's flag turned off again after the
    failed canary), so a replay that puts it back proves nothing."""
    return any(c.name == tool and all(c.arguments.get(k) == v for k, v in ident.items())
               and any(k in c.arguments for k in old) for c in later)


def _keyed(call: ToolCallSpec, arg: str, record: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A keyed write: one argument names a key of one of the record's dict fields (`flag="dark-mode"` of `flags`),
    the one argument left gives its new value (`enabled=True`). (the record's and the key's arguments, {the value's
    argument: the key's old value}) where it differs, else ({}, {})."""
    rest = {k: v for k, v in call.arguments.items() if k != arg}
    for field in type(record).model_fields:
        held = getattr(record, field)
        keys = [k for k, v in rest.items() if isinstance(v, str) and isinstance(held, dict) and v in held]
        if len(keys) != 1 or len(rest) != 2:
            continue
        (value_arg, value), = ((k, v) for k, v in rest.items() if k != keys[0])
        old = held[rest[keys[0]]]
        if type(old) is type(value) and old != value:
            return {arg: call.arguments[arg], keys[0]: rest[keys[0]]}, {value_arg: old}
    return {}, {}


def _record(call: ToolCallSpec, world: World) -> tuple[str, Any] | None:
    """(argument, record) of the record there before the episode that the call's first required argument names."""
    key = existing_target(call, world, set())
    if key is None:
        return None
    app, table, rid = key
    arg = next(name for name, value in call.arguments.items() if value == rid)
    return arg, world.table(app, table).get(rid)


def inverse_writes(spec: EnvSpec, world: World) -> Iterator[Undone]:
    """One replay per reference write that has an inverse the agent is given (see the module docstring), the inverse
    called at the end of the last turn."""
    exposed = set(exposed_tools(spec))
    writes = list(write_steps(spec.reference))
    for n, (t, s, call) in enumerate(writes):
        found = _inverse(call, world)
        if found is None or found[0] not in exposed:
            continue
        name, args, record = found
        app = TOOLS[name].app
        if any(c.name in TOOLS and TOOLS[c.name].app == app and _touches(c, record) for _, _, c in writes[n + 1:]):
            continue  # a later write of the app on the record: the final state is not this write's (a ticket on
            # the service, a write of another app, does not change it)
        try:
            TOOLS[name].params.model_validate(args)
        except ValueError:
            continue
        reference, where = _last_turn_insert(spec.reference, ToolCallSpec(name=name, arguments=args))
        yield Undone(where, f"reference[{t}].steps[{s}] ({call.name}) taken back at the end by its inverse: "
                            f"{name} {args}", name, reference, f"reference[{t}].steps[{s}]")


def created_writes(spec: EnvSpec, created: set[tuple[str, str, str]],
                   made: dict[tuple[int, int], tuple[str, str, str]],
                   values: dict[tuple[str, str, str], dict[str, Any]] | None = None) -> Iterator[Undone]:
    """One replay per record the reference creates (`created`: (app, table, id) added in its final world; `made`:
    the reference step that created each, where its result names the id) that the agent can remove, removed at the
    end of the last turn (or closed: one replay per closing value, `record` naming the record), and one per value
    that puts it out of force (`values`: the record's fields in the reference's final world, `_deactivations`)."""
    exposed = set(exposed_tools(spec))
    writes = list(write_steps(spec.reference))
    for app, table, rid in sorted(created):
        removals = _removals(app, table, rid, exposed)
        held = (values or {}).get((app, table, rid))
        deactivations = _deactivations(app, table, rid, held, exposed) if held is not None else []
        if not removals and not deactivations:
            continue
        step = next((ts for ts, key in made.items() if key == (app, table, rid)), None)
        if step is None:  # a result that does not say `id` (a file's `path`): the write that names the record
            step = next(((t, s) for t, s, c in writes if TOOLS.get(c.name) is not None and TOOLS[c.name].app == app
                         and _touches(c, {rid})), None)
        write_path = f"reference[{step[0]}].steps[{step[1]}]" if step is not None else ""
        closing = f"{app}.{table}.{rid}" if len(removals) > 1 else ""
        for name, args in removals:
            reference, where = _last_turn_insert(spec.reference, ToolCallSpec(name=name, arguments=args))
            yield Undone(where, f"the {table} record {rid} the reference creates, "
                                f"{'closed' if len(args) > 1 else 'removed'} at the end: {name} {args}",
                         name, reference, write_path, closing)
        for name, args in deactivations:
            reference, where = _last_turn_insert(spec.reference, ToolCallSpec(name=name, arguments=args))
            yield Undone(where, f"the {table} record {rid} the reference creates, put out of force at the end: "
                                f"{name} {args}", name, reference, write_path)


# A flag that holds while a record is in force (set false to put it out of force), one that marks it out of force
# (set true), and the values of an enum field that put a record out of force (`_deactivations`).
_IN_FORCE_FLAGS = frozenset({"enabled", "active", "published", "visible", "live", "subscribed"})
_OUT_OF_FORCE_FLAGS = frozenset({"done", "completed", "archived", "disabled", "paused", "muted", "hidden", "inactive"})
_OUT_OF_FORCE = frozenset({"archived", "draft", "disabled", "inactive", "paused", "suspended", "unpublished", "hidden",
                           "done", "completed"})


def _deactivations(app: str, table: str, rid: str, held: dict[str, Any],
                   exposed: set[str]) -> list[tuple[str, dict[str, Any]]]:
    """(tool, arguments) of the exposed writes of `app` that leave the record `rid` of `app.table` in place but out of
    force: a tool whose one required argument is the record's id (`<kind>_id`) and that sets a field of the record
    (`held`: its values as the reference leaves them) to a value out of force it does not already hold; one per field
    and value, the first tool in name order."""
    kind = table[:-1] if table.endswith("s") else table
    out: list[tuple[str, dict[str, Any]]] = []
    seen: set[tuple[str, Any]] = set()
    for name in sorted(exposed):
        tool = TOOLS.get(name)
        if tool is None or tool.app != app or not is_write(name):
            continue
        required = [k for k, f in tool.params.model_fields.items() if f.is_required()]
        if required != [f"{kind}_id"]:
            continue
        for field, info in tool.params.model_fields.items():
            if field == required[0] or field not in held:
                continue
            if field in _IN_FORCE_FLAGS or field in _OUT_OF_FORCE_FLAGS:
                offs: list[Any] = [field in _OUT_OF_FORCE_FLAGS]
            else:
                offs = [v for v in _literal_values(info.annotation) if v in _OUT_OF_FORCE]
            for off in offs:
                args = {required[0]: rid, field: off}
                if held[field] == off or (field, off) in seen or not _takes(name, args):
                    continue
                seen.add((field, off))
                out.append((name, args))
    return out


def _removals(app: str, table: str, rid: str, exposed: set[str]) -> list[tuple[str, dict[str, Any]]]:
    """(tool, arguments) of the exposed calls that remove the record `rid` of `app.table`: the one that deletes or
    cancels it (`<app>_delete_<kind>` or `<app>_cancel_<kind>`, the kind the table's name in the singular, taking one
    required argument), else one per closing value of the app's update tool (`<app>_update_<kind>` or `<app>_update`,
    one required argument, an enum argument holding closing values: `closed` and `cancelled` first, which workflows
    reach from most states)."""
    kind = table[:-1] if table.endswith("s") else table
    for verb in ("delete", "cancel"):
        found = _by_record(f"{app}_{verb}_{kind}", app, exposed)
        if found is not None and _takes(found[0], {found[1]: rid}):
            return [(found[0], {found[1]: rid})]
    for name in (f"{app}_update_{kind}", f"{app}_update"):
        found = _by_record(name, app, exposed)
        if found is None:
            continue
        out = []
        for field, info in TOOLS[name].params.model_fields.items():
            values = [v for v in _literal_values(info.annotation) if v in _CLOSING]
            values.sort(key=lambda v: v not in ("closed", "cancelled", "canceled"))
            out += [(name, {found[1]: rid, field: v}) for v in values if _takes(name, {found[1]: rid, field: v})]
        if out:
            return out
    return []


def _by_record(name: str, app: str, exposed: set[str]) -> tuple[str, str] | None:
    """(tool, argument) where `name` is an exposed tool of `app` taking one required argument (the record's id)."""
    tool = TOOLS.get(name)
    if tool is None or name not in exposed or tool.app != app:
        return None
    required = [k for k, f in tool.params.model_fields.items() if f.is_required()]
    return (name, required[0]) if len(required) == 1 else None


def _takes(name: str, args: dict[str, Any]) -> bool:
    try:
        TOOLS[name].params.model_validate(args)
    except ValueError:
        return False
    return True


def _touches(call: ToolCallSpec, records: set[str]) -> bool:
    """Whether a write names one of `records` in its arguments (an id, or an id in a list)."""
    for value in call.arguments.values():
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, str) and v in records for v in values):
            return True
    return False


def _inverse(call: ToolCallSpec, world: World) -> tuple[str, dict[str, Any], set[str]] | None:
    """(tool, arguments, the records it acts on) of the call that takes `call` back, or None."""
    a = call.arguments
    if call.name == "services_update_config" and isinstance(a.get("service"), str):
        service = world.table("services", "services").get(a["service"])
        if service is None:
            return None
        return "services_rollback_config", {"service": service.id, "to_version": service.config_version}, {service.id}
    if call.name in ("services_deploy", "services_rollback_config") and isinstance(a.get("service"), str):
        service = world.table("services", "services").get(a["service"])
        if service is None:
            return None
        if call.name == "services_deploy":  # the release the service ran before (`version`, not `deployed_version`)
            return "services_deploy", {"service": service.id, "version": service.deployed_version}, {service.id}
        return "services_rollback_config", {"service": service.id, "to_version": service.config_version}, {service.id}
    if call.name == "mail_label" and isinstance(a.get("message_ids"), list):
        messages = [world.table("mail", "messages").get(m) for m in a["message_ids"]]
        if not messages or any(m is None for m in messages):
            return None
        held = [set(m.labels) for m in messages if m is not None]
        added = [x for x in a.get("add") or [] if not any(x in h for h in held)]
        removed = [x for x in a.get("remove") or [] if all(x in h for h in held)]
        if not added and not removed:
            return None
        back: dict[str, Any] = {"message_ids": list(a["message_ids"])}
        if added:
            back["remove"] = added
        if removed:
            back["add"] = removed
        return "mail_label", back, set(a["message_ids"])
    if call.name in ("inventory_transfer", "inventory_adjust") and isinstance(a.get("item_id"), str):
        item = world.table("inventory", "items").get(a["item_id"])
        if item is None:
            return None
        if call.name == "inventory_adjust":
            if not isinstance(a.get("delta"), int) or isinstance(a.get("delta"), bool):
                return None
            return "inventory_adjust", {"item_id": item.id, "delta": -a["delta"], "reason": "count correction"}, \
                {item.id}
        target = f"{item.sku}@{a.get('to_location')}"
        return ("inventory_transfer", {"item_id": target, "to_location": item.location, "quantity": a.get("quantity")},
                {item.id, target})
    return None
