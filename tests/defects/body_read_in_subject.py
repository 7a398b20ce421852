"""A message's body read in its subject too: the mail check written as "the body states it, or the subject does"
(a tier of full score with the body's condition moved onto `subject`, or a `called` check of the send reading the
subject). The agent that sends a mail whose body says "See the subject." and crams the facts into the subject
line passes. Found by the outsider's hunt (`--family d146`, `body_or_subject`): accepted on every base whose
checks read a sent or drafted mail's body. The sound twin is the shipped spec (the body alone)."""

from __future__ import annotations

import copy
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec

CLASS = "body_read_in_subject"
DETECTION = (
    "for each reference write of a message with a subject and a text body, play the body bare and the body bare with "
    "its text appended to the subject: where the bare body fails a check but the moved one passes every required "
    "check, the checks admit the message's facts from its subject line"
)
_BODY = ("body", "text")
_SENDS = ("mail_send", "mail_save_draft", "mail_reply", "mail_forward")


def _mail_check(spec: Spec) -> tuple[dict[str, Any], int]:
    """The last completion records check on mail messages with a condition on the body (the reply that states the
    outcome, where the task mails twice), and that condition's index."""
    for c in reversed(spec["checks"]):
        r = c["rule"]
        if r["kind"] == "records" and r.get("app") == "mail" and c.get("role", "completion") == "completion":
            for i, w in enumerate(r.get("where") or []):
                if w.get("field") in _BODY and w.get("op") in ("contains", "matches"):
                    return c, i
    raise CorpusError(f"{spec['capability']}: no mail check reads a body")


def _tier_subject(spec: Spec) -> None:
    """The mail check as tiers: as shipped, or (full score too) with the body's condition read on the subject."""
    c, i = _mail_check(spec)
    r = c["rule"]
    alt = copy.deepcopy(r)
    alt["where"][i]["field"] = "subject"
    c["rule"] = {"kind": "tiers", "tiers": [{"score": 1.0, "rule": r}, {"score": 1.0, "rule": alt}]}


def _tier_called(spec: Spec) -> None:
    """The mail check as tiers: as shipped, or (full score too) a call of the send whose subject holds the body's
    condition."""
    c, i = _mail_check(spec)
    r = c["rule"]
    w = r["where"][i]
    tool = next((s["call"]["name"] for turn in spec["reference"] for s in turn["steps"]
                 if s.get("call") and s["call"]["name"] in _SENDS and w["field"] in s["call"]["arguments"]), None)
    if tool is None:
        raise CorpusError(f"{spec['capability']}: the reference sends no mail with a {w['field']}")
    alt = {"kind": "called", "call": {"tool": tool, "args": {}, "where": [{**w, "field": "subject"}]}}
    c["rule"] = {"kind": "tiers", "tiers": [{"score": 1.0, "rule": r}, {"score": 1.0, "rule": alt}]}


def _in_subject(spec: Spec) -> list[dict[str, Any]]:
    """The reference with the body of the mail the check reads (sent to its addressee) moved into its subject, the
    body left saying "See the subject."."""
    c, _ = _mail_check(spec)
    rule = c["rule"]["tiers"][0]["rule"] if c["rule"]["kind"] == "tiers" else c["rule"]
    to = next((w["value"] for w in rule["where"] if w["field"] == "to"), None)
    want = {to} if isinstance(to, str) else set(to or [])
    ref = copy.deepcopy(spec["reference"])
    for turn in ref:
        for s in turn["steps"]:
            call = s.get("call")
            args = call["arguments"] if call and call["name"] in _SENDS else {}
            sent = args.get("to")
            arg = next((a for a in _BODY if isinstance(args.get(a), str)), None)
            if arg is not None and want <= set([sent] if isinstance(sent, str) else sent or []):
                args["subject"] = f"{args.get('subject') or ''} {' '.join(args[arg].split())}".strip()
                args[arg] = "See the subject."
                return ref
    raise CorpusError(f"{spec['capability']}: the reference writes no mail body to {to}")


_AWAY = "sends a mail whose body says 'See the subject.' with every fact crammed into the subject line"


def _defect(name: str, base: str, called: bool = False) -> Defect:
    return Defect(CLASS, name, base, _AWAY, breaks=_tier_called if called else _tier_subject, witness=_in_subject,
                  gate="mutations", code="body_read_in_subject")


DEFECTS = [
    _defect("tier-subject-meeting", "example:meeting_reschedule"),
    _defect("tier-subject-report", "example:report_from_files"),
    _defect("tier-subject-phone-17", "synth:contact_phone_update@17"),
    _defect("tier-subject-draft-17", "synth:draft_only_reply@17"),
    _defect("called-subject-phone-17", "synth:contact_phone_update@17", called=True),
    _defect("called-subject-access-15", "synth:access_request_approval@15", called=True),
]
