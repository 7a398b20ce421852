"""A written id admitted in another spelling by an `in` list: the check on the draft's `in_reply_to` (or on the
paused-jobs config entry) names the value twice, as written and in capitals (`in [msg-391, MSG-391]`,
`in [payments-log-rotate,..., PAYMENTS-LOG-ROTATE,...]`): the writer took ids for case-blind. The mail tool keeps a
draft's unknown reply-to as written (unthreaded) and the config store keeps the entry as written (naming no job), so
the agent writing the id in capitals passes (the outsider's sixth hunt, `benchmarks/hunt_mutants.py --family d65`,
kind `records.where.eq_to_in` / `field.eq_to_in` on draft_only_reply 1 and scheduler_pause_failing_jobs 1).
defects71's loose reads tried the capitals against every loose condition but took an `in` list as naming each value
on purpose; a list naming one value in two spellings reads it blind to case. The sound twin keeps `equals` (the
base).
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, reference

CLASS = "in_list_respelled"
DETECTION = (
    "an `in` condition whose list names one value in two spellings (case, separators) is read as loosely as a "
    "case-blind pattern: the write with the value in capitals, in lower case, with `-` and `_` exchanged must fail a "
    "check"
)
GATE, CODE = "mutations", "loose_value_accepted"
_FIELDS = ("in_reply_to", "value")  # the draft's thread, the config entry's value


def _cond(spec: Spec) -> dict[str, Any]:
    """The condition (a records `where` or a field rule) that wants the written id exactly."""
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "records":
            for w in rule["where"]:
                if w["field"] in _FIELDS and w["op"] == "equals" and isinstance(w["value"], str):
                    return w  # type: ignore[no-any-return]
        if rule["kind"] == "field" and rule["target"]["field"] in _FIELDS and rule["op"] == "equals":
            return rule  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: no check wants {' or '.join(_FIELDS)} exactly")


def _field(spec: Spec) -> str:
    cond = _cond(spec)
    return str(cond["field"] if "field" in cond else cond["target"]["field"])


def _both_cases(spec: Spec) -> None:
    cond = _cond(spec)
    cond["op"], cond["value"] = "in", [cond["value"], cond["value"].upper()]


def _in_capitals(spec: Spec) -> list[dict[str, Any]]:
    wanted, field = _cond(spec)["value"], _field(spec)
    ref = reference(spec)
    hits = 0
    for turn in ref:
        for step in turn["steps"]:
            c = step.get("call")
            if c and c["arguments"].get(field) == wanted:
                c["arguments"][field] = wanted.upper()
                hits += 1
    if not hits:
        raise CorpusError(f"{spec['capability']}: no write passes {field} {wanted}")
    return ref


_AWAY = {"draft_only_reply": "drafts the reply to the mail's id in capitals, which threads it to no message",
         "scheduler_pause_failing_jobs": "records the paused jobs' names in capitals, which name no job"}

DEFECTS = [
    Defect(CLASS, f"{cap}-{seed}", f"synth:{cap}@{seed}", _AWAY[cap], breaks=_both_cases, witness=_in_capitals,
           gate=GATE, code=CODE)
    for cap, seeds in (("draft_only_reply", (1, 2, 3, 4, 5)), ("scheduler_pause_failing_jobs", (1, 2, 3)))
    for seed in seeds
]
