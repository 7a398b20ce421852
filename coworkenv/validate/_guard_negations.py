"""A guard probe that meets the negations of its guard's matcher.

A guard probe is the forbidden call built to see the guard fire (`task_mutations._probes_of`): the values its
matcher's `where` names (`equals`, `in`, a bound, ...) and the rest copied from the reference's own call of the tool.
A negation names no value (`flag not_equals v2_pricing`: "no flag but the one the fix sets"), so the copied value
stayed, and where it was the very value the negation excludes (the reference's call sets that flag), the probe was
the reference's own call: the guard could not fire on it, and a sound guard was reported `guard_never_fires`.

Here each negated argument the built call fails is given another value: left out where the tool does not need it;
else a value of the same field in the app's records or, for an argument naming a record (`job_id`, `service`), the
ids of its table, a key of a map or an item of a list of the record the call names (the service's other flags), a
value the argument's type lists, or a made-up text, number or the other boolean.
None where no such value makes the matcher take the call (a guard that truly never fires keeps its finding).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any, get_args

from coworkenv.apps import TOOLS
from coworkenv.checks import call_matches
from coworkenv.spec import CallMatcher, FieldCond
from coworkenv.spec_regex import PatternRefused, PatternTimeout
from coworkenv.world import World

_NEGATIONS = ("not_equals", "not_contains")
_ABSENT = object()
_VALUES = 24  # candidate values tried per argument


def negations_met(matcher: CallMatcher, args: dict[str, Any], world: World) -> dict[str, Any] | None:
    """`args` where the matcher takes them; else with each negated argument that fails its condition given another
    value (see the module docstring); None where none is found or the call then fails the matcher or the tool."""
    tool = TOOLS.get(matcher.tool)
    if tool is None or _takes(matcher, args):
        return args
    fields = tool.params.model_fields
    negated = [c for c in matcher.where if c.op in _NEGATIONS and c.field in fields]
    if not negated:
        return None
    out = dict(args)
    for name in dict.fromkeys(c.field for c in negated):
        conds = [c for c in negated if c.field == name]  # `job_id != A` and `job_id != B`: one value meets both
        one = CallMatcher(tool=matcher.tool, where=conds)
        if name in out and _takes(one, out):
            continue
        for value in _candidates(conds[0], fields[name], out, tool.app, world):
            tried = {k: v for k, v in out.items() if k != name}
            if value is not _ABSENT:
                tried[name] = value
            if _takes(one, tried):
                out = tried
                break
        else:
            return None
    try:
        tool.params.model_validate(out)
    except Exception:  # a probe we cannot build proves nothing either way
        return None
    return out if _takes(matcher, out) else None


def _takes(matcher: CallMatcher, args: dict[str, Any]) -> bool:
    try:
        return call_matches(matcher, matcher.tool, args)
    except (PatternTimeout, PatternRefused):
        return False


def _candidates(cond: FieldCond, field: Any, args: dict[str, Any], app: str, world: World) -> Iterator[Any]:
    """Values for a negated argument, the likeliest harm first (see the module docstring)."""
    if not field.is_required():
        yield _ABSENT
    text = str(field.annotation)
    now = args.get(cond.field, cond.value)
    if isinstance(now, bool) or "bool" in text:
        yield not now if isinstance(now, bool) else True
        return
    if isinstance(now, int | float) and not isinstance(now, bool):
        yield now + 1
        return
    seen: list[Any] = []
    for value in itertools.chain(_field_values(cond.field, app, world), _named_record_values(args, app, world)):
        if value not in seen:
            seen.append(value)
            yield [value] if "list" in text else value
        if len(seen) >= _VALUES:
            return
    yield from (v for v in get_args(field.annotation) if isinstance(v, str))
    yield "probe-other"


def _field_values(name: str, app: str, world: World) -> Iterator[str]:
    """The values of the field `name` in the app's records, then, for an argument naming a record of a table
    (`job_id`, `service`), that table's ids."""
    kind = name.removesuffix("_id").rstrip("s")
    for table in world.tables():
        if table.app == app:
            yield from (held for record in table if isinstance(held := getattr(record, name, None), str))
    for table in world.tables():
        if table.app == app and table.name.rstrip("s") == kind:
            yield from table.ids()


def _named_record_values(args: dict[str, Any], app: str, world: World) -> Iterator[str]:
    """The keys of each map and the text items of each list of the app's records the call's arguments name."""
    names = {v for v in args.values() if isinstance(v, str)}
    for table in world.tables():
        if table.app != app:
            continue
        for rid in names:
            record = table.get(rid)
            if record is None:
                continue
            for value in record.model_dump().values():
                if isinstance(value, dict):
                    yield from (k for k in value if isinstance(k, str))
                elif isinstance(value, list):
                    yield from (v for v in value if isinstance(v, str))
