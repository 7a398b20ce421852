"""An imported service's fidelity surface stays with the imported envs: service arguments (`service_args`) are in a
tool's schema, and taken, only where a spec's declared tool enables them (its binding fills them); a record's service
fields (`Record.shown_when_set`) are in results only when set. Generated envs show what the apps show themselves."""

from __future__ import annotations

import inspect
from typing import Any

import orjson
import pytest

from coworkenv.apps import APPS, SERVICE_TOOLS, TOOLS, WorldApps
from coworkenv.apps._common import dump, dump_many
from coworkenv.apps.calendar import Event
from coworkenv.apps.todo import TodoTask
from coworkenv.binding_check import binding_issues
from coworkenv.bindings import ArgBinding, Binding, ResultShape, ToolDecl, declared_tool
from coworkenv.examples import load_example
from coworkenv.tools import RENDERING, ToolBox
from coworkenv.world import World, parse_time

START = "2026-03-02T09:00:00Z"
# tool -> its service arguments, as the toolkits mark them
MARKED = {f"{app.name}_{name}": fn._service_args for app in APPS.values()
          for name, fn in inspect.getmembers(app.toolkit, inspect.isfunction) if getattr(fn, "_service_args", ())}


def _box(catalog: dict[str, Any] | None = None) -> ToolBox:
    state = WorldApps.model_validate({
        "directory": {"people": [{"id": "u-ana", "name": "Ana", "email": "ana@x.test", "team": "t", "role": "r"}],
                      "teams": [{"id": "t", "name": "T"}]},
        "todo": {"lists": [{"id": "l-1", "name": "Work"}]},
        "inventory": {"items": [{"id": "S1@w", "sku": "S1", "name": "bolt", "location": "w", "supplier": "Acme"}]},
    })
    world = World.from_wire(APPS, state, parse_time(START), 30, user="u-ana")
    tools = catalog if catalog is not None else TOOLS
    return ToolBox(world, tools, tools)


def _ok(box: ToolBox, tool: str, /, **args: Any) -> Any:
    outcome = box.call(tool, args, rendered=True)
    assert outcome.ok, outcome.error
    return orjson.loads(orjson.dumps(outcome.result))  # what the agent is shown


def test_service_arguments_are_marked_where_the_import_sets_them() -> None:
    assert {"todo_update_task": ("status_word",), "todo_list_tasks": ("status_word", "stored_order"),
            "calendar_add_event": ("id_as_counted",), "inventory_create_order": ("as_written",),
            "todo_add_task": ("id_prefix", "title_as_written"), "scheduler_create_job": ("as_written", "id_prefix"),
            "scheduler_update_job": ("as_written", "whole"), "scheduler_delete_job": ("with_job",),
            "scheduler_job_history": ("stored_order", "with_id"),
            "calendar_cancel_event": ("remove",),
            "contacts_search": ("in_name", "stored_order"), "contacts_send_message": ("unchecked_id",),
            "notes_share_note": ("unchecked_id",), "mail_list_messages": ("stored_order",),
            "finance_list_transactions": ("stored_order",), "scheduler_list_jobs": ("stored_order", "whole"),
            "notes_list_notes": ("stored_order",), "news_list_articles": ("stored_order",),
            "kb_search": ("any_token",), "web_fetch": ("any_url",), "calendar_list_events": ("starting",)}.items() <= MARKED.items()


@pytest.mark.parametrize("tool", sorted(MARKED))
def test_a_built_in_tool_neither_shows_nor_takes_its_service_arguments(tool: str) -> None:
    shown = TOOLS[tool].openai_schema()["function"]["parameters"]["properties"]
    served = SERVICE_TOOLS[tool].openai_schema()["function"]["parameters"]["properties"]
    for name in MARKED[tool]:
        assert name not in shown and name not in TOOLS[tool].params.model_fields
        assert name in served  # a declared tool's op takes it
    assert {k: v for k, v in served.items() if k not in MARKED[tool]} == shown  # the rest as the agent sees it
    box = _box()
    outcome = box.call(tool, {MARKED[tool][0]: "x"})
    assert not outcome.ok and f"{MARKED[tool][0]}: Extra inputs are not permitted" in (outcome.error or "")


def test_a_declared_tool_enables_a_service_argument_through_its_binding() -> None:
    decl = ToolDecl(name="set_status", parameters={
        "type": "object", "properties": {"task_id": {"type": "string"}, "status": {"type": "string"}},
        "required": ["task_id", "status"]},
        bind=Binding(op="todo_update_task", args={"task_id": "task_id", "status": ArgBinding(
            to="stage", values={"completed": "done"}, unmapped_to="status_word")},
            result=ResultShape(fields={"id": "id", "status": "status_word"})))
    spec = load_example("triage_escalation_declared_tools")
    assert binding_issues(spec.model_copy(update={"tool_decls": [*spec.tool_decls, decl]})) == []
    box = _box()
    task = _ok(box, "todo_add_task", list_id="l-1", title="ship")
    assert set(task) == set(TodoTask.model_fields) - {"status_word", "shown_id"}  # the app's own task, as before
    box_declared = ToolBox(box.world, {**TOOLS, "set_status": declared_tool(decl)}, ["set_status", "todo_get_task"])
    assert _ok(box_declared, "set_status", task_id=task["id"], status="blocked") == {"id": task["id"],
                                                                                     "status": "blocked"}
    assert _ok(box_declared, "todo_get_task", task_id=task["id"])["status_word"] == "blocked"  # set: shown


def test_service_fields_are_shown_only_when_set_by_every_dump_path() -> None:
    box = _box(SERVICE_TOOLS)
    plain = _ok(box, "calendar_add_event", title="a", start_time="2026-03-03T09:00:00Z", end_time="2026-03-03T10:00:00Z")
    counted = _ok(box, "calendar_add_event", title="b", start_time="2026-03-03T11:00:00Z",
                  end_time="2026-03-03T12:00:00Z", id_as_counted=True)
    assert "shown_id" not in plain["event"] and counted["event"]["shown_id"] == "evt_002"
    events = list(box.world.table("calendar", "events"))
    expected = [{k: v for k, v in e.model_dump(mode="json").items() if k != "shown_id" or v is not None} for e in events]
    assert [dump(e) for e in events] == dump_many(events) == expected
    assert dump_many(events, "id", "shown_id") == [{"id": events[0].id}, {"id": events[1].id, "shown_id": "evt_002"}]
    for _ in range(2):  # the rendered rows (Env.step's path, kept per record), first made and then reused
        token = RENDERING.set(True)
        try:
            assert orjson.dumps(dump_many(events)) == orjson.dumps(expected)
        finally:
            RENDERING.reset(token)
    # the record keeps the field: its state and wire form are unchanged
    assert "shown_id" in events[0].model_dump() and Event.shown_when_set == ("shown_id",)
