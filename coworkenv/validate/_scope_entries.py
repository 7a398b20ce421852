"""Frame selectors keyed on a field the task's tool can set and the task leaves alone: `where status == open`.

A frame selector's `where` holds on the record after the change. A selector that admits the task's records by a field
only they hold the value of (every open ticket is one the task reassigns) admits no other record as the world holds
it, nor as the reference's write leaves it (the write never sets that field): `task_mutations._harm_to_keyed` found
none to harm. But the tool that makes the write can set the field too (`tickets_update`'s `status`, `todo_update_task`'s
`list_id`), so an agent that reopens an unrelated ticket while reassigning it pulls the ticket into the frame's scope
and the frame allows the change.

`entering` gives, for a write and a selector's conditions, the arguments that would carry another record into the
scope: each `equals` condition on a field the write's tool takes as a parameter of that name and the write does not
set, at the condition's value. `_harm_to_keyed` adds them to the reference's write when the write alone admits no
other record, on a record the app's workflow lets reach the value (`reachable`: a resolved ticket cannot be blocked,
and a refused call changes nothing, so it would prove nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.apps.tickets import TRANSITIONS
from coworkenv.spec import FieldCond

# The fields whose new value a tool takes only along a workflow: (app, table, field) -> value -> the values it may go to.
_WORKFLOWS: dict[tuple[str, str, str], dict[str, frozenset[str]]] = {("tickets", "tickets", "status"): TRANSITIONS}


def entering(tool: str, sets: dict[str, Any], where: tuple[FieldCond, ...]) -> dict[str, Any]:
    """{field: value} for each `equals` condition of `where` on a scalar field `tool` takes as a parameter and the
    write's arguments `sets` leave out: what the same call can also set to move a record into the selector's scope."""
    spec = TOOLS.get(tool)
    if spec is None:
        return {}
    params = spec.params.model_fields
    return {c.field: c.value for c in where
            if c.op == "equals" and c.field in params and c.field not in sets and c.field != "id"
            and isinstance(c.value, str | int | float | bool)}


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
