"""A written name no near miss changed: the same field of another record in its place.

A write's string argument that names something by a name a record holds, not by its id (a config entry set to the one
job it pauses, `value: payments-cert-renew`, the job's `name`), had no near miss: the argument mutations change an id
to another id, a person to another person, a list of names by an item, a time, a zone, a number, and a single name
is none of those. So a check that reads anything of the written record but that value (its `version`, which every
write bumps) passed the config set to another job's name: found by the outsider hunt, `benchmarks/hunt_mutants.py
--family d141` kind `field_other_written` (the value's check moved onto the entry's `version`, 2 accepted mutants
witnessed unsound on scheduler_pause_failing_jobs).

`held_name_mutations` tries, for each string argument of a write that is one name (a letter first, no spaces, no list
separator, not an id, a person, a channel, a date-time or a zone; not one of a closed set of values the tool takes),
written as a field of a record of the world holds it, that field of the first other record of the table holding a
different name there: the write done on the wrong thing. Core for a required argument, context (reported, not
failed) for an optional one, as for an id.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal

from coworkenv.spec import EnvSpec, ReferenceStep, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.validate._mutation_core import Mutation, replaced
from coworkenv.validate.entities import MAX_ID_CHARS, EntityIndex

_NAME = re.compile(r"[A-Za-z][\w.@/-]*")  # one name: a letter first, no spaces, no list separator
_TIME_OR_ZONE = re.compile(r"\d{4}-\d\d-\d\d|[A-Z][a-z]+/[A-Za-z_]+")
_SKIPPED_ARGS = frozenset({"body", "text", "content", "description", "message", "subject", "title"})


def held_name_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]], tools: Mapping[str, ToolDef],
                        index: EntityIndex) -> list[Mutation]:
    """One near miss per written single name a record holds: another record's name in its place (see the module)."""
    out: list[Mutation] = []
    for t, s, call in writes:
        tool = tools.get(call.name)
        if tool is None:
            continue
        for name, value in call.arguments.items():
            field = tool.params.model_fields.get(name)
            if field is None or name in _SKIPPED_ARGS or not _one_name(value, index) or _closed(field.annotation):
                continue
            other = _other_name(str(value), index)
            if other is None:
                continue
            where = f"reference[{t}].steps[{s}]"
            step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={**call.arguments, name: other}))
            out.append(Mutation("change_arg", f"{where}.call.arguments.{name}",
                                f"{call.name}: {name} {value!r} -> {other!r} (another record's name)",
                                replaced(spec.reference, t, s, step), field.is_required()))
    return out


def _one_name(value: Any, index: EntityIndex) -> bool:
    return isinstance(value, str) and len(value) <= MAX_ID_CHARS and _NAME.fullmatch(value) is not None \
        and _TIME_OR_ZONE.match(value) is None and not index.is_entity(value)


def _other_name(value: str, index: EntityIndex) -> str | None:
    """The field holding `value` (as written) of the first record holding it, read on the first other record of its
    table holding another single name there."""
    for app, table, rid in sorted(index.holders(value)):
        record = index.record(app, table, rid) or {}
        field = next((f for f, v in record.items() if f != "id" and v == value), None)
        if field is None:
            continue
        for other_id in index.table_ids.get((app, table), []):
            held = (index.record(app, table, other_id) or {}).get(field) if other_id != rid else None
            if isinstance(held, str) and held != value and _NAME.fullmatch(held):
                return held
    return None


def _closed(annotation: Any) -> bool:
    """Whether the argument takes one of a closed set of values (the tool refuses another)."""
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_closed(arg) for arg in typing.get_args(annotation))
    return False
