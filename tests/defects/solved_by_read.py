"""Solved by a read: the live system has a job that a mere look starts (opening the ticket queue wakes the SLA bot,
listing the jobs wakes the scheduler's auto-remediation, a services read starts the reconciler's drift check) and
that, a delay later, makes the very change the task asks for; the writer set the delay so the job lands just after
the reference is done. The reference finishes first and the noop agent never reads, so nothing fires; the
world-left-to-itself reading fires only rules due on the clock, and a mutant that drops the fix ends before the job
lands. Yet an agent that only reads, for a minute longer than the reference works, gets the credit from the job its
own first look started. The sound twin has the same job, started by the same read, which runs only where the fix is already made when
the agent looks (and sets just that)."""

from __future__ import annotations

from coworkenv.agents import OraclePolicy
from coworkenv.env import Env
from coworkenv.loading import parse_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import ReferenceTurn
from coworkenv.world import parse_time
from tests.defects._core import CorpusError, Defect, Spec, WitnessKind, reference
from tests.defects.solved_by_clock import _FIRST_RECORD_ONLY, _LATER_TICKS, _reads_only, _targets, quiet_read

CLASS = "solved_by_read"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "where an action rule answers a read, play an agent that only reads (the reference without its writes, the "
    "pace slack's reads more in one turn): a state check that fails initially and holds there is done by a job "
    "the agent's look started, not by the agent"
)


def read_clock(spec: Spec, tool: str) -> tuple[int, int]:
    """(the clock at the reference's first `tool` call, the clock at its episode's end)."""
    parsed = parse_spec(spec)
    env = Env(parsed)
    run_episode(env, OraclePolicy(parsed, [ReferenceTurn.model_validate(t) for t in spec["reference"]]))
    first = next((e.time for e in env.audit if e.tool == tool and e.ok), None)
    if first is None:
        raise CorpusError(f"{spec['capability']}: the reference never calls {tool}")
    return parse_time(first), int(env.state.clock)


def _read_job(spec: Spec, keeps: bool) -> None:
    """A job the reference's first quiet read starts, landing two calls after the reference's end, that sets the
    checked records' fields as the checks want; where `keeps`, only where they already hold that."""
    tool = quiet_read(spec, reference(spec))["call"]["name"]
    first, end = read_clock(spec, tool)
    targets = _targets(spec)
    if spec["capability"] in _FIRST_RECORD_ONLY:
        targets = dict(list(targets.items())[:1])
    when = [{"kind": "field", "target": {"app": app, "table": table, "id": rid, "field": name}, "op": "equals",
             "value": value} for (app, table, rid), fields in targets.items() for name, value in fields.items()]
    spec["dynamics"]["rules"].append({
        "id": "look-starts-job", "on": {"kind": "action", "call": {"tool": tool}}, "when": when if keeps else [],
        "delay_s": end - first + _LATER_TICKS * spec["world"]["tick_s"], "once": True,
        "effects": [{"kind": "update_record", "app": app, "table": table, "id": rid, "set": fields}
                    for (app, table, rid), fields in targets.items()]})


def _fixing_job(spec: Spec) -> None:
    _read_job(spec, keeps=False)


def _keeping_job(spec: Spec) -> None:
    """The twin: the same job, started by the same read, which runs only where the fix is already made (the check is
    checked at the read) and sets just that."""
    _read_job(spec, keeps=True)


def _defect(name: str, base: str, away: str, kind: WitnessKind = "cheat") -> Defect:
    return Defect(CLASS, name, base, away, breaks=_fixing_job, fix=_keeping_job, witness=_reads_only,
                  witness_kind=kind, gate="noop", code="solved_by_world")


_TICKET = "gets the triage credit from the SLA bot its first look at the queue woke, which lands a minute after the reference"
_JOB = "gets the pause credit from the auto-remediation its first look at the jobs started, landing a minute later"
_STOCK = "gets the restock credit from the stock sync its first stock read started, landing a minute later"
_DEPLOY = "gets the rollback credit from the drift check its first services read started, landing a minute later"
_MAIL = "gets the triage credit from the mail rules its first inbox read ran, landing a minute later"
_EVENT = "gets the reschedule credit from the assistant its first calendar read woke, landing a minute later"

_CASES: dict[tuple[str, WitnessKind], list[tuple[str, str]]] = {
    (_TICKET, "cheat"): [("queue-look-wakes-sla-bot", "ticket_triage_update@1"), ("queue-look-wakes-sla-bot-2", "ticket_triage_update@2")],
    (_TICKET, "score"): [("queue-look-wakes-follow-up", "delegate_and_follow_up@1"), ("queue-look-wakes-handoff", "oncall_handoff@1"), ("queue-look-wakes-leave-bot", "adapt_announced_change@1")],
    (_JOB, "cheat"): [("jobs-look-starts-remediation", "scheduler_pause_failing_jobs@1"), ("jobs-look-starts-remediation-2", "scheduler_pause_failing_jobs@2")],
    (_STOCK, "cheat"): [("stock-read-starts-sync", "inventory_restock_policy@1"), ("stock-read-starts-sync-2", "inventory_restock_policy@2")],
    (_DEPLOY, "score"): [("services-read-starts-drift-check", "incident_investigate_fix@3"), ("services-read-after-silent-change", "adapt_silent_change@1")],
    (_MAIL, "cheat"): [("inbox-read-runs-rules", "inbox_triage_reply@1"), ("inbox-read-runs-rules-2", "inbox_triage_reply@2")],
    (_EVENT, "score"): [("calendar-read-wakes-assistant", "reschedule_conflict@1")],
}
DEFECTS = [_defect(name, f"synth:{base}", away, kind) for (away, kind), cases in _CASES.items() for name, base in cases]
