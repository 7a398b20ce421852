"""Solved by the clock: the live system has a job due at a set time (the reconciler's rollback, the SLA bot's
reassignment, the auto-remediation that pauses a failing job) that makes the very change the task asks for, and the
writer put it just after the time the reference's own calls take. The reference finishes first, the noop agent (whose
clock moves only by the turns' waits) never gets there, and no world-only reading of the turns' waits does either, so
the checks look exercised; yet an agent that only reads, for a minute longer than the reference works, gets full
credit from the scheduled job. The sound twin has the same job due at the same time, which runs only where the fix
is already made and sets just that."""

from __future__ import annotations

from typing import Any

from coworkenv.agents import OraclePolicy
from coworkenv.apps import TOOLS
from coworkenv.env import Env
from coworkenv.loading import parse_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import ReferenceTurn
from coworkenv.validate.mutations import is_write
from coworkenv.world._time import format_time
from tests.defects._core import CorpusError, Defect, Spec, WitnessKind, reference

CLASS = "solved_by_clock"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "leave the world to itself with the clock moved as far as an agent that only reads while the reference works "
    "(its calls' ticks in each turn, plus the pace slack): a state check that fails initially and holds there is "
    "done by a job due on the clock, not by the agent"
)
_LATER_TICKS = 2  # the job falls due this many calls after the reference's last
# Where the job fixes the service only (the reconciler), not the alert or ticket the agent also handles.
_FIRST_RECORD_ONLY = {"adapt_silent_change"}


def _end_clock(spec: Spec) -> int:
    """The world clock when the reference's episode ends."""
    parsed = parse_spec(spec)
    env = Env(parsed)
    run_episode(env, OraclePolicy(parsed, [ReferenceTurn.model_validate(t) for t in spec["reference"]]))
    return int(env.state.clock)


def _targets(spec: Spec) -> dict[tuple[str, str, str], dict[str, Any]]:
    """{(app, table, id): fields} of the records whose fields the `field` checks want (equals) and the initial world
    does not have."""
    found: dict[tuple[str, str, str], dict[str, Any]] = {}
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] != "field" or rule.get("op", "equals") != "equals" or c.get("safety"):
            continue
        t = rule["target"]
        rows = spec["world"]["apps"].get(t["app"], {}).get(t["table"], [])
        row = next((r for r in rows if r["id"] == t["id"]), None)
        if row is None:
            continue
        top, _, inner = t["field"].partition(".")
        fields = found.setdefault((t["app"], t["table"], t["id"]), {})
        if not inner and row.get(top) != rule["value"]:
            fields[top] = rule["value"]
        elif inner and isinstance(row.get(top), dict) and row[top].get(inner) != rule["value"]:
            fields[top] = {**fields.get(top, row[top]), inner: rule["value"]}  # the job writes the whole mapping
    found = {k: v for k, v in found.items() if v}
    if not found:
        raise CorpusError(f"{spec['capability']}: no field check wants a change of an initial record")
    return found


def _scheduled_job(spec: Spec) -> None:
    """A job due two calls after the reference's end that sets the checked records' fields as the checks want."""
    targets = _targets(spec)
    if spec["capability"] in _FIRST_RECORD_ONLY:
        targets = dict(list(targets.items())[:1])
    due = _end_clock(spec) + _LATER_TICKS * spec["world"]["tick_s"]
    spec["dynamics"]["rules"].append({
        "id": "scheduled-fix", "on": {"kind": "at", "time": format_time(due)}, "when": [], "delay_s": 0,
        "once": True, "effects": [{"kind": "update_record", "app": app, "table": table, "id": rid, "set": fields}
                                  for (app, table, rid), fields in targets.items()]})


def _scheduled_log(spec: Spec) -> None:
    """The twin: the same job, due at the same time, that runs only where the checked records already hold what the
    checks want, and sets just that (it changes nothing a check or a frame reads; a job logging its run would fail
    the frame of an agent slower than the reference, `frame_counts_job`)."""
    targets = _targets(spec)
    if spec["capability"] in _FIRST_RECORD_ONLY:
        targets = dict(list(targets.items())[:1])
    due = _end_clock(spec) + _LATER_TICKS * spec["world"]["tick_s"]
    spec["dynamics"]["rules"].append({
        "id": "scheduled-fix", "on": {"kind": "at", "time": format_time(due)}, "delay_s": 0, "once": True,
        "when": [{"kind": "field", "target": {"app": app, "table": table, "id": rid, "field": name}, "op": "equals",
                  "value": value} for (app, table, rid), fields in targets.items() for name, value in fields.items()],
        "effects": [{"kind": "update_record", "app": app, "table": table, "id": rid, "set": fields}
                    for (app, table, rid), fields in targets.items()]})


def _names(call: dict[str, Any], rid: str) -> bool:
    """Whether a call's arguments name the record (its id, or every part of a composite `sku@store` id)."""
    values = {str(v) for v in call["arguments"].values()}
    return rid in values or all(part in values for part in rid.split("@"))


def quiet_read(spec: Spec, ref: list[dict[str, Any]]) -> dict[str, Any]:
    """The reference's first read that changes nothing (no message read or marked)."""
    quiet = next((s for t in ref for s in t["steps"] if s.get("call") and s["call"]["name"] in TOOLS
                  and not is_write(s["call"]["name"]) and "read" not in s["call"]["name"]
                  and "mark" not in s["call"]["name"]), None)
    if quiet is None:
        raise CorpusError(f"{spec['capability']}: the reference makes no read")
    return quiet  # type: ignore[no-any-return]


def _reads_only(spec: Spec) -> list[dict[str, Any]]:
    """The agent that leaves the checked records alone: the reference without its writes to them (a call of their
    app naming them), each replaced by a read, and a few more reads before the last reply (it waits on the job)."""
    targets = list(_targets(spec))
    return reads_instead(spec, [(app, rid) for app, _, rid in (
        targets[:1] if spec["capability"] in _FIRST_RECORD_ONLY else targets)])


def reads_instead(spec: Spec, ids: list[tuple[str, str]], more: int = _LATER_TICKS + 1) -> list[dict[str, Any]]:
    """The reference with its writes naming a record of `ids` ((app, id)) each replaced by its first quiet read, and
    that read made `more` times before the last reply."""
    ref = reference(spec)
    quiet = quiet_read(spec, ref)
    dropped = 0
    for turn in ref:
        steps = []
        for s in turn["steps"]:
            c = s.get("call")
            if c and is_write(c["name"]) and any(TOOLS[c["name"]].app == app and _names(c, rid) for app, rid in ids):
                steps.append(quiet)
                dropped += 1
            else:
                steps.append(s)
        turn["steps"] = steps
    if not dropped:
        raise CorpusError(f"{spec['capability']}: no reference write names {ids}")
    last = ref[-1]["steps"]
    at = len(last) - 1 if last and last[-1].get("say") else len(last)
    last[at:at] = [quiet] * more
    return ref


def _defect(name: str, base: str, away: str, kind: WitnessKind = "cheat") -> Defect:
    """`kind` "score" where the task also checks the order of the agent's own fix (the job earns the state checks,
    the bulk of the score, not the order checks)."""
    return Defect(CLASS, name, base, away, breaks=_scheduled_job, fix=_scheduled_log, witness=_reads_only,
                  witness_kind=kind,
                  gate="noop", code="solved_by_world")


_TICKET = "gets the triage credit from the SLA bot that sets the ticket's fields a minute after the reference is done"
_JOB = "gets the credit for pausing the failing job from the scheduler's auto-remediation, due a minute later"
_STOCK = "gets the restock credit from the nightly inventory job, due a minute after the reference is done"
_DEPLOY = "gets the rollback credit from the reconciler's scheduled rollback, due a minute after the reference is done"
_MAIL = "gets the mail's triage credit from the mail rules job, due a minute after the reference is done"
_EVENT = "gets the reschedule credit from the calendar assistant's move, due a minute after the reference is done"

DEFECTS = [
    _defect("sla-bot-triage", "synth:ticket_triage_update@1", _TICKET),
    _defect("sla-bot-triage-2", "synth:ticket_triage_update@2", _TICKET),
    _defect("sla-bot-triage-3", "synth:ticket_triage_update@3", _TICKET),
    _defect("auto-remediation-pause", "synth:scheduler_pause_failing_jobs@1", _JOB),
    _defect("auto-remediation-pause-2", "synth:scheduler_pause_failing_jobs@2", _JOB),
    _defect("nightly-restock", "synth:inventory_restock_policy@1", _STOCK),
    _defect("nightly-restock-2", "synth:inventory_restock_policy@2", _STOCK),
    _defect("reconciler-rollback-3", "synth:incident_investigate_fix@3", _DEPLOY, "score"),
    _defect("reconciler-rollback-2", "synth:incident_investigate_fix@2", _DEPLOY, "score"),
    _defect("reconciler-after-silent-change", "synth:adapt_silent_change@1", _DEPLOY, "score"),
    _defect("reconciler-after-silent-change-2", "synth:adapt_silent_change@2", _DEPLOY, "score"),
    _defect("mail-rules-triage", "synth:inbox_triage_reply@1", _MAIL),
    _defect("mail-rules-triage-2", "synth:inbox_triage_reply@2", _MAIL),
    _defect("assistant-moves-meeting", "synth:reschedule_conflict@1", _EVENT, "score"),
    _defect("sla-bot-follow-up", "synth:delegate_and_follow_up@1", _TICKET, "score"),
    _defect("sla-bot-follow-up-2", "synth:delegate_and_follow_up@2", _TICKET, "score"),
    _defect("oncall-bot-handoff", "synth:oncall_handoff@1", _TICKET, "score"),
    _defect("reconciler-after-silent-change-3", "synth:adapt_silent_change@3", _DEPLOY, "score"),
    _defect("leave-bot-reassigns-4", "synth:adapt_announced_change@4", _TICKET, "score"),
    _defect("leave-bot-reassigns", "synth:adapt_announced_change@1", _TICKET, "score"),
]
