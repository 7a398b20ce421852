"""A Python grader that finds the task's call in the audit and credits it whether or not the tool carried it out.

The audit keeps every call as the agent wrote it, refused ones too (`ok` false, an `error` in place of the result).
A writer who checks the task by the call ("did the agent call `scheduler_update_job` with job-842 and enabled
false?") instead of by the record, and never reads `a["ok"]`, credits an agent whose call the tool refused: the job
named in capitals the scheduler does not know (the grader compares case-blind), a job update, a ticket update or a
DM with an argument the tool does not take, a reply whose attachment does not exist. The agent changed nothing and
passes. The sound twin is the base spec, whose check reads the record in the final state.
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, reference

CLASS = "attempt_credited"
DETECTION = (
    "replay the reference with the task's write refused by the tool (the same arguments, an error for a result, the "
    "world unchanged): a verifier that passes it while it fails the write left out credits the attempt (a Python "
    "check reading the audit's arguments but not `ok`)"
)
GATE, CODE = "mutations", "attempt_credited"

_GRADER = """\
def _same(given, op, wanted):
    if op == "contains":
        if isinstance(given, list):
            return all(w in given for w in wanted)
        return wanted in str(given or "")
    if op == "case_blind":
        return str(given).lower() == str(wanted).lower()
    return given == wanted


def check(state, audit, messages):
    for a in audit:
        if a["tool"] == {tool!r} and all(_same(a["args"].get(k), op, v) for k, op, v in {want}):
            return True
    return False
"""


def _grader(check_ids: tuple[str, ...], tool: str, want: list[tuple[str, str, Any]]):  # type: ignore[no-untyped-def]
    """The checks `check_ids` (state checks on what one write changes) replaced by one Python check that finds a
    call of `tool` with the arguments `want` ((argument, equals|contains|case_blind, value)) in the audit, never
    asking `ok`."""
    def breaks(spec: Spec) -> None:
        first = check(spec, check_ids[0])
        for other in check_ids[1:]:
            check(spec, other)  # raises if the base no longer has it
        spec["checks"] = [c for c in spec["checks"] if c["id"] not in check_ids[1:]]
        first["rule"] = {"kind": "python", "entrypoint": "check", "apps": [],
                         "code": _GRADER.format(tool=tool, want=repr(want))}
    return breaks


def _refused(tool: str, match: dict[str, Any], **changes: Any):  # type: ignore[no-untyped-def]
    """The reference with its call of `tool` matching `match` changed by `changes` so that the tool refuses it (a
    value None drops the argument); CorpusError if the call is not there."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        hits = [st["call"] for turn in ref for st in turn["steps"] if st.get("call") and st["call"]["name"] == tool
                and all(st["call"]["arguments"].get(k) == v for k, v in match.items())]
        if len(hits) != 1:
            raise CorpusError(f"{spec['capability']}: {len(hits)} calls of {tool} with {match}")
        hits[0]["arguments"].update(changes)
        return ref
    return witness


def _defect(name: str, base: str, check_ids: tuple[str, ...], tool: str, want: list[tuple[str, str, Any]],
            match: dict[str, Any], why: str, **changes: Any) -> Defect:
    return Defect(CLASS, name, base, f"makes the task's {tool} call so that the tool refuses it ({why}) and changes "
                  f"nothing, and passes: the grader replacing {', '.join(check_ids)} finds the call in the audit and "
                  "never reads whether it succeeded", breaks=_grader(check_ids, tool, want),
                  witness=_refused(tool, match, **changes), witness_kind="cheat", gate=GATE, code=CODE)


DEFECTS = [
    _defect("job-pause-in-capitals", "synth:scheduler_pause_failing_jobs@1", ("paused-job-842",),
            "scheduler_update_job", [("job_id", "case_blind", "job-842"), ("enabled", "equals", False)],
            {"job_id": "job-842"}, "the job named JOB-842, which the scheduler does not know", job_id="JOB-842"),
    _defect("dm-unknown-argument", "synth:correct_bad_data@1", ("owner-told",),
            "chat_send_dm", [("person", "equals", "u-malik"), ("text", "contains", "Vera Reyes")],
            {"person": "u-malik"}, "with an `urgent` argument the tool does not take", urgent=True),
    _defect("triage-unknown-argument", "synth:ticket_triage_update@1", ("PLAT-113-assignee", "PLAT-113-priority"),
            "tickets_update", [("ticket_id", "equals", "PLAT-113"), ("assignee", "equals", "u-sofia"),
                               ("priority", "equals", "p2")],
            {"ticket_id": "PLAT-113"}, "with a `notify` argument the tool does not take", notify=True),
    _defect("job-pause-with-a-reason", "synth:scheduler_pause_failing_jobs@1", ("paused-job-843",),
            "scheduler_update_job", [("job_id", "equals", "job-843"), ("enabled", "equals", False)],
            {"job_id": "job-843"}, "with a `reason` argument the tool does not take", reason="failing since Monday"),
    _defect("reply-missing-attachment", "synth:inbox_triage_reply@1", ("question-answered",),
            "mail_send", [("to", "contains", ["elif.ivanova@cobalt.test"]), ("in_reply_to", "equals", "msg-381"),
                          ("body", "contains", "2027-04-19"), ("subject", "contains", "Question: renewal date")],
            {"in_reply_to": "msg-381"}, "with an attachment the files app does not hold",
            attachments=["legal/renewals-summary.pdf"]),
]
