"""A reply's thread read only by what it is not: the check "the reply answers msg-391" (`in_reply_to equals msg-391`)
written as "it is a reply" (`in_reply_to not_equals null`, `not_equals ""`) or as "not that other thread"
(`not_equals msg-390`). The condition reads the link, yet admits every other message: an agent that answers (or
drafts the answer to) the asker under another thread passes. Found by the outsider hunt
(`benchmarks/hunt_mutants.py --family d141`, kind `cond_not_null`). The sound twin is the shipped spec."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, cond, reference, world

CLASS = "link_read_as_set"
DETECTION = (
    "for each id a write of the reference passes (not a person or a channel) that a completion check reads by a "
    "negated condition (`not_equals`, `not_contains`) it meets, try the write with another id of the same table the "
    "condition admits too: a near miss that passes every required check shows the check reads the link only as set"
)


def _linked(spec: Spec, check_id: str) -> str:
    value = cond(check(spec, check_id), "in_reply_to")["value"]
    if not isinstance(value, str):
        raise CorpusError(f"{spec['capability']}: {check_id} reads no message id in in_reply_to")
    return value


def _others(spec: Spec, linked: str) -> list[str]:
    return [m["id"] for m in world(spec, "mail", "messages") if m["id"] != linked]


def _negated(check_id: str, how: str):  # type: ignore[no-untyped-def]
    """`in_reply_to equals <the asker's mail>` as `not_equals null`, `not_equals ""` or `not_equals <another>`."""
    def edit(spec: Spec) -> None:
        w = cond(check(spec, check_id), "in_reply_to")
        excluded: Any = {"null": None, "empty": "", "other": _others(spec, _linked(spec, check_id))[0]}[how]
        w["op"], w["value"] = "not_equals", excluded
    return edit


def _threaded_elsewhere(spec: Spec) -> list[dict[str, Any]]:
    """The reference with its reply threaded to another message of the inbox (not the one a `not_equals` names)."""
    ref = reference(spec)
    hits = [st["call"] for turn in ref for st in turn["steps"]
            if st.get("call") and isinstance(st["call"]["arguments"].get("in_reply_to"), str)]
    if not hits:
        raise CorpusError(f"{spec['capability']}: no reference call replies to a message")
    other = _others(spec, hits[0]["arguments"]["in_reply_to"])[1]
    for c in hits:
        c["arguments"]["in_reply_to"] = other
    return ref


def _reply(name: str, base: str, check_id: str, how: str) -> Defect:
    return Defect(CLASS, name, base, _AWAY, breaks=_negated(check_id, how), witness=_threaded_elsewhere,
                  gate="mutations", code="negated_link_accepted")


_AWAY = "answers the asker under another mail's thread: the check reads the reply's link only as set"

DEFECTS = [
    _reply("draft-reply-null", "synth:draft_only_reply@1", "draft-ready", "null"),
    _reply("draft-reply-empty", "synth:draft_only_reply@2", "draft-ready", "empty"),
    _reply("approval-reply-null", "synth:access_request_approval@1", "requester-told", "null"),
    _reply("approval-reply-other", "synth:access_request_approval@2", "requester-told", "other"),
    _reply("triage-answer-empty", "synth:inbox_triage_reply@1", "question-answered", "empty"),
    _reply("incident-reporter-null", "synth:incident_investigate_fix@1", "reporter-answered", "null"),
    _reply("draft-reply-other", "synth:draft_only_reply@3", "draft-ready", "other"),
    _reply("triage-answer-other", "synth:inbox_triage_reply@2", "question-answered", "other"),
]
