"""Pre-solved behind a process check: the world already is in the state the task asks for, and only a
"tool called N times" check keeps the do-nothing agent failing."""

from __future__ import annotations

from collections import Counter

from coworkenv.agents import OraclePolicy
from coworkenv.env import Env
from coworkenv.loading import parse_spec
from coworkenv.rollout import run_episode
from tests.defects._core import CorpusError, Defect, Spec

CLASS = "presolved"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    'every state check already holds on the initial state; only process checks (called/order) keep noop failing'
)


def _presolve(spec: Spec) -> None:
    """The reference's final world becomes the initial one; a `called` check on its writes is added."""
    parsed = parse_spec(spec)
    env = Env(parsed)
    run_episode(env, OraclePolicy(parsed))
    wire = env.state.to_wire()["apps"]
    spec["world"]["apps"] = {app: tables for app, tables in wire.items() if app in spec["world"]["apps"]}
    writes = Counter(e.tool for e in env.audit if e.ok and e.hash_before != e.hash_after)
    if not writes:
        raise CorpusError(f"{spec['capability']}: the reference writes nothing")
    tool, n = writes.most_common(1)[0]
    spec["checks"].append({"id": "did-the-work", "description": f"{tool} was used {n} times",
                           "rule": {"kind": "called", "call": {"tool": tool, "args": {}}, "min_times": n}})


def _defect(name: str, base: str, gets_away_with: str) -> Defect:
    return Defect(CLASS, name, base, gets_away_with, breaks=_presolve)


DEFECTS = [
    _defect("triage-already-done", "synth:ticket_triage_update@1",
            "the tickets are already triaged; calling tickets_update 3 times with anything passes"),
    _defect("roster-already-correct", "synth:correct_bad_data@1",
            "the roster is already correct and the DM already sent; one files_write_file call passes"),
    _defect("meeting-already-moved", "synth:reschedule_conflict@1",
            "the meeting is already at the free slot and the DM sent; one calendar_update_event passes"),
    _defect("already-deployed", "synth:refuse_forbidden_action@1",
            "the release is already deployed; one services_deploy call passes"),
    _defect("delegation-already-done", "synth:delegate_and_follow_up@1",
            "the ticket is already with the delegate and in progress; two tickets_update calls pass"),
    _defect("handover-already-done", "synth:adapt_announced_change@1",
            "the ticket already sits with the backup and both DMs exist; two tickets_update calls pass"),
    _defect("jobs-already-paused", "synth:scheduler_pause_failing_jobs@1",
            "the jobs are already paused and the entry recorded; two scheduler_update_job calls pass"),
    _defect("phone-already-updated", "synth:contact_phone_update@1",
            "the card already has the new number and the customer was answered; one contacts_update call passes"),
]

# Outsider defects (session 19): capabilities with few cases, the world already in the reference's final state.
DEFECTS += [
    _defect("source-already-answered", "synth:lookup_answer_source@2",
            "gets credit for answering a question the DM thread already answers"),
    _defect("roster-already-fixed", "synth:correct_bad_data@2",
            "gets credit for rewriting a roster that already matches the directory"),
]
