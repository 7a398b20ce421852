"""Created id pinned: a check finds a record the agent creates (a to-do, a stock movement, a chat post, a calendar
event) by the id the writer saw when running the reference (`task-353`, `mv-2`). New ids are handed out in
creation order, so an honest agent that files the same to-dos in another order, or makes one record more first,
gets other ids and fails; the sound twin finds the record by the fields the task fixes."""

from __future__ import annotations

from typing import Any

from coworkenv.agents import OraclePolicy
from coworkenv.env import Env
from coworkenv.loading import parse_spec
from coworkenv.rollout import run_episode
from tests.defects._core import CorpusError, Defect, Spec, check, cond, reference

CLASS = "created_id_pinned"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "collect the records the reference creates whose ids are counted (prefix-N) and that no turn names; a "
    "completion check that targets one of them by id (field target, records `id` condition, reply source) pins "
    "the run's numbering, not the task"
)


def _created(spec: Spec, table: str) -> list[tuple[str, Any]]:
    """(id, record) of every record of `table` the reference creates, in creation order."""
    parsed = parse_spec(spec)
    env = Env(parsed)
    run_episode(env, OraclePolicy(parsed))
    out = [(c.id, env.state.table(c.app, c.table).get(c.id)) for c in env.state.changes()
           if c.kind == "added" and c.table == table]
    if not out:
        raise CorpusError(f"{spec['capability']}: the reference creates no {table}")
    return out


def _by_id(check_id: str | None, table: str, fields: tuple[str, ...], match: str):  # type: ignore[no-untyped-def]
    """Narrow the records check `check_id` (None: the first records check on `table` with a `match` and a first
    `fields` condition) to the id the writer looked up after running the reference (the created record whose
    `match` field the check names) and the `fields` conditions."""

    def breaks(spec: Spec) -> None:
        c = check(spec, check_id, "records", where=lambda c: c["rule"]["table"] == table and {match, fields[0]} <= {
            w["field"] for w in c["rule"]["where"]})
        wanted = cond(c, match)
        new = [(rid, rec) for rid, rec in _created(spec, table)
               if str(wanted["value"]).lower() in str(getattr(rec, match, "")).lower()]
        if not new:
            raise CorpusError(f"{spec['capability']}: no created {table} record matches {wanted}")
        c["rule"]["where"] = [{"field": "id", "op": "equals", "value": new[0][0]},
                              *(cond(c, f) for f in fields)]
    return breaks


def _movement_check(pinned: bool):  # type: ignore[no-untyped-def]
    """A check that the store side of the first transfer was logged as a movement: by its id (the defect) or by
    its item and delta (the twin)."""

    def edit(spec: Spec) -> None:
        moves = [(rid, m) for rid, m in _created(spec, "movements") if m.delta > 0]
        rid, move = moves[0]
        which = {"field": "id", "value": rid} if pinned else {"field": "item", "value": move.item}
        rule = {"kind": "records", "app": "inventory", "table": "movements",
                "where": [which, {"field": "delta", "value": move.delta}], "count_op": "equals", "count": 1}
        spec["checks"].append({"id": "movement-logged", "description": f"the store got {move.delta} of {move.item}",
                               "rule": rule})
    return edit


def _reversed(tool: str):  # type: ignore[no-untyped-def]
    """The reference with its calls of `tool` made in the opposite order (each in its own place)."""

    def witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
        ref = reference(spec)
        places = [(t, s) for t, turn in enumerate(ref) for s, step in enumerate(turn["steps"])
                  if (step.get("call") or {}).get("name") == tool]
        if len(places) < 2:
            raise CorpusError(f"{spec['capability']}: fewer than two {tool} calls to reorder")
        steps = [ref[t]["steps"][s] for t, s in places]
        for (t, s), step in zip(places, reversed(steps), strict=True):
            ref[t]["steps"][s] = step
        return ref
    return witness


DEFECTS = [
    Defect(CLASS, "todo-by-task-id", "synth:todo_track_mail_requests@1",
           "is failed for filing the same to-dos in another order: the check looks for the first to-do's due date "
           "on task-N, the id the reference's run gave it", breaks=_by_id("task-msg-224", "tasks", ("due",), "title"),
           witness=_reversed("todo_add_task"), witness_kind="honest", gate="mutations", code="created_id_pinned"),
    Defect(CLASS, "todo-by-task-id-2", "synth:todo_track_mail_requests@2",
           "is failed for filing the same to-dos in another order (the due date is read from a counted task id)",
           breaks=_by_id(None, "tasks", ("due",), "title"),
           witness=_reversed("todo_add_task"), witness_kind="honest", gate="mutations", code="created_id_pinned"),
    Defect(CLASS, "movement-by-id", "synth:inventory_restock_policy@1",
           "is failed for transferring the low items in another order: the movement log entry is looked up as mv-N",
           breaks=_movement_check(True), fix=_movement_check(False), witness=_reversed("inventory_transfer"),
           witness_kind="honest", gate="mutations", code="created_id_pinned"),
    Defect(CLASS, "team-post-by-id", "synth:mail_ticket_chat_coordination@2",
           "is failed for posting anything else in chat first (an 'on it' DM): the channel post is read as chat-N",
           breaks=_by_id("team-told", "messages", ("text",), "text"), gate="mutations", code="created_id_pinned"),
    Defect(CLASS, "booked-event-by-id", "synth:schedule_meeting_timezones@1",
           "is failed for holding a draft slot first: the booked meeting's start is read from evt-N",
           breaks=_by_id("booked-earliest-slot", "events", ("start",), "title"), gate="mutations",
           code="created_id_pinned"),
    Defect(CLASS, "audit-task-by-id", "synth:web_page_audit@1",
           "is failed for filing a to-do for each broken page in another order (the task is read as task-N)",
           breaks=_by_id(None, "tasks", ("title",), "title"), gate="mutations",
           code="created_id_pinned"),
]
