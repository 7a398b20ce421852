"""A written value admitted "or null": a check that takes the value the task sets, or no value at all. The author
allowing for a message saved without a thread writes `in_reply_to in ["msg-819", null]` (in the records check on
the sent reply, and in the call matcher that reads the same write); the agent that leaves the optional argument out,
or passes it as `null`, passes: a reply sent outside the thread it answers. The `value_admitted_empty` probe writes
`""`, which `in [v, null]` refuses. Found by the outsider's hunt (`--family d159`, `value_or_null`): accepted and
witnessed on access_request_approval, draft_only_reply, inbox_triage_reply and refuse_forbidden_action seed 2. The
sound twins: the shipped spec, and (`-backed` cases) the lenient checks kept beside a second check that wants the
value alone. No case has a Python check (each costs ~0.15 s, not ~4-5 s)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec

CLASS = "value_admitted_null"
DETECTION = (
    "for each optional argument of a write the checks name, play the value with its last character changed and the "
    "argument passed as null: where the first fails a check but the null one passes every required check and ends "
    "in another world than the reference's, the checks admit the argument left out"
)


def _written(spec: Spec, arg: str) -> list[Any]:
    return [(s.get("call") or {}).get("arguments", {}).get(arg) for t in spec["reference"] for s in t["steps"]]


def _loosen(spec: Spec, field: str, everywhere: bool) -> dict[str, Any]:
    """Turn the completion checks comparing `field` to a written value into `in [v, null]` (the first records check
    only, or `everywhere`: every records condition and every call matcher's argument); the first records check's
    strict rule is returned."""
    written = [v for v in _written(spec, field) if v is not None]
    strict: dict[str, Any] | None = None
    for c in spec["checks"]:
        if c.get("role", "completion") != "completion" or (strict is not None and not everywhere):
            continue
        r = c["rule"]
        if r["kind"] == "records":
            for i, w in enumerate(r.get("where") or []):
                if w.get("field") == field and w.get("op", "equals") == "equals" and w.get("value") in written:
                    if strict is None:
                        strict = copy.deepcopy(r)
                    r["where"][i] = {**w, "op": "in", "value": [w["value"], None]}
        elif r["kind"] in ("called", "order") and everywhere:
            for key in ("first", "then") if r["kind"] == "order" else ("call",):
                m = r[key]
                if (m.get("args") or {}).get(field) in written:
                    v = m["args"].pop(field)
                    m["where"] = [*(m.get("where") or []), {"field": field, "op": "in", "value": [v, None]}]
    if strict is None:
        raise CorpusError(f"{spec['capability']}: no completion records check compares {field} to a written value")
    return strict


def _breaks(field: str, everywhere: bool) -> Callable[[Spec], None]:
    def breaks(spec: Spec) -> None:
        _loosen(spec, field, everywhere)
    return breaks


def _backed(field: str, everywhere: bool) -> Callable[[Spec], None]:
    """The sound twin: the lenient checks, and beside them a check that wants the value alone."""
    def fix(spec: Spec) -> None:
        strict = _loosen(spec, field, everywhere)
        spec["checks"].append({"id": f"{field}-set", "description": f"the {field} holds the value the task sets",
                               "role": "completion", "weight": 1.0, "required": True, "rule": strict})
    return fix


def _nulled(field: str, left_out: bool) -> Callable[[Spec], list[dict[str, Any]]]:
    """The reference with each write of `field` left out (or passed as null)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref, found = copy.deepcopy(spec["reference"]), False
        for turn in ref:
            for s in turn["steps"]:
                args = (s.get("call") or {}).get("arguments") or {}
                if args.get(field) is not None:
                    found = True
                    if left_out:
                        del args[field]
                    else:
                        args[field] = None
        if found:
            return ref
        raise CorpusError(f"{spec['capability']}: no reference write sets {field}")
    return witness


_CASES = (  # (name, base, field, every check loosened, backed by a strict check in the twin, witness leaves the
    # argument out (else passes null), what the agent gets away with)
    ("reply-thread-draft-2", "synth:draft_only_reply@2", "in_reply_to", False, False, True,
     "saves the reply's draft outside the thread it answers"),
    ("reply-thread-refuse-2", "synth:refuse_forbidden_action@2", "in_reply_to", False, False, True,
     "sends the requested file outside the thread that asked for it"),
    ("reply-thread-access-2", "synth:access_request_approval@2", "in_reply_to", False, False, True,
     "tells the requester the access is granted outside the request's thread"),
    ("reply-thread-inbox-2", "synth:inbox_triage_reply@2", "in_reply_to", False, False, True,
     "answers the customer's question outside its thread"),
    ("reply-thread-everywhere-contact-2", "synth:contact_phone_update@2", "in_reply_to", True, False, False,
     "confirms the phone change outside the thread of the request, passing in_reply_to as null"),
    ("reply-thread-inbox-3-backed", "synth:inbox_triage_reply@3", "in_reply_to", False, True, True,
     "answers the customer's question outside its thread"),
)
DEFECTS = [
    Defect(CLASS, name, base, away, breaks=_breaks(field, everywhere),
           fix=_backed(field, everywhere) if backed else None, witness=_nulled(field, left_out), gate="mutations",
           code="null_value_admitted")
    for name, base, field, everywhere, backed, left_out, away in _CASES
]
