"""Delay pinned: the agent's own fix takes effect a while after its call (the ticket system queues the update for its
workflow engine, the scheduler applies a pause at its next sync, the reconciler rolls the deploy out, the mail
server's rules run later), and the writer set that delay so the change lands during the reference's later reads. The
record shows its old values until then. The reference, which looks around after its fix, passes; an honest agent that
fixes the record and replies without looking again ends the episode before the change lands and fails, though it did
the same work: the verdict depends on the agent's pace. The noop agent and the mutants that drop the fix fail as they
should, and the slower agents the gates play pass, so nothing looked wrong. The sound twin applies the same queued
change within the call's own tick."""

from __future__ import annotations

from typing import Any

from coworkenv.agents import OraclePolicy
from coworkenv.apps import TOOLS
from coworkenv.checks import call_matches
from coworkenv.env import Env
from coworkenv.loading import parse_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import ReferenceTurn
from coworkenv.validate._reads import seen_reads
from coworkenv.validate.mutations import is_write
from coworkenv.world import parse_time
from tests.defects._core import CorpusError, Defect, Spec, reference
from tests.defects.solved_by_clock import _names, _targets
from tests.defects.undone_by_clock import _initial

CLASS = "delay_pinned"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "where an action rule's effect is delayed, replay the reference without the quiet reads after the call that "
    "starts it (an agent that acts and replies): a check the reference passes that then fails waits on the delay, "
    "pinned to the reference's pace"
)


def _fix_call(spec: Spec) -> tuple[int, int, str, str, str, dict[str, Any]]:
    """(turn, step, app, table, id, call) of the reference's first write naming a record a field check wants
    changed."""
    targets = _targets(spec)
    for t, turn in enumerate(spec["reference"]):
        for s, step in enumerate(turn["steps"]):
            c = step.get("call")
            if not c or not is_write(c["name"]):
                continue
            for app, table, rid in targets:
                if TOOLS[c["name"]].app == app and _names(c, rid):
                    return t, s, app, table, rid, c
    raise CorpusError(f"{spec['capability']}: no reference write names a checked record")


def _clock_at(spec: Spec, call: dict[str, Any]) -> tuple[int, int]:
    """(the clock when the reference makes `call`, the clock at its episode's end)."""
    parsed = parse_spec(spec)
    env = Env(parsed)
    run_episode(env, OraclePolicy(parsed, [ReferenceTurn.model_validate(t) for t in spec["reference"]]))
    at = next((e.time for e in env.audit if e.tool == call["name"] and e.args == call["arguments"]), None)
    if at is None:
        raise CorpusError(f"{spec['capability']}: the reference's {call['name']} call is not in its audit")
    return parse_time(at), int(env.state.clock)


def _queued(spec: Spec, lands_at_end: bool) -> None:
    """The fix's call queues its change: the record keeps its old fields, and the change lands at the reference's
    end (`lands_at_end`) or within the call's own tick (the twin)."""
    _, _, app, table, rid, call = _fix_call(spec)
    wanted = _targets(spec)[(app, table, rid)]
    old = _initial(spec)[(app, table, rid)]
    at, end = _clock_at(spec, call)
    tick = spec["world"]["tick_s"]
    if end - at < 2 * tick:
        raise CorpusError(f"{spec['capability']}: the reference makes no call after its fix")
    _replies_at_once(spec)  # (CorpusError where no quiet read follows the fix)
    delay = end - at if lands_at_end else tick
    matcher = {"tool": call["name"], "args": call["arguments"]}
    spec["dynamics"]["rules"] += [
        {"id": "change-queued", "on": {"kind": "action", "call": matcher}, "when": [], "delay_s": 0, "once": True,
         "effects": [{"kind": "update_record", "app": app, "table": table, "id": rid, "set": old}]},
        {"id": "change-applied", "on": {"kind": "action", "call": matcher}, "when": [], "delay_s": delay,
         "once": True, "effects": [{"kind": "update_record", "app": app, "table": table, "id": rid, "set": wanted}]}]


def _late(spec: Spec) -> None:
    _queued(spec, lands_at_end=True)


def _prompt(spec: Spec) -> None:
    _queued(spec, lands_at_end=False)


def _replies_at_once(spec: Spec) -> list[dict[str, Any]]:
    """The honest agent that fixes and replies: the reference without the quiet reads after the fix that no check
    sees."""
    t0, s0, *_ = _fix_call(spec)
    seen = seen_reads(parse_spec(spec))
    if seen is None:
        raise CorpusError(f"{spec['capability']}: a check may read every call")
    ref = reference(spec)
    dropped = 0
    for t, turn in enumerate(ref):
        kept = []
        for s, step in enumerate(turn["steps"]):
            c = step.get("call")
            if (t, s) > (t0, s0) and c and c["name"] in TOOLS and not is_write(c["name"]) and not any(
                    call_matches(m, c["name"], c["arguments"]) for m in seen):
                dropped += 1
                continue
            kept.append(step)
        turn["steps"] = kept
    if not dropped:
        raise CorpusError(f"{spec['capability']}: the reference makes no quiet read after its fix")
    return ref


def _defect(name: str, base: str, away: str) -> Defect:
    return Defect(CLASS, name, f"synth:{base}", away, breaks=_late, fix=_prompt, witness=_replies_at_once,
                  witness_kind="honest", gate="mutations", code="pace_pinned")


_TICKET = "is failed for replying right after its update: the workflow engine applies it only at the reference's end"
_JOB = "is failed for replying right after the pause: the scheduler applies it at its sync, timed to the reference's end"
_DEPLOY = "is failed for replying right after the fix: the rollout lands only at the reference's end"
_DATA = "is failed for replying right after the correction: the data store applies it only at the reference's end"
_MAIL = "is failed for replying right after filing the mail: the mail server's rules run at the reference's end"

_CASES = {
    _TICKET: [("workflow-queues-triage-2", "ticket_triage_update@2"), ("workflow-queues-triage-3", "ticket_triage_update@3"), ("workflow-queues-triage-9", "ticket_triage_update@9"), ("workflow-queues-triage-10", "ticket_triage_update@10")],
    _JOB: [("scheduler-syncs-pause-2", "scheduler_pause_failing_jobs@2"), ("scheduler-syncs-pause-3", "scheduler_pause_failing_jobs@3"), ("scheduler-syncs-pause-4", "scheduler_pause_failing_jobs@4")],
    _DEPLOY: [("flag-rollout-lands-late", "incident_investigate_fix@1"), ("flag-rollout-lands-late-2", "incident_investigate_fix@2"), ("config-rollback-lands-late", "incident_investigate_fix@7"), ("rollout-lands-late-9", "incident_investigate_fix@9")],
    _DATA: [("data-store-queues-correction-4", "correct_bad_data@4"), ("data-store-queues-correction-5", "correct_bad_data@5")],
    _MAIL: [("mail-rules-run-late-3", "inbox_triage_reply@3"), ("mail-rules-run-late-5", "inbox_triage_reply@5"), ("mail-rules-run-late-6", "inbox_triage_reply@6")],
}
DEFECTS = [_defect(name, base, away) for away, cases in _CASES.items() for name, base in cases]
