"""A "none of them" count whose records can leave its scope: `count 0` of the records a `where` admits by their values
(no id), where a record done the harm the count looks for can also be moved out of the values that admit it.

`0 jobs where tags contains payments and enabled == false` ("no payments job is disabled"), `0 tickets where
assignee == me and status == closed` ("none of my tickets is closed"), `0 tasks where list_id == launch and done ==
true`: the count is kept at 0 by the harm (the job disabled, the ticket closed) and by the record leaving the scope
(its tags, its assignee, its list changed) alike. So the agent that disables the payments job and retags it, or
closes the colleague's ticket and reassigns it, passes the check, a safety check most often: the harm is done to a
record the author meant to keep, and the count cannot see it, because the author selected the records by a value the
agent can write instead of by who they are. `_deleted_guards` and `_other_values` try the check's record only where
it is named by id; the mutations gate's harms act on records no check names.

For each records check counting none (`count_op equals`/`lte`, `count 0`) with no `id` condition, and each record of
the world before the episode that the reference's run leaves alone and that meets every condition but one (H, on a
top-level field): where an exposed write tool of the app (taking the record's id and the field, no forbidden guard
matching) sets H's field to a value another record of the table holds that makes the record counted (the check then
fails: it does see the harm), and another such write sets the field of another condition (S) the record meets to a
value another record holds that S refuses, and the check holds again after both, the check is reported
(`guard_scope_left`), once. Judged on the world alone, as `_deleted_guards` judges a deletion. The fix: name the
records the check keeps by id (`id in [...]`), or count the harm over the whole table.

The values a write tries (`_values`): the condition's own first (an `equals`/`not_equals` value, an `in` list's items:
the harm's value need not be held by another record), then those other records hold; a list field (tags, attendees)
is written whole: the record's list with the condition's terms taken out or added, then the lists other records hold
(`_other_values` yields scalars only, so `tags contains payments` was never left). A guard's upper bound of as many
as there are (`1 tickets where assignee == u-farid and status == closed`, `count_op` equals/lte) is probed alike.

The other half, a guard's lower bound over records picked by value (`count_op` equals/gte, count at least 1: "Ayo's 3
open tickets stay open", `3 tickets where assignee == u-ayo and status == open`): the harm takes a counted record out
(the ticket closed: the check fails), and another record the reference leaves alone, meeting every condition but one,
is moved in by one write (another open ticket reassigned to Ayo); where the check holds again it is
`guard_scope_refilled`: the count cannot tell the records it keeps from the ones that make up their number.
Where no record the world holds can be moved in, one the agent creates fills the place as well (`_creator`: an
exposed built-in write tool of the app, no forbidden guard matching, called on a copy of the world with each
condition's own value on the argument of its field, a placeholder for any other required text, adds a record the
check counts): the to-do added to the list, the ticket filed for Ayo.

A write is a built-in tool the agent is given, else a tool the spec declares bound to one (`_declared_writer`: the
declared arguments filling the op's id and field, the value as it is or as the word the binding maps to it), so a spec
whose only ticket write is its own `jira_update_issue` is probed alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.bindings import exposed_tools
from coworkenv.spec import EnvSpec, FieldCond, ForbiddenRule, RecordsRule
from coworkenv.tools import ToolBox
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._deleted_guards import _guarded, _holds
from coworkenv.validate._other_values import Writer, _other_values, _writer_of
from coworkenv.validate.gates import GateError
from coworkenv.world import World

Key = tuple[str, str, str]
_MAX_RECORDS = 40  # records tried per check: a scope's bystanders are few, a big table is read only this far
_SCALAR = str | int | float | bool
_NEW = "a new record"  # the record a refill creates, as the report names it
_OUTS = 4  # counted records a refill probe takes out, at most: the records that could fill their place are the same


def scope_exits(spec: EnvSpec, world: World, touched: set[Key], created: set[Key]) -> list[GateError]:
    """`guard_scope_left` errors (see the module docstring); `world` is the world before the episode, `touched` and
    `created` the records the reference's run changed (added, removed) and added."""
    rules = [(path, check, rule) for _, check, path, rule in spec_rules(spec.checks)
             if isinstance(rule, RecordsRule) and (_bounds_count(rule, check.is_guard)
                                                   or _keeps_count(rule, check.is_guard))]
    if not rules:
        return []
    forbidden = [r.call for _, _, _, r in spec_rules(spec.checks) if isinstance(r, ForbiddenRule)]
    exposed = set(exposed_tools(spec))
    writer = _writer_of(spec, exposed, forbidden)
    tables = {(t.app, t.name) for t in world.tables()}
    errors: list[GateError] = []
    for path, check, rule in rules:
        if (rule.app, rule.table) not in tables or not _holds(world, rule):
            continue
        if _keeps_count(rule, check.is_guard):
            refill = _refill(world, rule, touched | created, writer, _creator(rule, exposed, forbidden),
                             exposed, forbidden)
            if refill is not None:
                (rid, harm), (other, enter) = refill
                errors.append(GateError("mutations", "guard_scope_refilled", path, (
                    f"check {check.id!r} counts {_bound(rule)} of the {rule.table} its `where` admits by their "
                    f"values, and still holds when {rule.app}.{rule.table}[{rid}] is moved out of them ({harm[0]} "
                    f"{harm[1]}) and {other} {'created' if other == _NEW else 'moved in'} ({enter[0]} {enter[1]}; calls "
                    "the agent is given and no "
                    "forbidden guard matches): a record done a harm is made up for by another; name the records it "
                    "keeps by id (`id in [...]`)")))
        found = _exit(world, rule, touched | created, writer) if _bounds_count(rule, check.is_guard) \
            else None
        if found is None:
            continue
        rid, harm, leave = found
        errors.append(GateError("mutations", "guard_scope_left", path, (
            f"check {check.id!r} counts {_bound(rule)} of the {rule.table} its `where` admits by their values, and "
            "still holds "
            f"when {rule.app}.{rule.table}[{rid}] is given the value it looks for ({harm[0]} {harm[1]}) and then moved "
            f"out of the values that admit it ({leave[0]} {leave[1]}; calls the agent is given and no forbidden guard "
            "matches): a record done the harm leaves the count by another write; name the records it keeps by id "
            "(`id in [...]`), or count the harm over the whole table")))
    return errors


def _bounds_count(rule: RecordsRule, guard: bool) -> bool:
    """A count the harm it looks for raises past its bound (`count_op` equals/lte) over records picked by value only:
    of none, or (a guard's) of as many as there are."""
    return ((rule.count == 0 or guard) and rule.count_op in ("equals", "lte") and bool(rule.where)
            and not any(c.field == "id" for c in rule.where)
            and all("." not in c.field for c in rule.where))


def _keeps_count(rule: RecordsRule, guard: bool) -> bool:
    """A guard's count that a record leaving its scope brings under its bound (`count_op` equals/gte, at least 1) over
    records picked by value only."""
    return (guard and rule.count >= 1 and rule.count_op in ("equals", "gte") and bool(rule.where)
            and not any(c.field == "id" for c in rule.where)
            and all("." not in c.field for c in rule.where))


def _bound(rule: RecordsRule) -> str:
    if rule.count == 0:
        return "none"
    return f"{({'equals': 'exactly', 'lte': 'at most'}).get(rule.count_op, 'at least')} {rule.count}"


def _meets(world: World, rule: RecordsRule, rid: str, cond: FieldCond) -> bool:
    probe = rule.model_copy(update={"where": [FieldCond(field="id", op="equals", value=rid), cond],
                                    "count_op": "equals", "count": 1})
    return _holds(world, probe)


def _exit(world: World, rule: RecordsRule, left: set[Key], writer: Writer) -> tuple[str, tuple[str, dict[str, Any]], tuple[str, dict[str, Any]]] | None:
    """(record id, the harm's call, the leaving call) of the first record that the harm makes counted and a second
    write takes out of the count again."""
    table = world.table(rule.app, rule.table)
    for n, record in enumerate(table):
        if n >= _MAX_RECORDS:
            return None
        rid = getattr(record, "id", None)
        if not isinstance(rid, str) or (rule.app, rule.table, rid) in left:
            continue
        met = [c for c in rule.where if _meets(world, rule, rid, c)]
        unmet = [c for c in rule.where if c not in met]
        if len(unmet) != 1 or not met:
            continue
        harm = unmet[0]
        for harmed, harm_call in _writes(world, rule, rid, harm.field, writer, harm):
            if _holds(harmed, rule):
                continue  # the check does not count the record so written: no harm it looks for
            for scope in met:
                if scope.field == harm.field:
                    continue
                for moved, leave_call in _writes(harmed, rule, rid, scope.field, writer, scope):
                    if not _meets(moved, rule, rid, scope) and _holds(moved, rule):
                        return rid, harm_call, leave_call
            break  # one harm per record: the first value the check counts
    return None


def _refill(world: World, rule: RecordsRule, left: set[Key], writer: Writer, creator: Creator,
            exposed: set[str], forbidden: list[Any]
            ) -> tuple[tuple[str, tuple[str, dict[str, Any]]], tuple[str, tuple[str, dict[str, Any]]]] | None:
    """((record id, the call moving it out), (another's id, the call moving it in)) of the first record the check
    counts that one write takes out of the count, or one call removes (`_deletions`; the check then fails), and
    another record one write brings in (the check holds again), or one call creates ("a new record": the to-do added to the list, the ticket filed for Ayo,
    where no record the world holds can be moved in)."""
    ids = [rid for n, rec in enumerate(world.table(rule.app, rule.table)) if n < _MAX_RECORDS
           and isinstance(rid := getattr(rec, "id", None), str) and (rule.app, rule.table, rid) not in left]
    counted = [rid for rid in ids if all(_meets(world, rule, rid, c) for c in rule.where)]
    for rid in counted[:_OUTS]:
        for cond in rule.where:
            for out, out_call in _writes(world, rule, rid, cond.field, writer, cond):
                if _meets(out, rule, rid, cond) or _holds(out, rule):
                    continue  # still counted, or the check does not see it leave
                for other in ids:
                    if other == rid:
                        continue
                    unmet = [c for c in rule.where if not _meets(out, rule, other, c)]
                    if len(unmet) != 1:
                        continue
                    for moved, in_call in _writes(out, rule, other, unmet[0].field, writer, unmet[0]):
                        if _holds(moved, rule):
                            return (rid, out_call), (other, in_call)
                made = creator(out)
                if made is not None:
                    return (rid, out_call), (_NEW, made)
                break  # one way out per condition: the first value the check stops counting
        for out, out_call in _deletions(world, rule, rid, exposed, forbidden):
            if _holds(out, rule):
                continue
            for other in ids:
                unmet = [c for c in rule.where if not _meets(out, rule, other, c)] if other != rid else []
                if len(unmet) != 1:
                    continue
                for moved, in_call in _writes(out, rule, other, unmet[0].field, writer, unmet[0]):
                    if _holds(moved, rule):
                        return (rid, out_call), (other, in_call)
            made = creator(out)
            if made is not None:
                return (rid, out_call), (_NEW, made)
    return None


def _deletions(world: World, rule: RecordsRule, rid: str, exposed: set[str], forbidden: list[Any]
               ) -> Iterator[tuple[World, tuple[str, dict[str, Any]]]]:
    """(a copy of the world with the record gone, the call that removes it): an exposed built-in write tool of the
    app taking the record's id alone (`todo_delete_task`), no forbidden guard matching, run on the copy."""
    for name in sorted(exposed):
        tool = TOOLS.get(name)
        if tool is None or tool.app != rule.app or tool.kind != "write":
            continue
        params = tool.params.model_fields
        id_param = next((p for p in params if p == "id" or p.endswith("_id")), None)
        if id_param is None or any(f.is_required() and p != id_param for p, f in params.items()):
            continue
        call = (name, {id_param: rid})
        if _guarded(call, forbidden):
            continue
        copy = world.fork()
        if ToolBox(copy, TOOLS, [name]).call(name, call[1]).ok and copy.table(rule.app, rule.table).get(rid) is None:
            yield copy, call


Creator = Callable[[World], tuple[str, dict[str, Any]] | None]


def _creator(rule: RecordsRule, exposed: set[str], forbidden: list[Any]) -> Creator:
    """A function of a world giving the call (tool, arguments) of an exposed built-in write tool of the rule's app,
    no forbidden guard matching, that adds a record to the rule's table which the rule counts, where one does (run
    on a copy of that world), else None. The call's arguments: each condition's own value on the field it names (an
    `equals` value, an `in` list's first item, a `contains` term as a one-item list), a placeholder word for any other
    required text argument; a tool needing anything else is not tried."""
    own: dict[str, Any] = {}
    for c in rule.where:
        value = c.value[0] if c.op == "in" and isinstance(c.value, list) and c.value else \
            c.value if c.op == "equals" else [c.value] if c.op == "contains" and isinstance(c.value, _SCALAR) \
            else None
        if value is not None and c.field not in own:
            own[c.field] = value
    calls: list[tuple[str, dict[str, Any]]] = []
    for name in sorted(exposed):
        tool = TOOLS.get(name)
        if tool is None or tool.app != rule.app or tool.kind != "write":
            continue
        params = tool.params.model_fields
        args = {p: v for p, v in own.items() if p in params}
        if not args:
            continue
        for p, f in params.items():
            if p not in args and f.is_required():
                if f.annotation is not str:
                    break
                args[p] = "Follow-up"  # a title, a description: any text
        else:
            if not _guarded((name, args), forbidden):
                calls.append((name, args))

    def create(world: World) -> tuple[str, dict[str, Any]] | None:
        before = len(world.table(rule.app, rule.table))
        for name, args in calls:
            copy = world.fork()
            if not ToolBox(copy, TOOLS, [name]).call(name, args).ok:
                continue
            if len(copy.table(rule.app, rule.table)) > before and _holds(copy, rule):
                return name, args
        return None
    return create


def _writes(world: World, rule: RecordsRule, rid: str, field: str, writer: Writer, cond: FieldCond
            ) -> Iterator[tuple[World, tuple[str, dict[str, Any]]]]:
    """(a copy of the world with the record's field set to another value, the call that sets it): the values
    `_values` gives for the condition `cond` on that field."""
    table = world.table(rule.app, rule.table)
    record = table.get(rid)
    if record is None or field not in type(record).model_fields:
        return
    for value in _values(world, rule, getattr(record, field), cond):
        call = writer(rule.app, field, rid, value)
        if call is None:
            continue
        copy = world.fork()
        try:
            copy.table(rule.app, rule.table).put(record.model_copy(update={field: value}))
        except (ValueError, TypeError):
            continue
        yield copy, call


def _values(world: World, rule: RecordsRule, now: Any, cond: FieldCond) -> list[Any]:
    """The values tried for a record's field now `now` under the condition `cond` on it: the condition's own (an
    `equals` or `not_equals` value, an `in` list's items), then the other scalars the table's records hold in the
    field (`_other_values`); for a list field, `now` with the condition's terms added or taken out, then the other
    lists the table's records hold (tags, attendees: a list is written whole)."""
    field = cond.field
    own = cond.value if cond.op == "in" and isinstance(cond.value, list) else \
        [cond.value] if cond.op in ("equals", "not_equals") else []
    found: list[Any] = []
    if isinstance(now, list):
        terms = [t for t in (cond.value if isinstance(cond.value, list) else [cond.value])
                 if isinstance(t, _SCALAR)] if cond.op in ("contains", "not_contains") else []
        found += [[v for v in now if v not in terms], [*now, *(t for t in terms if t not in now)]]
        found += [v for rec in world.table(rule.app, rule.table)
                  if isinstance(v := getattr(rec, field, None), list)][:_MAX_RECORDS]
    else:
        found += [v for v in own if isinstance(v, _SCALAR)]
        found += list(_other_values(world, rule.app, rule.table, field, now))
    values: list[Any] = []
    for v in found:
        if v != now and v not in values:
            values.append(v)
    return values
