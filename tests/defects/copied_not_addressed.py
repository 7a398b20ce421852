"""A message's addressee read in `to` or in `cc`: the task asks for a reply (sent or drafted) to a person, and the
check on the message wants that person in its `to` or, as a second tier of full score, in its `cc` ("they get it
either way"). The agent that addresses the reply to a colleague and only copies the person asking passes: the mail
goes to the wrong person (a draft waits for the wrong addressee), the asker is a bystander on it. The near misses
named another person in the addressee's place (the asker left out, both tiers fail) but never moved the addressee
into the copies. Found by the outsider's seventh hunt (`benchmarks/hunt_mutants.py --family d99`, kind
`cc_counts_as_to`, witnessed on draft_only_reply 1-5). The sound twin is the shipped spec (`to` alone)."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, reference

CLASS = "copied_not_addressed"
DETECTION = (
    "for each person a reference message (mail_send, mail_save_draft) is addressed to, replay the message addressed "
    "to another person with that one moved to its copies (`cc`): a replay that passes lets the agent reply to the "
    "wrong person with the asker only copied"
)
_MAIL_TOOLS = ("mail_send", "mail_save_draft")
_ADDRESS = re.compile(r"[\w.+-]+@[\w.-]+\.[a-z]{2,}")


def _rule(c: dict[str, Any]) -> dict[str, Any]:
    """The check's records rule (the first tier's, once the defect made it tiers)."""
    r = c["rule"]
    return r["tiers"][0]["rule"] if r["kind"] == "tiers" else r


def _addressee(spec: Spec) -> tuple[dict[str, Any], int, str]:
    """(the mail check, its `to` condition's index, the address) of the first records check on mail that reads the
    addressee in `to`."""
    for c in spec["checks"]:
        r = _rule(c)
        if r["kind"] != "records" or r.get("app") != "mail":
            continue
        for i, w in enumerate(r.get("where") or []):
            v = w.get("value")
            addr = v[0] if isinstance(v, list) and len(v) == 1 else v
            if w["field"] == "to" and w.get("op") == "contains" and isinstance(addr, str) and _ADDRESS.fullmatch(addr):
                return c, i, addr
    raise CorpusError(f"{spec['capability']}: no mail check reading its addressee in `to`")


def _either_field(spec: Spec) -> None:
    c, i, _ = _addressee(spec)
    copied = copy.deepcopy(c["rule"])
    copied["where"][i]["field"] = "cc"
    c["rule"] = {"kind": "tiers", "tiers": [{"score": 1.0, "rule": c["rule"]}, {"score": 1.0, "rule": copied}]}


def _addressed_elsewhere(spec: Spec) -> list[dict[str, Any]]:
    """The reference whose message to the checked addressee goes to another person the world knows, the addressee
    moved to `cc`."""
    _, _, addr = _addressee(spec)
    ref = reference(spec)
    known = list(dict.fromkeys(_ADDRESS.findall(json.dumps(spec["world"]))))
    for turn in ref:
        for st in turn["steps"]:
            call = st.get("call")
            to = (call or {}).get("arguments", {}).get("to")
            if call and call["name"] in _MAIL_TOOLS and isinstance(to, list) and addr in to:
                cc = list(call["arguments"].get("cc") or [])
                other = next(a for a in known if a not in to and a not in cc and a != addr)
                call["arguments"]["to"] = [other if x == addr else x for x in to]
                call["arguments"]["cc"] = [*cc, addr]
                return ref
    raise CorpusError(f"{spec['capability']}: no reference message to {addr}")


def _defect(base: str) -> Defect:
    return Defect(CLASS, base.split(":", 1)[1].replace("@", "-"), base,
                  "addresses the reply to another person and only copies the one who asked", breaks=_either_field,
                  witness=_addressed_elsewhere, gate="mutations", code="mutant_survived")


DEFECTS = [_defect(b) for b in (
    "synth:draft_only_reply@1", "synth:draft_only_reply@2", "synth:inbox_triage_reply@1",
    "synth:mail_ticket_chat_coordination@1", "synth:clarify_ambiguous_request@1", "synth:clarify_ambiguous_request@3",
)]
