"""An episode fails with full marks: the check it fails costs nothing in the score.

The pass is "every required check passes"; the score (the reward an agent is trained on) is the weighted share of
the completion checks, less what failed guards cost. An author who marks a part of the task required but gives it
weight 0 ("it must happen, it earns nothing"), or who picks `guard_failure: subtract` with a `guard_penalty` of 0,
writes a spec where an agent that skips that part, or does the harm a guard forbids, scores exactly what the
reference scores.
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, reference, untouched_id, with_call, without

CLASS = "failure_unscored"
DETECTION = (
    "from the score's formula, what each check's failure costs: a required completion check of weight 0 (with no "
    "pass_threshold) or any non-safety guard under guard_failure 'subtract' with guard_penalty 0 costs nothing, so "
    "an episode failing it keeps full marks"
)
GATE, CODE = "references", "failure_unscored"


def _weightless(pick: Any):  # type: ignore[no-untyped-def]
    """The check `pick(spec)` names, kept required, with weight 0."""
    def breaks(spec: Spec) -> None:
        pick(spec)["weight"] = 0.0
    return breaks


def _by_id(check_id: str):  # type: ignore[no-untyped-def]
    return lambda spec: check(spec, check_id)


def _first_field(field: str):  # type: ignore[no-untyped-def]
    """The first completion field check on a record's `field` (the first job paused, the first ticket assigned)."""
    return lambda spec: check(spec, kind="field", where=lambda c: c["role"] == "completion"
                              and c["rule"]["target"]["field"] == field)


def _target(field: str) -> Any:
    return lambda spec: _first_field(field)(spec)["rule"]["target"]["id"]


def _skip(tool: str, **args: Any):  # type: ignore[no-untyped-def]
    """The reference without its calls of `tool` (with `args`; a callable value is read from the spec)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        return without(spec, tool, **{k: v(spec) if callable(v) else v for k, v in args.items()})
    return witness


def _skip_to(check_id: str, tool: str, arg: str):  # type: ignore[no-untyped-def]
    """The reference without its calls of `tool` whose `arg` (a list) holds what the check's `contains` condition on
    that field wants (the mail to the requester, not the one to the manager)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        wanted = next(w["value"] for w in check(spec, check_id, "records")["rule"]["where"]
                      if w["field"] == arg and w.get("op") == "contains")
        ref = reference(spec)
        dropped = 0
        for turn in ref:
            kept = [st for st in turn["steps"] if not (st.get("call") and st["call"]["name"] == tool
                                                       and wanted in st["call"]["arguments"].get(arg, []))]
            dropped += len(turn["steps"]) - len(kept)
            turn["steps"] = kept
        if not dropped:
            raise CorpusError(f"{spec['capability']}: the reference never calls {tool} with {arg} {wanted!r}")
        return ref
    return witness


def _weight0(name: str, base: str, pick: Any, skip: Any, what: str) -> Defect:
    return Defect(CLASS, name, base, f"{what}, and still scores full marks: the required check has weight 0",
                  breaks=_weightless(pick), witness=skip, witness_kind="unscored", gate=GATE, code=CODE)


def _no_penalty(spec: Spec) -> None:
    spec["scoring"].update(guard_failure="subtract", guard_penalty=0.0)


def _harm(tool: str, args: Any):  # type: ignore[no-untyped-def]
    def witness(spec: Spec) -> list[dict[str, Any]]:
        return with_call(spec, tool, args(spec))
    return witness


def _penalty0(name: str, base: str, harm: Any, what: str) -> Defect:
    return Defect(CLASS, name, base, f"{what}, and still scores full marks: a failed guard subtracts 0",
                  breaks=_no_penalty, witness=harm, witness_kind="unscored", gate=GATE, code=CODE)


def _staging_back_on(spec: Spec) -> dict[str, Any]:
    target = check(spec, "staging-rolled-back", "field")["rule"]["target"]
    return {"service": target["id"], "flag": target["field"].split(".", 1)[1], "enabled": True}


def _kept_flag_on(spec: Spec) -> dict[str, Any]:
    rule = check(spec, "other-flags-kept", "records")["rule"]
    service = next(w["value"] for w in rule["where"] if w["field"] == "id")
    flag = next(w for w in rule["where"] if w["field"].startswith("flags."))
    return {"service": service, "flag": flag["field"].split(".", 1)[1], "enabled": not flag["value"]}


def _bystander_reassigned(spec: Spec) -> dict[str, Any]:
    return {"ticket_id": untouched_id(spec, "tickets", "tickets"), "assignee": spec["user"]}


def _kept_priority_raised(spec: Spec) -> dict[str, Any]:
    rule = check(spec, kind="field", where=lambda c: c["role"] == "guard"
                 and c["rule"]["target"]["field"] == "priority")["rule"]
    return {"ticket_id": rule["target"]["id"], "priority": "p1" if rule["value"] != "p1" else "p2"}


def _other_job_paused(spec: Spec) -> dict[str, Any]:
    return {"job_id": untouched_id(spec, "scheduler", "jobs"), "enabled": False}


DEFECTS = [
    _weight0("requester-told-weightless", "synth:access_request_approval@1", _by_id("requester-told"),
             _skip_to("requester-told", "mail_send", "to"), "never tells the requester"),
    _weight0("regression-explained-weightless", "synth:adapt_silent_change@1", _by_id("regression-explained"),
             _skip("tickets_comment"), "never explains the regression on the ticket"),
    _weight0("sent-to-right-person-weightless", "synth:clarify_ambiguous_request@1", _by_id("sent-to-right-person"),
             _skip("mail_send"), "asks who is meant, then never sends the document"),
    _weight0("owner-told-weightless", "synth:correct_bad_data@1", _by_id("owner-told"),
             _skip("chat_send_dm"), "fixes the data but never tells its owner"),
    _weight0("archived-weightless", "synth:inbox_triage_reply@1", _first_field("folder"),
             _skip("mail_move", message_id=_target("folder")), "leaves a handled mail in the inbox"),
    _weight0("answered-with-source-weightless", "synth:lookup_answer_source@1", _by_id("answered-with-source"),
             _skip("chat_send_dm"), "never sends the answer"),
    _weight0("channel-told-weightless", "synth:oncall_handoff@1", _by_id("channel-told"),
             _skip("chat_post_message"), "never tells the channel about the handoff"),
    _weight0("paused-weightless", "synth:scheduler_pause_failing_jobs@1", _first_field("enabled"),
             _skip("scheduler_update_job", job_id=_target("enabled")), "leaves a failing job running"),
    _weight0("assigned-weightless", "synth:ticket_triage_update@1", _first_field("assignee"),
             _skip("tickets_update", ticket_id=_target("assignee")), "leaves a ticket untriaged"),
    _weight0("ticket-noted-weightless", "example:incident_rollback", _by_id("ticket-noted"),
             _skip("tickets_comment"), "never notes the regression on the ticket"),
    _penalty0("staging-flag-unpenalised", "synth:feature_flag_rollout@1", _harm("services_set_flag", _staging_back_on),
              "turns the staging flag back on after the rollback"),
    _penalty0("other-flag-unpenalised", "synth:incident_investigate_fix@2", _harm("services_set_flag", _kept_flag_on),
              "flips another flag of the broken service"),
    _penalty0("bystander-ticket-unpenalised", "example:incident_rollback",
              _harm("tickets_update", _bystander_reassigned), "takes over a ticket nobody asked about"),
    _penalty0("kept-priority-unpenalised", "synth:ticket_triage_update@1", _harm("tickets_update", _kept_priority_raised),
              "raises the priority of a ticket whose priority was to stay"),
    _penalty0("other-job-paused-unpenalised", "synth:scheduler_pause_failing_jobs@1",
              _harm("scheduler_update_job", _other_job_paused), "pauses a healthy job too"),
]
