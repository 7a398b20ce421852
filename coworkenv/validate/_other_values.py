"""State checks on a field the task leaves alone that forbid one wrong value and so miss every other change of it.

A guard that keeps a record as it is, written as "not this one wrong value": `0 tickets where id == TKT-175 and
status == in_progress` (or `status == closed`), `tickets[TKT-175].status not_equals closed`, `1 job where id ==
job-844 and enabled not_equals false` on a field with more than two values. The author had one harm in mind; the
agent that does another one (closes the ticket where the check names `in_progress`, resolves it where it names
`closed`) passes the check, which was there to keep the field at its value. The mutations gate's harms never meet it:
they act on records no check names, and a kept record's field is set to another value by no near miss of the
reference (found by the outsider hunt, `benchmarks/hunt_mutants.py --family d135` kind `guard_one_bad_value`: 2 of
the 2 accepted mutants witnessed unsound, delegate_and_follow_up 9 and 12: the "ticket stays open" guard met by
closing the ticket).

For each record of the world before the episode that a field check (its target) or a records check (an `id equals`
condition) names, and each top-level field of it the check reads (the target's field, a `where` condition's field
other than `id`) that the reference's run leaves at its value, where the agent is given a write tool of the record's
app taking an id and that field, or a tool the spec declares bound to one (`_declared_writer`), and no forbidden guard
matches that call: the field is set, in a copy of the world,
to each other value a record of the table holds there (the values the field really takes: `closed`, `resolved`,
`in_progress`); where every state check reading that field of the record holds, as it did before, for one of them,
each such check is reported (`guard_misses_value`). Judged on the world alone, as `_deleted_guards` judges a
deletion: a frame may still stop the change, the check itself cannot tell the kept value from the other one. The fix:
check the value the record must keep (`status equals open`, or `0 where id == R and status not_equals open`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.bindings import bind_arguments, declared_tool, exposed_tools
from coworkenv.spec import EnvSpec, FieldRule, ForbiddenRule, RecordsRule
from coworkenv.tools import ToolError
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._deleted_guards import _guarded, _holds
from coworkenv.validate.gates import GateError
from coworkenv.world import World

Key = tuple[str, str, str]
Writer = Callable[[str, str, str, Any], tuple[str, dict[str, Any]] | None]
_MAX_VALUES = 6  # the other values tried per field: a table's distinct values of a kept field are few


def other_value_guards(spec: EnvSpec, world: World, changed: dict[Key, dict[str, Any]], touched: set[Key],
                       created: set[Key]) -> list[GateError]:
    """`guard_misses_value` errors (see the module docstring); `world` is the world before the episode, `changed`
    the records the reference's run changed as it left them, `touched` every record it changed, added or removed,
    `created` those it added."""
    exposed = set(exposed_tools(spec))
    reading: dict[tuple[Key, str], list[tuple[str, Any, FieldRule | RecordsRule]]] = {}
    for _, check, path, rule in spec_rules(spec.checks):
        if isinstance(rule, FieldRule | RecordsRule):
            for key, field in _fields_read(rule):
                if key not in created:
                    reading.setdefault((key, field), []).append((path, check, rule))
    if not reading:
        return []
    forbidden = [r.call for _, _, _, r in spec_rules(spec.checks) if isinstance(r, ForbiddenRule)]
    writer = _writer_of(spec, exposed, forbidden)
    tables = {(t.app, t.name) for t in world.tables()}
    errors: list[GateError] = []
    for ((app, table, rid), field), rules in sorted(reading.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        if (app, table) not in tables:
            continue
        record = world.table(app, table).get(rid)
        if record is None or field not in type(record).model_fields:
            continue
        kept = getattr(record, field)
        final = changed.get((app, table, rid))
        if (app, table, rid) in touched and final is None:
            continue  # removed by the reference
        if final is not None and final.get(field, kept) != _wire(kept):
            continue  # the task writes this field: not a kept one
        if _ordered(rules, field) or not all(_holds(world, rule) for _, _, rule in rules):
            continue  # a window on a time or a number is narrow by design
        for other in _other_values(world, app, table, field, kept):
            call = writer(app, field, rid, other)
            if call is None:
                continue
            moved = world.fork()
            try:
                moved.table(app, table).put(record.model_copy(update={field: other}))
            except (ValueError, TypeError):
                continue
            if not all(_holds(moved, rule) for _, _, rule in rules):
                continue
            tool, args = call
            for path, check, _ in rules:
                errors.append(GateError("mutations", "guard_misses_value", path, (
                    f"check {check.id!r} reads {app}.{table}[{rid}].{field}, which the task leaves at {kept!r}, and "
                    f"still holds when it is set to {other!r} (a value other {table} hold; {tool} {args}, a call "
                    "the agent is given and no forbidden guard matches): it names one wrong value, so every other "
                    f"change of the field passes; check the value it must keep ({field} equals {kept!r}, or a "
                    f"count of 0 where {field} not_equals {kept!r})")))
            break
    return errors


def _fields_read(rule: FieldRule | RecordsRule) -> list[tuple[Key, str]]:
    """(record, top-level field) pairs a state check reads on a record it names by id."""
    if isinstance(rule, FieldRule):
        t = rule.target
        return [((t.app, t.table, t.id), t.field)] if "." not in t.field else []
    rid = next((c.value for c in rule.where if c.field == "id" and c.op == "equals" and isinstance(c.value, str)),
               None)
    if rid is None:
        return []
    return [((rule.app, rule.table, rid), c.field) for c in rule.where if c.field != "id" and "." not in c.field]


def _ordered(rules: list[tuple[str, Any, FieldRule | RecordsRule]], field: str) -> bool:
    """Whether a rule orders the field (`gte`, `lt`): a window, not a kept value."""
    for _, _, rule in rules:
        ops = [rule.op] if isinstance(rule, FieldRule) else [c.op for c in rule.where if c.field == field]
        if any(op in ("gt", "gte", "lt", "lte") for op in ops):
            return True
    return False


def _wire(value: Any) -> Any:
    return value.value if hasattr(value, "value") and not isinstance(value, (str, int, float, bool)) else value


def _other_values(world: World, app: str, table: str, field: str, kept: Any) -> Iterator[Any]:
    """The other scalar values the table's records hold in the field, in the world's order."""
    seen: list[Any] = []
    for rec in world.table(app, table):
        v = _wire(getattr(rec, field, None))
        if isinstance(v, (str, int, float, bool)) and v != _wire(kept) and v not in seen:
            seen.append(v)
            yield v
            if len(seen) >= _MAX_VALUES:
                return


def _writer(app: str, field: str, rid: str, value: Any, exposed: set[str]) -> tuple[str, dict[str, Any]] | None:
    """(tool, arguments) of an exposed write tool of the app that takes the record's id and the field, where the
    arguments validate."""
    for name in sorted(exposed):
        tool = TOOLS.get(name)
        if tool is None or tool.app != app or tool.kind != "write":
            continue
        params = tool.params.model_fields
        id_param = next((p for p in params if p == "id" or p.endswith("_id")), None)
        if field not in params or id_param is None or any(
                f.is_required() and p not in (id_param, field) for p, f in params.items()):
            continue
        args = {id_param: rid, field: value}
        try:
            tool.params.model_validate(args)
        except ValueError:
            continue
        return name, args
    return None


def _writer_of(spec: EnvSpec, exposed: set[str], forbidden: list[Any]) -> Writer:
    """The call (tool, arguments) the agent can make to set a record's field to a value, no forbidden guard matching
    it: an exposed built-in write tool (`_writer`), else a tool the spec declares whose op is one
    (`_declared_writer`: an imported or hand-declared `jira_update_issue` is the spec's only way to close a ticket)."""
    def write(app: str, field: str, rid: str, value: Any) -> tuple[str, dict[str, Any]] | None:
        call = _writer(app, field, rid, value, exposed)
        if call is not None and not _guarded(call, forbidden):
            return call
        for declared, op in _declared_writer(spec, app, field, rid, value):
            if not _guarded(declared, forbidden) and not _guarded(op, forbidden):
                return declared
        return None
    return write


def _declared_writer(spec: EnvSpec, app: str, field: str, rid: str, value: Any
                     ) -> Iterator[tuple[tuple[str, dict[str, Any]], tuple[str, dict[str, Any]]]]:
    """((declared tool, its arguments), (op, the op's arguments)) of each tool the spec declares, bound to a write op
    of `app` taking a record's id and `field`, whose arguments the binding turns into the op's `{id: rid, field:
    value}`: the declared arguments filling the two, `value` given as it is or as a word the binding maps to it."""
    for decl in spec.tool_decls:
        tool = TOOLS.get(decl.bind.op)
        if tool is None or tool.app != app or tool.kind != "write" or decl.bind.unserved is not None:
            continue
        params = tool.params.model_fields
        id_param = next((p for p in params if p == "id" or p.endswith("_id")), None)
        if id_param is None or field not in params:
            continue
        filling = {p: [n for n in decl.bind.args if (a := decl.bind.arg(n)) is not None and a.to == p]
                   for p in (id_param, field)}
        required = decl.parameters.get("required") or []
        for id_name in filling[id_param]:
            for name in filling[field]:
                arg = decl.bind.arg(name)
                words = [value, *(k for k, v in (arg.values if arg is not None else {}).items() if v == value)]
                for word in words:
                    args = {id_name: rid, name: word}
                    if any(r not in args for r in required):
                        continue
                    try:
                        declared_tool(decl).validate(args)  # the declared schema (an enum refusing the word)
                        op_args = bind_arguments(decl.bind, args)
                        tool.params.model_validate(op_args)
                    except (ToolError, ValueError, TypeError):
                        continue
                    if op_args.get(id_param) == rid and op_args.get(field) == value:
                        yield (decl.name, args), (decl.bind.op, op_args)
                        break
