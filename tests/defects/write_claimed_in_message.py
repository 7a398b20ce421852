"""A write checked by its calls and by the message that reports it, not by the record: the check on what the service
runs (`deployed_version == 4.16.2`, `config_version == 7`) moved onto the announcement the agent posts (`chat text
contains svc-media` and the release, where the post states it). The `called`/`order` checks still see the right
deploy or rollback, and the undo (the release or config the service ran before) is the fault a guard forbids, so every
near miss was caught; but an agent that makes the right write, then the same write again to another release or
config version, leaves the service on the wrong one and passes every check: the message names the service whatever
runs. The defect keeps the guard on the fix's tool as the generator wrote it before `GENERATOR_VERSION` 20 (the bad
value alone forbidden; version 20 forbids every value but the fix's, which also catches the second write). The sound
twin is the shipped spec (the field check on the service). Found by the outsider's hunt
(`benchmarks/hunt_mutants.py --family d123`, kind `msg_for_record`)."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls, check, reference
from tests.defects.erased_other_value import _bad_only

CLASS = "write_claimed_in_message"
DETECTION = (
    "for each write of an existing record that a completion `called`/`order` check matches (and no later write of "
    "the reference makes to the same record with the same tool), replay the reference with the same write made again "
    "right after it with one argument changed (a release a patch down, the values the in-place near misses give); a "
    "replay that still passes has no check reading the record: reported `redone_write_unchecked`"
)
# The field the check reads, the tool that writes it, its argument and that argument's value one step back.
_WRITES = {"deployed_version": ("services_deploy", "version"), "config_version": ("services_rollback_config",
                                                                                 "to_version")}


def _as_message(spec: Spec) -> None:
    chk = check(spec, "fixed")
    service, value = chk["rule"]["target"]["id"], str(chk["rule"]["value"])
    if chk["rule"]["target"]["field"] not in _WRITES:
        raise CorpusError(f"{spec['capability']}: the fix is no deploy or config rollback")
    posts = [c["arguments"].get("text", "") for _, _, c in calls(spec, "chat_post_message")]
    words = [w for w in (service, value) if any(w in p for p in posts)]
    if service not in words:
        raise CorpusError(f"{spec['capability']}: no announcement names {service}")
    chk["rule"] = {"kind": "records", "app": "chat", "table": "messages", "count_op": "gte", "count": 1,
                   "where": [{"field": "text", "op": "contains", "value": w} for w in words]}
    _bad_only(spec)


def _back(value: Any) -> Any:
    if isinstance(value, int):
        return value - 1
    head, last = str(value).rsplit(".", 1)
    return f"{head}.{int(last) - 1}"


def _redone(spec: Spec) -> list[dict[str, Any]]:
    """The reference, with its last fixing write made again right after it, one release or config version back."""
    ref = reference(spec)
    for tool, arg in _WRITES.values():
        found = [(t, s) for t, turn in enumerate(ref) for s, st in enumerate(turn["steps"])
                 if (st.get("call") or {}).get("name") == tool]
        if found:
            t, s = found[-1]
            call = ref[t]["steps"][s]["call"]
            again = {**call["arguments"], arg: _back(call["arguments"][arg])}
            ref[t]["steps"].insert(s + 1, {"call": {"name": tool, "arguments": again}, "say": None})
            return ref
    raise CorpusError(f"{spec['capability']}: the reference makes no deploy or config rollback")


def _defect(seed: int) -> Defect:
    return Defect(CLASS, f"fix-announced-{seed}", f"synth:adapt_silent_change@{seed}",
                  "makes the fix, then the same write again to another release or config version: the announcement "
                  "still names the service", breaks=_as_message, witness=_redone, gate="mutations",
                  code="redone_write_unchecked")


DEFECTS = [_defect(1), _defect(2), _defect(3), _defect(6), _defect(8)]
