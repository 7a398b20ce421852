"""Frame selectors keyed on the value the task writes: `where assignee == u-sofia`, `where status == closed`.

A frame selector's `where` holds on the record after the change (before it, if the change removed it). A selector
that picks the task's record by a field the task itself writes, at the value the task writes there, admits every
record of the table the same write turns into a match: reassigning any other ticket to u-sofia too, closing any
other ticket, is "allowed". The harm built for keyed selectors (`task_mutations._harm_to_keyed`) looked only for
records that meet the `where` as the world holds them, so such a selector, met by no other record before the
episode, was never put against the reference's write repeated on another record (found by the outsider hunt,
`benchmarks/hunt_mutants.py --family d119` kind `frame_where_new_value`: 38 of 60 mutants accepted on main).

`admitted_as_written` keeps a record when it meets the selector's conditions as the world holds it, or as the
reference's write would leave it (each argument that names a field of the record set to the call's value).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coworkenv.checks import compare, field_value
from coworkenv.spec import FieldCond

Record = Any
Key = tuple[str, str, str]


def as_written(rec: Record, sets: dict[str, Any]) -> Record:
    """`rec` as a write setting `sets` leaves it: each key naming a field of the record set to its value (a value
    the record's model refuses leaves the record as it was)."""
    fields = getattr(type(rec), "model_fields", {})
    update = {k: v for k, v in sets.items() if k in fields and k != "id"}
    if not update:
        return rec
    try:
        return type(rec).model_validate({**rec.model_dump(), **update})
    except ValueError:
        return rec


def _meets(rec: Record, where: tuple[FieldCond, ...]) -> bool:
    return all(compare(field_value(rec, c.field), c.op, c.value) for c in where)


def admitted_as_written(fill: Callable[[Record, Any], dict[str, Any] | None], table: tuple[str, str],
                        where: tuple[FieldCond, ...], created: set[Key], sets: dict[str, Any]
                        ) -> Callable[[Record, Any], dict[str, Any] | None]:
    """`fill` kept for the records of `table` there before the episode that meet every condition of `where`, as the
    world holds them or as a write setting `sets` leaves them (the record after the change, as a frame reads it)."""
    def keyed(rec: Record, u: Any) -> dict[str, Any] | None:
        if (*table, rec.id) in created or not (_meets(rec, where) or _meets(as_written(rec, sets), where)):
            return None
        return fill(rec, u)
    return keyed


def writing_into_first(writes: list[tuple[Any, Key]], world: Any, where: tuple[FieldCond, ...]
                       ) -> list[tuple[Any, Key]]:
    """The reference's writes (call, target record), those that leave their target a match of `where` first (the
    write that sets `assignee: u-sofia` before one that sets `u-oscar`): the write that made the selector pick its
    record is the one to repeat on another record. `world` is any world holding the targets (the final one)."""
    def into(item: tuple[Any, Key]) -> bool:
        call, (app, table, rid) = item
        rec = world.table(app, table).get(rid)
        sets = {k: v for k, v in call.arguments.items() if v != rid}
        return rec is not None and _meets(as_written(rec, sets), where)
    return sorted(writes, key=lambda item: not into(item))
