"""Pace pinned: a check reads records the live world keeps adding while the agent works (an error stream logs a line
every two minutes until the fix), pinned to what the reference's pace left: "at most 9 ERROR lines of svc-kyc" (the
errors stopped). The world's clock moves with every call the agent
makes, so an honest agent that reads a few more logs, or polls once more, before fixing the service leaves more lines
and fails; nothing in the task asks it to be that quick. The sound twin is the spec without that check (the state
checks on the fix stay)."""

from __future__ import annotations

from typing import Any

from coworkenv.agents import OraclePolicy
from coworkenv.env import Env
from coworkenv.loading import parse_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import ReferenceTurn
from tests.defects._core import CorpusError, Defect, Spec, reference

CLASS = "pace_pinned"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "where a stream adds records while the agent works, replay the reference with a read repeated at the start of a "
    "turn as often as the slowest stream needs to add a record; a check the reference passes that then fails pins "
    "the reference's pace"
)


def _stream(spec: Spec) -> dict[str, Any]:
    streams = spec["dynamics"]["streams"]
    if not streams:
        raise CorpusError(f"{spec['capability']}: no stream adds records while the agent works")
    return streams[0]  # type: ignore[no-any-return]


def _lines(spec: Spec) -> list[dict[str, Any]]:
    """The stream's lines in the final state of the reference's episode."""
    parsed = parse_spec(spec)
    env = Env(parsed)
    run_episode(env, OraclePolicy(parsed, [ReferenceTurn.model_validate(t) for t in spec["reference"]]))
    stream = _stream(spec)
    return [r.model_dump() for r in env.state.table("logs", "lines")
            if r.service == stream["service"] and r.level == stream["level"]]


def _at_most_seen(spec: Spec) -> None:
    """'The errors stopped': at most as many ERROR lines of the service as the reference's episode leaves."""
    stream = _stream(spec)
    seen = len(_lines(spec))
    spec["checks"].append({"id": "errors-stopped", "description": f"no more {stream['level']} lines of "
                           f"{stream['service']} after the fix", "rule": {
                               "kind": "records", "app": "logs", "table": "lines",
                               "where": [{"field": "service", "value": stream["service"]},
                                         {"field": "level", "value": stream["level"]}],
                               "count_op": "lte", "count": seen}})


def _slower(spec: Spec) -> list[dict[str, Any]]:
    """The honest agent that reads the logs a few more times before it acts in each turn (ten calls: five clock
    minutes)."""
    ref = reference(spec)
    reads = [st for turn in ref for st in turn["steps"] if st.get("call") and st["call"]["name"].startswith(("logs_", "services_"))
             and "rollback" not in st["call"]["name"] and "deploy" not in st["call"]["name"]
             and "restart" not in st["call"]["name"] and "set_flag" not in st["call"]["name"]
             and "update" not in st["call"]["name"]]
    if not reads:
        raise CorpusError(f"{spec['capability']}: the reference reads no logs or services")
    for turn in ref:
        turn["steps"] = [reads[0]] * 10 + turn["steps"]
    return ref


DEFECTS = [
    *(Defect(CLASS, f"errors-stopped-{seed}", f"synth:incident_investigate_fix@{seed}",
             "is failed for reading the logs a few more times before fixing: the check wants no more error lines "
             "than the reference's pace left",
             breaks=_at_most_seen, witness=_slower, witness_kind="honest") for seed in (1, 2, 5, 9, 10)),
    *(Defect(CLASS, f"silent-change-errors-stopped-{seed}", f"synth:adapt_silent_change@{seed}",
             "is failed for looking around before fixing the silent change: the check wants no more error lines than "
             "the reference's pace left",
             breaks=_at_most_seen, witness=_slower, witness_kind="honest") for seed in (1, 2, 3, 4, 5)),
    Defect(CLASS, "checkout-errors-stopped", "example:incident_rollback",
           "is failed for reading the logs a few more times before rolling back: the check wants at most the error "
           "lines the reference's pace left",
           breaks=_at_most_seen, witness=_slower, witness_kind="honest"),
]
