"""`_scope_entries`: the arguments that carry a record into a frame selector's scope, and the workflow's say on them."""

from __future__ import annotations

from coworkenv.apps.tickets import Ticket
from coworkenv.spec import FieldCond
from coworkenv.validate._scope_entries import entering, reachable, reaching

OPEN = (FieldCond(field="status", op="equals", value="open"),)


def test_entering_sets_the_where_field_the_tool_takes_and_the_write_leaves() -> None:
    assert entering("tickets_update", {"assignee": "u-sofia"}, OPEN) == [{"status": "open"}]
    assert entering("tickets_update", {"assignee": "u-sofia", "status": "closed"}, OPEN) == []  # the write sets it
    assert entering("tickets_comment", {"body": "x"}, OPEN) == []  # the tool cannot set it
    assert entering("tickets_update", {}, (FieldCond(field="status", op="not_equals", value="closed"),)) == []
    assert entering("todo_update_task", {"title": "x"}, (FieldCond(field="list_id", value="l-1"),)) == [{"list_id": "l-1"}]
    assert entering("no_such_tool", {}, OPEN) == []
    assert entering("tickets_update", {}, (FieldCond(field="id", op="in", value=["T-1"]),)) == []  # no write moves it


def test_entering_meets_ranges_lists_and_terms() -> None:
    urgent = (FieldCond(field="priority", op="in", value=["p1", "p2"]),)
    assert entering("tickets_update", {}, urgent) == [{"priority": "p1"}, {"priority": "p2"}]
    named = (FieldCond(field="title", op="contains", value="Sanna"),)
    assert entering("calendar_update_event", {"start": "x"}, named) == [{"title": "Sanna"}, {"title": ["Sanna"]}]
    # a strict bound: a step past it, then the values the table holds that meet it
    below = (FieldCond(field="priority", op="lt", value="p3"),)
    held = [Ticket(id=f"T-{p}", title="t", priority=p) for p in ("p4", "p2", "p3")]
    assert entering("tickets_update", {}, below, held) == [{"priority": "p2"}]
    window = (FieldCond(field="due", op="gte", value="2026-05-01"), FieldCond(field="due", op="lt", value="2026-05-08"))
    assert entering("todo_update_task", {}, window) == [{"due": "2026-05-01"}, {"due": "2026-05-07"}]
    late = (FieldCond(field="due", op="gt", value="2026-05-01T09:00:00Z"),)
    assert entering("todo_update_task", {}, late) == [{"due": "2026-05-01T09:00:01Z"}]
    assert entering("todo_update_task", {}, (FieldCond(field="priority", op="gt", value=2),)) == [{"priority": 3}]
    empty = (FieldCond(field="due", op="gt", value="2026-05-08"), FieldCond(field="due", op="lt", value="2026-05-02"))
    assert entering("todo_update_task", {}, empty) == []  # no value meets both bounds


def test_reachable_follows_the_ticket_workflow() -> None:
    resolved, opened = Ticket(id="T-1", title="a", status="resolved"), Ticket(id="T-2", title="b", status="open")
    blocked = {"status": "blocked"}
    assert not reachable("tickets", "tickets", resolved, blocked)
    assert reachable("tickets", "tickets", opened, blocked)
    assert reachable("tickets", "tickets", resolved, {"status": "resolved"})  # already there
    assert reachable("todo", "tasks", resolved, {"status": "anything"})  # no workflow on that table
    kept = reaching(lambda rec, u: {}, "tickets", "tickets", blocked)
    assert kept(resolved, None) is None and kept(opened, None) == {}
