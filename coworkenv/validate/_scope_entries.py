"""Frame selectors keyed on a field the task's tool can set and the task leaves alone: `where status == open`.

A frame selector's `where` holds on the record after the change. A selector that admits the task's records by a field
only they hold the value of (every open ticket is one the task reassigns) admits no other record as the world holds
it, nor as the reference's write leaves it (the write never sets that field): `task_mutations._harm_to_keyed` found
none to harm. But the tool that makes the write can set the field too (`tickets_update`'s `status`, `todo_update_task`'s
`list_id`), so an agent that reopens an unrelated ticket while reassigning it pulls the ticket into the frame's scope
and the frame allows the change.

`entering` gives, for a write and a selector's conditions, the arguments that would carry another record into the
scope: for each condition on a field the write's tool takes as a parameter of that name and the write does not set,
values that meet it: an `equals` condition's value, an `in` list's items (`priority in [p1, p2]`), a `contains` term
as the text or list the field holds (`title contains Sanna`: an event renamed `Sanna`), an ordering bound
(`priority lte p2`, `due lt 2026-05-01`) at the bound, a step past a strict one, or a value the table's records hold
that meets it. Several conditions on one field (a window `gte`/`lt`) keep the values that meet them all.
`_harm_to_keyed` tries the sets of arguments in turn, when the write alone admits no other record, on a record the
app's workflow lets reach the values (`reachable`: a resolved ticket cannot be blocked, and a refused call changes
nothing, so it would prove nothing); the record as the write leaves it must meet the selector, so a value the field's
type refuses picks no record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.apps.tickets import TRANSITIONS
from coworkenv.checks import compare
from coworkenv.spec import FieldCond

# The fields whose new value a tool takes only along a workflow: (app, table, field) -> value -> the values it may go to.
_WORKFLOWS: dict[tuple[str, str, str], dict[str, frozenset[str]]] = {("tickets", "tickets", "status"): TRANSITIONS}
_TRIES = 4  # sets of arguments tried per write and selector, at most
_SCALAR = str | int | float | bool


def entering(tool: str, sets: dict[str, Any], where: tuple[FieldCond, ...], records: Iterable[Any] = ()
             ) -> list[dict[str, Any]]:
    """Sets of arguments ({field: value}, the likeliest first) that the call of `tool` writing `sets` can also take
    to move a record into the scope of `where`: each condition on a field `tool` takes as a parameter and `sets`
    leaves out, at a value that meets every condition of `where` on that field. `records` (the table's) give the
    values the field already holds, tried after the conditions' own."""
    spec = TOOLS.get(tool)
    if spec is None:
        return []
    params = spec.params.model_fields
    conds: dict[str, list[FieldCond]] = {}
    for c in where:
        if c.field in params and c.field not in sets and c.field != "id":
            conds.setdefault(c.field, []).append(c)
    if not conds:
        return []
    rows = list(records)
    options: dict[str, list[Any]] = {}
    for field, on in conds.items():
        held = [v for r in rows if isinstance(v := getattr(r, field, None), _SCALAR)]
        found: list[Any] = []
        for c in on:
            for v in [*_meeting(c), *sorted(set(held), key=repr)]:
                if v not in found and all(compare(v, d.op, d.value) for d in on):
                    found.append(v)
        if not found:
            return []  # no value meets the field's conditions: the call cannot move a record in
        options[field] = found
    tries: list[dict[str, Any]] = []
    for k in range(min(_TRIES, max(len(v) for v in options.values()))):
        moved = {field: values[min(k, len(values) - 1)] for field, values in options.items()}
        if moved not in tries:
            tries.append(moved)
    return tries


def _meeting(c: FieldCond) -> list[Any]:
    """Values a condition names that meet it (the selector's own value, an `in` list's items, a `contains` term as
    text and as a list, a bound or a step past it)."""
    value = c.value
    if c.op == "equals":
        return [value] if isinstance(value, _SCALAR) else []
    if c.op == "in":
        return [v for v in value if isinstance(v, _SCALAR)] if isinstance(value, list) else []
    if c.op == "contains":
        terms = value if isinstance(value, list) else [value]
        if not terms or not all(isinstance(t, str) for t in terms):
            return []
        return [" ".join(terms), list(terms)]
    if c.op in ("gte", "lte"):
        return [value] if isinstance(value, _SCALAR) and not isinstance(value, bool) else []
    if c.op in ("gt", "lt"):
        step = _step(value, 1 if c.op == "gt" else -1)
        return [step] if step is not None else []
    return []


def _step(value: Any, sign: int) -> Any:
    """The value one unit past `value` towards `sign`: a number by 1, an ISO day by a day, an ISO time by a second."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value + sign
    if not isinstance(value, str):
        return None
    try:
        if len(value) == 10:
            return (date.fromisoformat(value) + timedelta(days=sign)).isoformat()
        moved = datetime.fromisoformat(value.replace("Z", "+00:00")) + timedelta(seconds=sign)
    except ValueError:
        return None
    text = moved.isoformat()
    return text.replace("+00:00", "Z") if value.endswith("Z") else text


def reachable(app: str, table: str, rec: Any, moved: dict[str, Any]) -> bool:
    """Whether the app's workflow lets `rec` take each value of `moved` in one write (a field with no workflow can)."""
    for field, value in moved.items():
        flow = _WORKFLOWS.get((app, table, field))
        now = getattr(rec, field, None)
        if flow is not None and now != value and value not in flow.get(str(now), frozenset()):
            return False
    return True


def reaching(fill: Callable[[Any, Any], dict[str, Any] | None], app: str, table: str, moved: dict[str, Any]
             ) -> Callable[[Any, Any], dict[str, Any] | None]:
    """`fill` kept for the records that can take `moved` (`reachable`)."""
    return lambda rec, u: fill(rec, u) if reachable(app, table, rec, moved) else None
