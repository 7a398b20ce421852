"""Stamp pinned: the writer copied the record the reference's run left (the ticket it filed on the failing rollout,
the mail asking the manager, the message to the delegate) into the check, stamp and all: the records check wants
`created_at` (`sent_at`, `ts`) equal to the very second the reference's call was made, where the tool stamps the
record with the world's clock. Every call moves that clock a tick, so an honest agent that reads once or twice more
before it acts files the same ticket a minute later and fails; only an agent that keeps the reference's pace passes.
Main replayed the reference at another pace only where a log stream or a job runs on the clock, so in a world without
one the pinned stamp went unseen. The sound twin is the shipped check (a lower bound on the stamp, or none).

Caught by the pace replay (`_pace`, `STAMP_READS`): where no stream sets the pace, each turn with a write is also
replayed with a quiet read made twice at its start; a check the reference passes that then fails is `pace_pinned`."""

from __future__ import annotations

from typing import Any

from coworkenv.agents import OraclePolicy
from coworkenv.checks import compare
from coworkenv.env import Env
from coworkenv.loading import parse_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import ReferenceTurn
from tests.defects._core import CorpusError, Defect, Spec, reference
from tests.defects.solved_by_clock import quiet_read

CLASS = "stamp_pinned"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "replay the reference with a quiet read made twice at the start of each turn with a write, also where no stream "
    "or job sets the pace: a check the reference passes that then fails wants the time its calls were stamped at"
)
_STAMPS = ("created_at", "sent_at", "ts", "at", "updated_at")


def _pin(spec: Spec) -> None:
    """The first records check (not a guard) on one record the reference leaves with a stamp, the stamp pinned."""
    parsed = parse_spec(spec)
    env = Env(parsed)
    run_episode(env, OraclePolicy(parsed, [ReferenceTurn.model_validate(t) for t in spec["reference"]]))
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] != "records" or c.get("role") == "guard" or rule.get("count", 0) < 1:
            continue
        rows = [r.model_dump() for r in env.state.table(rule["app"], rule["table"])]
        hits = [r for r in rows if all(compare(r.get(w["field"]), w.get("op", "equals"), w["value"])
                                       for w in rule["where"] if "." not in w["field"])]
        stamps = [f for f in _STAMPS if len(hits) == 1 and hits[0].get(f)]
        if stamps:
            rule["where"] = [w for w in rule["where"] if w["field"] not in _STAMPS] + [
                {"field": stamps[0], "op": "equals", "value": hits[0][stamps[0]]}]
            return
    raise CorpusError(f"{spec['capability']}: no records check finds one stamped record")


def _slower(spec: Spec) -> list[dict[str, Any]]:
    """The honest agent that reads twice more before it starts."""
    ref = reference(spec)
    ref[0]["steps"] = [quiet_read(spec, ref)] * 2 + ref[0]["steps"]
    return ref


def _defect(name: str, base: str, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_pin, witness=_slower, witness_kind="honest", gate="mutations",
                  code="pace_pinned")


_TICKET = "is judged by the second the reference filed the ticket, so an honest agent a minute slower fails"
_MAIL = "is judged by the second the reference sent the message, so an honest agent a minute slower fails"

DEFECTS = [
    _defect("failed-rollout-ticket", "synth:feature_flag_rollout@1", _TICKET),
    _defect("failed-rollout-ticket-2", "synth:feature_flag_rollout@2", _TICKET),
    _defect("failed-rollout-ticket-3", "synth:feature_flag_rollout@3", _TICKET),
    _defect("customer-ticket", "synth:mail_ticket_chat_coordination@1", _TICKET),
    _defect("customer-ticket-2", "synth:mail_ticket_chat_coordination@2", _TICKET),
    _defect("manager-asked", "synth:access_request_approval@1", _MAIL),
    _defect("manager-asked-2", "synth:access_request_approval@2", _MAIL),
    _defect("delegate-asked", "synth:delegate_and_follow_up@1", _MAIL),
]
