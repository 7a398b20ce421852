"""Reply-only checks: the task changes the world, but its checks only read what the agent says (the ids it
names), so an agent that claims the work without doing it passes."""

from __future__ import annotations

from tests.defects._core import Defect, Spec, noop_reference

CLASS = "reply_only"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "no required non-guard check reads the world or the audit; the task's writes are judged by the reply alone"
)
_GUARDS = ("frame", "forbidden")


def _reply_ids(spec: Spec) -> list[str]:
    """The ids of the records the field checks target (what the reply-only checks ask the agent to name)."""
    ids = []
    for c in spec["checks"]:
        if c["rule"]["kind"] == "field" and c["rule"]["target"]["id"] not in ids:
            ids.append(c["rule"]["target"]["id"])
    return ids


def _only_reply(spec: Spec) -> None:
    """Every field check becomes 'the reply names the record'; other non-guard checks are dropped."""
    out = []
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] in _GUARDS or c.get("safety"):
            out.append(c)
        elif rule["kind"] == "field":
            out.append({"id": c["id"], "description": c.get("description", ""), "weight": c.get("weight", 1.0),
                        "rule": {"kind": "reply_states", "source": {**rule["target"], "field": "id"}}})
    ids = _reply_ids(spec)
    spec["checks"] = out
    last = spec["reference"][-1]["steps"]
    said = next((s for s in reversed(last) if s.get("say")), None)
    if said is None:
        last.append({"say": "Done."})
        said = last[-1]
    said["say"] += " (" + ", ".join(ids) + ")"


def _claims(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    ref = noop_reference(spec)
    ref[-1]["steps"] = [{"say": "Done: " + ", ".join(_reply_ids(spec)) + "."}]
    return ref


def _defect(name: str, base: str, gets_away_with: str) -> Defect:
    return Defect(CLASS, name, base, gets_away_with, breaks=_only_reply, witness=_claims,
                  gate="reads_state", code="reply_only")


DEFECTS = [
    _defect("triage-claims", "synth:ticket_triage_update@1", "names the three tickets without triaging any"),
    _defect("handoff-claims", "synth:oncall_handoff@1", "names the tickets without handing them over"),
    _defect("incident-claims", "synth:incident_investigate_fix@1", "names the service without fixing it"),
    _defect("reschedule-claims", "synth:reschedule_conflict@1", "names the meeting without moving it"),
    _defect("inbox-claims", "synth:inbox_triage_reply@1", "names the mails without archiving them"),
    _defect("pause-claims", "synth:scheduler_pause_failing_jobs@1", "names the jobs without pausing them"),
    _defect("restock-claims", "synth:inventory_restock_policy@1", "names the items without moving stock"),
]

# Outsider defects (session 19): capabilities with few cases, checked by what the reply names alone.
DEFECTS += [
    _defect("handover-claims", "synth:adapt_announced_change@1", "names the ticket without handing it over"),
    _defect("delegation-claims", "synth:delegate_and_follow_up@2", "names the ticket without delegating it"),
    _defect("rollout-claims", "synth:feature_flag_rollout@2", "names the service without rolling the flag out"),
]
