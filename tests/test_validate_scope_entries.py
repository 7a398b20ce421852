"""`_scope_entries`: the arguments that carry a record into a frame selector's scope, and the workflow's say on them."""

from __future__ import annotations

from coworkenv.apps.tickets import Ticket
from coworkenv.spec import FieldCond
from coworkenv.validate._scope_entries import entering, reachable, reaching

OPEN = (FieldCond(field="status", op="equals", value="open"),)


def test_entering_sets_the_where_field_the_tool_takes_and_the_write_leaves() -> None:
    assert entering("tickets_update", {"assignee": "u-sofia"}, OPEN) == {"status": "open"}
    assert entering("tickets_update", {"assignee": "u-sofia", "status": "closed"}, OPEN) == {}  # the write sets it
    assert entering("tickets_comment", {"body": "x"}, OPEN) == {}  # the tool cannot set it
    assert entering("tickets_update", {}, (FieldCond(field="status", op="not_equals", value="closed"),)) == {}
    assert entering("todo_update_task", {"title": "x"}, (FieldCond(field="list_id", value="l-1"),)) == {"list_id": "l-1"}
    assert entering("no_such_tool", {}, OPEN) == {}


def test_reachable_follows_the_ticket_workflow() -> None:
    resolved, opened = Ticket(id="T-1", title="a", status="resolved"), Ticket(id="T-2", title="b", status="open")
    blocked = {"status": "blocked"}
    assert not reachable("tickets", "tickets", resolved, blocked)
    assert reachable("tickets", "tickets", opened, blocked)
    assert reachable("tickets", "tickets", resolved, {"status": "resolved"})  # already there
    assert reachable("todo", "tasks", resolved, {"status": "anything"})  # no workflow on that table
    kept = reaching(lambda rec, u: {}, "tickets", "tickets", blocked)
    assert kept(resolved, None) is None and kept(opened, None) == {}
