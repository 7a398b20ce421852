"""A turn's answer judged by a state the task itself sets later: the user asks in the first turn where a record
stands (the ticket's status or assignee, the service's config version) and asks in the next turn
for the change that moves it. The writer checks the first reply with `reply_states` bound to turn 0, which reads the
final state, after the agent's own turn-1 write: the honest answer, true when given, fails; only a reference that
knew the next request passes. The sound twin wants the value of its own turn as a literal."""

from __future__ import annotations

from typing import Any

from coworkenv import Env
from coworkenv.agents import OraclePolicy
from coworkenv.loading import parse_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import ReferenceTurn
from tests.defects._core import CorpusError, Defect, Spec, record, reference
from tests.defects.later_state_read import asked_at_turn_0

CLASS = "later_state_own_write"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "replay the reference up to the end of the turn a reply check judges and compare the field it reads with the "
    "final state: the reference's own later write changed it, so the honest answer of that turn fails"
)

# Write tools of a later turn: the record they change (app, table, argument naming it) and, for each field turn 0 can
# ask about, the argument that sets it (None: the tool sets it itself, as a new config version's number).
_WRITES = {
    "tickets_update": ("tickets", "tickets", "ticket_id", {"status": "status", "assignee": "assignee",
                                                           "priority": "priority"}),
    "services_deploy": ("services", "services", "service", {"deployed_version": "version"}),
    "services_rollback_config": ("services", "services", "service", {"config_version": "to_version"}),
    "services_update_config": ("services", "services", "service", {"config_version": None}),
}


def _final(spec: Spec, app: str, table: str, rid: str, field: str) -> Any:
    """The field's value once the whole reference has been played."""
    parsed = parse_spec(spec)
    env = Env(parsed)
    run_episode(env, OraclePolicy(parsed, [ReferenceTurn.model_validate(t) for t in spec["reference"]]))
    return next(r for r in env.state.to_wire()["apps"][app][table] if r["id"] == rid)[field]


def _target(spec: Spec) -> tuple[str, str, str, str, Any, Any]:
    """(app, table, id, field, its value when turn 0 ends, its final value): the first turn-1 write of `_WRITES`."""
    for step in spec["reference"][1]["steps"]:
        call = step.get("call")
        if not call or call["name"] not in _WRITES:
            continue
        app, table, arg, fields = _WRITES[call["name"]]
        rid = call["arguments"][arg]
        field, setter = next(((f, a) for f, a in fields.items() if a is None or a in call["arguments"]),
                             next(iter(fields.items())))
        earlier = [s["call"]["arguments"] for s in spec["reference"][0]["steps"]
                   if s.get("call") and s["call"]["arguments"].get(arg) == rid
                   and (setter in s["call"]["arguments"] if setter else s["call"]["name"] == call["name"])]
        if earlier and setter is None:
            continue  # turn 0 made its own new version: its number is not in the reference
        if earlier:
            now = earlier[-1][setter]
        elif any(r["id"] == rid for r in spec["world"]["apps"][app][table]):
            now = record(spec, app, table, rid)[field]
        else:
            continue
        later = _final(spec, app, table, rid, field) if setter is None else call["arguments"].get(setter)
        if later is not None and later != now:
            return app, table, rid, field, now, later
    raise CorpusError(f"{spec['capability']}: no turn-1 write changes a field turn 0 can ask about")


def _asked(defect: bool):  # type: ignore[no-untyped-def]
    """Turn 0 asks where the record stands; its reply states the final value (defect) or its own turn's (twin)."""

    def edit(spec: Spec) -> None:
        app, table, rid, field, now, later = _target(spec)
        question = f"Also, what is the current {field.replace('_', ' ')} of {rid}?"
        asked_at_turn_0(spec, (app, table, rid, field), question, now, later, defect)
    return edit


def _pair(name: str, base: str, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_asked(True), fix=_asked(False), witness=reference,
                  witness_kind="honest", gate="reads_state", code="reads_later_state")


_TICKET = "fails the agent that states the ticket as it stood in turn 0 (its own turn-1 update changes it)"
_CONFIG = ("fails the agent that states the service's config version as it stood in turn 0 (its own turn-1 config "
           "change makes a new one)")

DEFECTS = [
    _pair("ticket-before-own-update", "synth:delegate_and_follow_up@1", _TICKET),
    _pair("ticket-before-own-update-3", "synth:delegate_and_follow_up@3", _TICKET),
    _pair("ticket-before-own-update-4", "synth:delegate_and_follow_up@4", _TICKET),
    _pair("ticket-before-own-update-6", "synth:delegate_and_follow_up@6", _TICKET),
    _pair("ticket-before-own-update-leave-6", "synth:adapt_announced_change@6", _TICKET),
    _pair("config-version-before-own-change", "synth:access_request_approval@1", _CONFIG),
    _pair("config-version-before-own-change-4", "synth:access_request_approval@4", _CONFIG),
]
