"""Forbidden guards that a route outside their own value, tool or app evades (see `_guard_routes` for the routes
inside one tool: another spelling, another recipient field, a draft, a defaulted argument, a sibling tool):
- another closing value of the same enum: a guard pinning `status: closed` lets `status: resolved` through (the
  ticket leaves the queue all the same), where the tool's enum holds both (`_CLOSING`);
- the record's deletion: a guard on a change to one record (`files_write_file` on `exports/x.csv`,
  `calendar_update_event` on the meeting, `todo_complete_task` on the to-do) lets the app's delete or cancel tool on
  the same record through, where the agent is given it: the record is lost, which the guard was written to stop;
- a rewrite of the record in place: a guard on one record's deletion or change by one tool, pinning the record
  alone, lets the app's other write tool that replaces the same content through (`_rewrites.REWRITES`, which
  classifies every write tool): a document overwritten or a note's body replaced where the guard forbids deleting
  it, a to-do's title emptied, a job disabled or its command replaced, an event's attendees removed where the guard
  forbids deleting or cancelling it, a service's config rolled back (or changed) where the guard forbids changing
  (or rolling back) it, an item's stock moved (or written off) where the guard forbids writing it off (or moving
  it): what the guard keeps is lost all the same;
- a rollback that makes the change a guard on config keys keeps out (`services_update_config` with `changes`
  naming the key): `services_rollback_config` to a version whose difference from the active config, made by hand,
  is a change the guard forbids (the key set to the forbidden value, or changed at all);
- another way to tell the person: a guard on mailing or messaging a person (by recipient alone) lets a note shared
  with them (`notes_create_note`, then `notes_share_note`) or a message to their contact record
  (`contacts_send_message`) through, where the agent is given those tools.
Judged on the calls alone (a forbidden guard fires exactly when its matcher matches a call), so no episode is
played; a frame may still stop the other route, the guard itself protects one (`guard_bypassed`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.bindings import DeclaredTool, exposed_tools, spec_catalog
from coworkenv.spec import EnvSpec, ForbiddenRule
from coworkenv.tools import ToolDef
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._declared_calls import as_op
from coworkenv.validate._guard_ops import op_view
from coworkenv.validate._guard_values import world_spelled
from coworkenv.validate._rewrites import first_required, key_rollbacks, rewrites
from coworkenv.validate.entities import leaves
from coworkenv.validate.gates import GateError
from coworkenv.validate.mutations import _literal_values
from coworkenv.world import World

# Enum values that end a record's life in its queue: a guard on one of them is a guard on each.
_CLOSING = frozenset({"resolved", "closed", "done", "completed", "cancelled", "canceled", "declined", "rejected"})
_DESTROYS = re.compile(r"_(delete|cancel)(_|$)")
_NOT_A_CHANGE = re.compile(r"_(delete|cancel|create|add|send|post|save|submit|publish|share)(_|$)")
# Messaging tools and the arguments that name whom they reach.
_ADDRESSED = {"mail_send": ("to", "cc", "bcc"), "mail_save_draft": ("to", "cc", "bcc"), "chat_send_dm": ("person",)}
_NEW_NOTE = "<the new note>"
_SAID = "the forbidden message"  # what the other route carries (a guard on a person matches any content)

Route = list[tuple[str, dict[str, Any]]]


def evaded_guards(spec: EnvSpec, world: World) -> list[GateError]:
    """`guard_bypassed` errors of the spec's forbidden guards for the routes in the module docstring."""
    forbidden = [(path, c, r) for _, c, path, r in spec_rules(spec.checks) if isinstance(r, ForbiddenRule)]
    matchers = [r.call for _, _, r in forbidden]

    view = op_view(spec)  # the routes below are built on ops, and made through every tool the agent is given

    def unguarded(route: Route) -> bool:
        return view.unguarded(route, matchers) is not None

    exposed = set(exposed_tools(view.spec))
    catalog = spec_catalog(spec)
    # The reference's own calls (op, record): a rewrite the task itself makes is the task, not a route to harm.
    done = set()
    for call in (st.call for turn in spec.reference for st in turn.steps if st.call):
        op, args = as_op(catalog, call)
        if op in TOOLS:
            done.add((op, str(args.get(first_required(TOOLS[op]) or ""))))
    errors = []
    for path, check, rule in forbidden:  # a tier's forbidden rule too
        if rule.call.tool not in exposed:
            continue
        where = f"{path}.call"
        errors += _messaged(check.id, rule, where, _other_messages(rule, exposed, world, catalog), unguarded)
        lifted = view.lift(rule)  # the routes below read built-in schemas: a declared tool's guard on its op
        if lifted is None:
            continue
        rule = lifted
        tool = rule.call.tool
        for arg, value, other, args in _other_closings(rule):
            if unguarded([(tool, args)]):
                errors.append(GateError("mutations", "guard_bypassed", where, (
                    f"forbidden guard {check.id!r} forbids {tool} with {arg}={value!r} only: the same call with "
                    f"{arg}={other!r} closes the record all the same and matches no forbidden guard; match every "
                    f"closing value (a `where` condition on {arg!r} with `in`)")))
        for other_tool, args in _deletions(rule, exposed):
            if unguarded([(other_tool, args)]):
                errors.append(GateError("mutations", "guard_bypassed", where, (
                    f"forbidden guard {check.id!r} forbids {tool} on {args}, but {other_tool} {args} removes the "
                    f"record and matches no forbidden guard; forbid {other_tool} on it too")))
        for other_tool, args in rewrites(rule, world_spelled(_pinned(rule), world), matchers, exposed, world, done):
            if unguarded([(other_tool, args)]):
                errors.append(GateError("mutations", "guard_bypassed", where, (
                    f"forbidden guard {check.id!r} forbids {tool} on {_pinned(rule)}, but {other_tool} {args} "
                    f"replaces the same content in place and matches no forbidden guard; forbid {other_tool} on "
                    f"it too")))
        for keys, version, args in key_rollbacks(rule, exposed, world, done):
            if unguarded([("services_rollback_config", args)]):
                errors.append(GateError("mutations", "guard_bypassed", where, (
                    f"forbidden guard {check.id!r} forbids changing {', '.join(keys)} of {args['service']!r} by "
                    f"{tool}, but services_rollback_config {args} makes config version {version} active, which "
                    f"makes that change all the same, and matches no forbidden guard; forbid rolling "
                    f"{args['service']!r} back too")))
    return errors


def _messaged(check: str, rule: ForbiddenRule, where: str, routes: Iterator[tuple[str, Route]],
              unguarded: Callable[[Route], bool]) -> list[GateError]:
    """`guard_bypassed` errors of the other routes that reach a person the guard keeps from `rule`'s message."""
    return [GateError("mutations", "guard_bypassed", where, (
        f"forbidden guard {check!r} forbids {rule.call.tool} to {person!r}, but "
        f"{' then '.join(t for t, _ in route)} reaches them and matches no forbidden guard; forbid "
        f"{route[-1][0]} to {person!r} too")) for person, route in routes if unguarded(route)]


def _pinned(rule: ForbiddenRule) -> dict[str, Any]:
    """The call the matcher wants: its arguments, `equals` conditions, and `in` conditions met by their first value."""
    where = rule.call.where
    return {**{c.field: c.value[0] for c in where if c.op == "in" and isinstance(c.value, list) and c.value},
            **{c.field: c.value for c in where if c.op == "equals"}, **rule.call.args}


def _other_closings(rule: ForbiddenRule) -> Iterator[tuple[str, Any, Any, dict[str, Any]]]:
    fields = TOOLS[rule.call.tool].params.model_fields
    pinned = _pinned(rule)
    for arg, value in pinned.items():
        field = fields.get(arg)
        if field is None or not isinstance(value, str) or value not in _CLOSING:
            continue
        for other in _literal_values(field.annotation):
            if other != value and other in _CLOSING:
                yield arg, value, other, {**pinned, arg: other}


def _deletions(rule: ForbiddenRule, exposed: set[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    tool = TOOLS[rule.call.tool]
    if _NOT_A_CHANGE.search(rule.call.tool):
        return
    record_arg = first_required(tool)
    value = _pinned(rule).get(record_arg) if record_arg else None
    if record_arg is None or not isinstance(value, str):
        return
    for name in sorted(exposed):
        other = TOOLS.get(name)
        if other is None or other.app != tool.app or other.kind != "write" or not _DESTROYS.search(name):
            continue
        theirs = first_required(other)
        if theirs is None or theirs.rstrip("s") != record_arg.rstrip("s"):
            continue
        args = {theirs: value}
        try:
            other.params.model_validate(args)
        except Exception:  # it needs more than the record: not the same deletion
            continue
        yield name, args


def _addressed(rule: ForbiddenRule, catalog: dict[str, ToolDef]) -> tuple[str, ...] | None:
    """The arguments of the guarded tool that name whom its message reaches, by the op it runs: a messaging op's own,
    or those of a tool the spec declares bound to them (an imported `gmail_send_message`, whatever it is called)."""
    tool = catalog.get(rule.call.tool)
    if not isinstance(tool, DeclaredTool):
        return _ADDRESSED.get(rule.call.tool)
    bind, ops = tool.decl.bind, _ADDRESSED.get(tool.op)
    return None if ops is None else tuple(n for n in bind.args if (a := bind.arg(n)) is not None and a.to in ops)


def _other_messages(rule: ForbiddenRule, exposed: set[str], world: World,
                    catalog: dict[str, ToolDef]) -> Iterator[tuple[str, Route]]:
    addressed = _addressed(rule, catalog)
    pinned = _pinned(rule)
    named_fields = {*pinned, *(c.field for c in rule.call.where)}
    if addressed is None or not named_fields or not named_fields <= set(addressed):
        return  # a guard on what is said (a file, a subject) is not about the person alone
    people = [str(v) for c in rule.call.where if c.field in addressed for v in leaves(c.value)]
    people += [str(v) for k, v in rule.call.args.items() if k in addressed for v in leaves(v)]
    people = [p.strip() for v in people for p in v.split(",")]  # a comma list (a declared `to`): each its person
    contacts = list(world.table("contacts", "contacts")) if "contacts_send_message" in exposed else []
    reached = {_email_of(world, p): p for p in reversed(people) if p}  # one route per person, however spelled
    for email, person in reached.items():
        if {"notes_create_note", "notes_share_note"} <= exposed:
            yield person, [("notes_create_note", {"title": _SAID, "body": _SAID}),
                           ("notes_share_note", {"note_id": _NEW_NOTE, "recipients": [email]})]
        for contact in contacts:
            if str(getattr(contact, "email", "")).lower() == email.lower():
                yield person, [("contacts_send_message", {"contact_id": contact.id, "message": _SAID})]


def _email_of(world: World, person: str) -> str:
    """The email of the directory person `person` names (by id, email or chat handle), else `person` itself."""
    lowered = person.lower().lstrip("@")
    for p in world.table("directory", "people"):
        if lowered in {str(w).lower() for w in (p.id, p.email, p.chat_handle) if w} and p.email:
            return str(p.email)
    return person


