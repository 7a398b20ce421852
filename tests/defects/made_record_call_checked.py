"""A made record checked by the call that made it, not by the record: the check "the meeting is booked in my time
zone" written as `called calendar_create_event {timezone: Asia/Dubai}`, the check "the failure ticket is p3 for Wanda"
as `called tickets_create {priority: p3, assignee: u-wanda}`: the tool's input, not the world's output. An agent that
makes the record right and then edits it (`calendar_update_event` setting another time zone, `tickets_update` another
priority) passes the check, and the record ends wrong. Found by the outsider hunt (`benchmarks/hunt_mutants.py
--family d135`, kind `state_to_call_args`). The sound twin is the shipped spec: a records check on the made record."""

from __future__ import annotations

from typing import Any

from coworkenv.agents import OraclePolicy
from coworkenv.env import Env
from coworkenv.loading import parse_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import ReferenceTurn
from tests.defects._core import CorpusError, Defect, Spec, check, reference, world

CLASS = "made_record_call_checked"
DETECTION = (
    "for each write of the reference that makes a record and that a completion call check matches, and each argument "
    "that check names which the made record holds, play the reference with the record edited right after it by a "
    "write tool of its app taking its id and that field (another value a record of the table holds): a mutant that "
    "passes every required check shows no check reads the made record, only the call"
)


def _make_step(spec: Spec, tool: str) -> tuple[int, int, dict[str, Any]]:
    for t, turn in enumerate(spec["reference"]):
        for s, st in enumerate(turn["steps"]):
            if st.get("call") and st["call"]["name"] == tool:
                return t, s, st["call"]
    raise CorpusError(f"{spec['capability']}: the reference never calls {tool}")


def _as_call(check_id: str, tool: str):  # type: ignore[no-untyped-def]
    """The records check on the made record as a `called` check on the call that makes it: each condition whose
    value the call passes to the argument of the same name (`equals` as an argument, `contains` as a `where`)."""
    def edit(spec: Spec) -> None:
        c = check(spec, check_id)
        _, _, call = _make_step(spec, tool)
        args: dict[str, Any] = {}
        where = []
        for w in c["rule"]["where"]:
            given = call["arguments"].get(w["field"])
            if w.get("op", "equals") == "equals" and given == w["value"]:
                args[w["field"]] = w["value"]
            elif w.get("op") == "contains" and isinstance(given, str) and str(w["value"]).lower() in given.lower():
                where.append(w)
        if not args:
            raise CorpusError(f"{spec['capability']}: no condition of {check_id} is an argument of {tool}")
        c["rule"] = {"kind": "called", "call": {"tool": tool, "args": args, "where": where}}
    return edit


def _edited(tool: str, update: str, id_arg: str, field: str, app: str, table: str):  # type: ignore[no-untyped-def]
    """The reference with the made record's field set to another value the table holds, right after it is made."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        parsed = parse_spec(spec)
        env = Env(parsed)
        run_episode(env, OraclePolicy(parsed, [ReferenceTurn.model_validate(t) for t in spec["reference"]]))
        made = [a.result["id"] for a in env.audit if a.tool == tool and a.ok and isinstance(a.result, dict)]
        t, s, call = _make_step(spec, tool)
        held = call["arguments"].get(field)
        other = next((r[field] for r in world(spec, app, table) if isinstance(r.get(field), str)
                      and r[field] != held), None)
        if not made or other is None:
            raise CorpusError(f"{spec['capability']}: no made {table} record or no other {field}")
        ref = reference(spec)
        ref[t]["steps"].insert(s + 1, {"call": {"name": update, "arguments": {id_arg: made[0], field: other}}})
        return ref
    return witness


def _meeting(name: str, base: str) -> Defect:
    return Defect(CLASS, name, base, _ZONE, breaks=_as_call("in-my-timezone", "calendar_create_event"),
                  witness=_edited("calendar_create_event", "calendar_update_event", "event_id", "timezone",
                                  "calendar", "events"),
                  gate="mutations", code="made_edit_unchecked")


def _ticket(name: str, base: str) -> Defect:
    return Defect(CLASS, name, base, _PRIORITY, breaks=_as_call("failure-ticket", "tickets_create"),
                  witness=_edited("tickets_create", "tickets_update", "ticket_id", "priority", "tickets", "tickets"),
                  gate="mutations", code="made_edit_unchecked")


_ZONE = "books the meeting in the user's time zone, then sets another time zone on it: the check reads the create call"
_PRIORITY = "files the ticket at the asked priority, then changes it: the check reads the create call"

DEFECTS = [
    _meeting("meeting-zone-1", "synth:schedule_meeting_timezones@1"),
    _meeting("meeting-zone-2", "synth:schedule_meeting_timezones@2"),
    _meeting("moved-meeting-zone", "synth:adapt_announced_change@2"),
    _ticket("failure-ticket-1", "synth:feature_flag_rollout@1"),
    _ticket("failure-ticket-2", "synth:feature_flag_rollout@2"),
]
