"""State checks that a record's deletion meets: a check on a record the task leaves alone, written as a negation
(`jobs[job-844].enabled not_equals false`: "the healthy job keeps running"; `tasks[task-345].done not_equals true`:
"the to-do stays open"; `files[exports/q3.csv].content not_equals ""`: "the export is not emptied"), or as a count
that stays put (`0 jobs where id == job-844 and enabled == false`). A field of a record that is gone does not
resolve, and a negation of a value the field does not hold holds (`compare` on a missing field); no record is
counted. So the check holds when the agent deletes the record (`scheduler_delete_job`, `files_delete_file`,
`todo_delete_task`, `notes_delete_note`): the healthy job or the bystander's file is destroyed and the check, a
safety check most often, says it is safe. The mutations gate's harms never meet it:
they act on records no check names (`task_mutations._Unrelated`), and this record is named by the check itself.

For each record of the world before the episode that a field check (its target) or a records check (an `id equals`
condition, or each id of an `id in` list) names, which the reference's run leaves as it was, where the agent is given the app's tool that deletes it
(`<app>_delete_<kind>` taking the record's id), or a tool the spec declares bound to that op or to `<app>_cancel_<kind>`
with `remove: true` (an imported calendar's `calendar_delete_event`), and no forbidden guard matches that call: the record is
removed from a copy of the world, and where every state check naming it still holds, as it did before, each such
check is reported (`guard_holds_deleted`). Judged on the world alone, as `_guard_evasions` judges a forbidden guard
on the calls alone: a frame may still stop the deletion, the check itself cannot tell a deleted record from one kept
(and a safety check's verdict is the episode's safety verdict). The fix: check the value the record must keep
(`enabled equals true`, `done equals false`), which a missing record fails, or forbid the deletion.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.bindings import bind_arguments, exposed_tools
from coworkenv.checks import call_matches, holds
from coworkenv.spec import EnvSpec, FieldRule, ForbiddenRule, RecordsRule
from coworkenv.spec_regex import PatternRefused, PatternTimeout
from coworkenv.tools import ToolError
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._declared_calls import _plain_renames
from coworkenv.validate.gates import GateError
from coworkenv.world import World

Key = tuple[str, str, str]
_REMOVE_FLAGS = ("remove",)  # a cancel op's service argument that deletes the record for good (`calendar_cancel_event`)


def deleted_guards(spec: EnvSpec, world: World, touched: set[Key], created: set[Key]) -> list[GateError]:
    """`guard_holds_deleted` errors (see the module docstring); `world` is the world before the episode, `touched`
    and `created` the records the reference's run changed and added."""
    exposed = set(exposed_tools(spec))
    if not any("_delete_" in name for name in exposed) and not any(
            "_delete_" in d.bind.op or "_cancel_" in d.bind.op for d in spec.tool_decls):
        return []
    rules = [(path, check, rule) for _, check, path, rule in spec_rules(spec.checks)
             if isinstance(rule, FieldRule | RecordsRule)]
    named: dict[Key, list[tuple[str, Any, FieldRule | RecordsRule]]] = {}
    for path, check, rule in rules:
        for key in _records_of(rule):
            if key not in touched and key not in created:
                named.setdefault(key, []).append((path, check, rule))
    forbidden = [r.call for _, _, _, r in spec_rules(spec.checks) if isinstance(r, ForbiddenRule)]
    tables = {(t.app, t.name) for t in world.tables()}
    errors: list[GateError] = []
    for key, reading in sorted(named.items()):
        app, table, rid = key
        if (app, table) not in tables or world.table(app, table).get(rid) is None:
            continue
        removals = [*(r for r in _removals(app, table, rid, exposed) if not _guarded(r, forbidden)),
                    *(d for d, o in _declared_removals(spec, app, table, rid)
                      if not _guarded(d, forbidden) and not _guarded(o, forbidden))]
        removal = removals[0] if removals else None
        if removal is None or not all(_holds(world, rule) for _, _, rule in reading):
            continue
        gone = world.fork()
        gone.table(app, table).delete(rid)
        if not all(_holds(gone, rule) for _, _, rule in reading):
            continue  # a check the deletion fails (an `equals` on the record) sees it
        tool, args = removal
        for path, check, _ in reading:
            errors.append(GateError("mutations", "guard_holds_deleted", path, (
                f"check {check.id!r} on {app}.{table}[{rid}], a record the task leaves alone, still holds when the "
                f"record is deleted ({tool} {args}, a call the agent is given and no forbidden guard matches): a "
                "field of a missing record meets a negation and is counted nowhere, so the check cannot tell a "
                "deleted record from one kept; check the value it must keep (`equals`), or forbid the deletion")))
    return errors


def _records_of(rule: FieldRule | RecordsRule) -> list[Key]:
    """The records a state check reads by id: a field check's target; a records check's `id equals` one id, or `id in`
    a list of ids (each of them: deleting one of "none of these jobs disabled" keeps the count at 0)."""
    if isinstance(rule, FieldRule):
        return [(rule.target.app, rule.target.table, rule.target.id)]
    for c in rule.where:
        if c.field != "id":
            continue
        if c.op == "equals" and isinstance(c.value, str):
            return [(rule.app, rule.table, c.value)]
        if c.op == "in" and isinstance(c.value, list):
            return [(rule.app, rule.table, v) for v in c.value if isinstance(v, str)]
    return []


def _removals(app: str, table: str, rid: str, exposed: set[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(tool, arguments) of the exposed call that deletes the record: `<app>_delete_<kind>` taking the record's id as
    its one required argument. (A built-in cancel tool marks the record cancelled and keeps it: a negation of that
    status sees it.)"""
    kind = table[:-1] if table.endswith("s") else table
    name = f"{app}_delete_{kind}"
    tool = TOOLS.get(name)
    if tool is None or name not in exposed:
        return
    required = [k for k, f in tool.params.model_fields.items() if f.is_required()]
    if len(required) != 1:
        return
    args: dict[str, Any] = {required[0]: rid}
    try:
        tool.params.model_validate(args)
    except ValueError:
        return
    yield name, args


def _declared_removals(spec: EnvSpec, app: str, table: str, rid: str) -> Iterator[tuple[tuple[str, dict[str, Any]],
                                                                                    tuple[str, dict[str, Any]]]]:
    """((declared tool, its arguments), (op, the op's arguments)) of each tool the spec declares that deletes the
    record: bound to `<app>_delete_<kind>`, or to `<app>_cancel_<kind>` with a flag that deletes for good set
    (`remove: true`, an imported calendar's `calendar_delete_event`), its record argument a plain rename of the op's."""
    kind = table[:-1] if table.endswith("s") else table
    for decl in spec.tool_decls:
        op = decl.bind.op
        if op not in (f"{app}_delete_{kind}", f"{app}_cancel_{kind}") or op not in TOOLS or decl.bind.unserved:
            continue
        required = [k for k, f in TOOLS[op].params.model_fields.items() if f.is_required()]
        names = [n for n, to in _plain_renames(decl.bind).items() if len(required) == 1 and to == required[0]]
        if not names:
            continue
        args = {names[0]: rid}
        try:
            op_args = bind_arguments(decl.bind, args)
            TOOLS[op].params.model_validate({required[0]: op_args.get(required[0])})  # the service's flags aside
        except (ToolError, ValueError, TypeError):
            continue
        if op.startswith(f"{app}_delete_") or any(op_args.get(flag) is True for flag in _REMOVE_FLAGS):
            yield (decl.name, args), (op, op_args)


def _guarded(call: tuple[str, dict[str, Any]], forbidden: list[Any]) -> bool:
    name, args = call
    for matcher in forbidden:
        try:
            if call_matches(matcher, name, args):
                return True
        except (PatternTimeout, PatternRefused):
            return True  # unknown: not reported
    return False


def _holds(world: World, rule: FieldRule | RecordsRule) -> bool:
    try:
        return holds(world, rule)
    except (PatternTimeout, PatternRefused):
        return False
