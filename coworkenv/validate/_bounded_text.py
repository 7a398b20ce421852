"""A written name a check compares by a bound (`gte`, `gt`, `lte`, `lt`): the near misses the bound admits beside it.

A bound is the right comparison for a quantity (a stock at least its reorder level, a time after the request), and
the near misses of a written number or time already go both ways (one up and one down, an hour later and earlier),
so one of them lands inside any bound on it. A name has no such order, but the comparison still orders it, as text:
a ticket's priority checked `gte p3` ("p3 or lower") admits `p4`, a draft's reply-to checked `gte msg-391` admits
`msg-392` (another mail), and `msg-391x`. The near misses of a name are the other values of its kind, one or a few
ranked by what the checks name (`mutations._mutate_scalar`), so `p2`, on the side the bound refuses, may be the only
one tried, and the check that admits `p4` looks exact.

So for each string argument of a write (a name, an id, a label; not a date or a time, whose shifts go both ways, and
not a number written as text), and each bounded condition of a check on that field with a string value that holds for
it (the field's last part is the argument's name or ends in `_` and the name, `deployed_version`; a records or field
check on the app the tool writes, or a `called`/`order` matcher's `where` of the tool, as `_loose_values` reads them),
the values the bound admits beside the written one are tried, the nearest in text order first, up to `_MAX_PER_VALUE`:
the values the tool's schema allows for the argument, the other ids of the written id's table, the values the world
holds in that field of the tool's app, and, where none of those is admitted, the written value with its last digit one
up or down or one more character. Each must fail a check (`loose_value_accepted`); a tool that refuses the value fails
the write (killed), one that stores it otherwise ends where the reference ends (an equivalent mutant, not counted).
Where no check bounds a written name, nothing is made.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from coworkenv.spec import CalledRule, EnvSpec, FieldRule, OrderRule, RecordsRule, ReferenceStep, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._loose_values import _holds, _literal_values
from coworkenv.validate._mutation_core import Mutation, replaced
from coworkenv.validate.entities import MAX_ID_CHARS, EntityIndex

_BOUNDS = frozenset({"gte", "gt", "lte", "lt"})
_MAX_PER_VALUE = 3  # near misses per written value
_TIMEISH = re.compile(r"^\d{4}-\d\d-\d\d|^\d\d?:\d\d")  # a date or a time of day: its shifts go both ways already
_NUMERIC = re.compile(r"^[-+]?\d+(\.\d+)?$")  # a number written as text: moved one either way already
_LAST_DIGIT = re.compile(r"(\d)(?!.*\d)")

# (check id, op, expected) of one bounded condition on a name
_Bound = tuple[str, str, str]


def bounded_text_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]],
                           tools: Mapping[str, ToolDef], index: EntityIndex) -> list[Mutation]:
    """One near miss per value a bound on a written name admits beside it (see the module docstring)."""
    bounds = _bounds(spec)
    if not bounds:
        return []
    out: list[Mutation] = []
    for t, s, call in writes:
        tool = tools.get(call.name)
        if tool is None:
            continue
        for name, value in call.arguments.items():
            if not _is_name(value):
                continue
            # the field is named after the argument, or qualifies it (`version` is stored as `deployed_version`)
            keys = [(tool.app, name), ("call:" + call.name, name),
                    *(k for k in bounds if k[0] == tool.app and k[1].endswith("_" + name))]
            reading = [b for k in keys for b in bounds.get(k, []) if _holds(value, b[1], b[2])]
            if not reading:
                continue
            for other, check_id in _admitted(value, reading, _candidates(tool, name, value, index)):
                step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={**call.arguments, name: other}))
                out.append(Mutation("change_arg", f"reference[{t}].steps[{s}].call.arguments.{name}",
                                    f"{call.name}: {name} {value!r} -> {other!r}, which check {check_id} admits as "
                                    "well: it orders a name as text; compare it exactly (equals, or in a list)",
                                    replaced(spec.reference, t, s, step), code="loose_value_accepted"))
    return out


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and bool(value) and len(value) <= MAX_ID_CHARS and not any(
        c.isspace() for c in value) and not _TIMEISH.match(value) and not _NUMERIC.match(value)


def _bounds(spec: EnvSpec) -> dict[tuple[str, str], list[_Bound]]:
    """Bounded conditions with a name for their value, by (app or `call:` tool, field's last part)."""
    out: dict[tuple[str, str], list[_Bound]] = {}

    def add(key: tuple[str, str], check_id: str, op: str, value: Any) -> None:
        if op in _BOUNDS and _is_name(value):
            out.setdefault(key, []).append((check_id, op, value))

    for _, check, _, rule in spec_rules(spec.checks):
        if isinstance(rule, RecordsRule):
            for w in rule.where:
                add((rule.app, w.field.rsplit(".", 1)[-1]), check.id, w.op, w.value)
        elif isinstance(rule, FieldRule):
            add((rule.target.app, rule.target.field.rsplit(".", 1)[-1]), check.id, rule.op, rule.value)
        elif isinstance(rule, CalledRule | OrderRule):
            for m in [rule.call] if isinstance(rule, CalledRule) else [rule.first, rule.then]:
                for w in m.where:
                    add(("call:" + m.tool, w.field.rsplit(".", 1)[-1]), check.id, w.op, w.value)
    return out


def _candidates(tool: ToolDef, name: str, value: str, index: EntityIndex) -> tuple[list[str], list[str]]:
    """(the values of the written one's kind: the schema's, its table's other ids, the field's values in the world;
    the made-up ones: its last digit one up and down, one more character)."""
    field = tool.params.model_fields.get(name)
    kind = [str(v) for v in (_literal_values(field.annotation) if field is not None else []) if isinstance(v, str)]
    key = index.table_of.get(value)
    kind += index.table_ids.get(key, []) if key is not None else []
    for (app, table), ids in index.table_ids.items():
        if app != tool.app:
            continue
        for record_id in ids:
            held = (index.record(app, table, record_id) or {}).get(name)
            if isinstance(held, str):
                kind.append(held)
    made = [_digit_moved(value, d) for d in (1, -1)] + [value + "x"]
    return [v for v in dict.fromkeys(kind) if v != value], [v for v in dict.fromkeys(made) if v != value]


def _digit_moved(value: str, step: int) -> str:
    """`value` with its last digit moved by `step` (mod 10); unchanged where it has none."""
    return _LAST_DIGIT.sub(lambda m: str((int(m.group(1)) + step) % 10), value)


def _admitted(value: str, reading: list[_Bound], candidates: tuple[list[str], list[str]]
              ) -> Iterator[tuple[str, str]]:
    """(another value a bound admits, the check whose bound it is): of the values of the written one's kind, the
    nearest in text order first; the made-up ones only where none of those is admitted."""
    for pool in candidates:
        found = 0
        for other in sorted(pool, key=lambda o: (_distance(value, o), o)):
            check_id = next((b[0] for b in reading if _holds(other, b[1], b[2])), None)
            if check_id is None or not _is_name(other):
                continue
            yield other, check_id
            found += 1
            if found >= _MAX_PER_VALUE:
                return
        if found:
            return


def _distance(a: str, b: str) -> tuple[int, int]:
    """How far apart two names are: the length of what they share at the start (more is nearer), then the length."""
    shared = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return -shared, abs(len(a) - len(b))
