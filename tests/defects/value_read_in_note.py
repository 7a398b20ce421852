"""A written value read anywhere in the record: a check made lenient with a tier of full score, a Python grader that
finds the record by its id and tests `str(value) in str(record)` ("the new phone is in the contact"). The agent that leaves the field as it was and writes
the value into the note the same call keeps (`contacts_update(add_note="phone: +31 ...")`) passes. Found by the
outsider's hunt (`--family d149`, `py_value_in_record`): accepted and witnessed on contact_phone_update. The sound
twin is the shipped spec (the field itself compared)."""

from __future__ import annotations

import copy
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec

CLASS = "value_read_in_note"
DETECTION = (
    "for each scalar argument of a reference write whose tool takes a free-text note (add_note, note, reason, "
    "comment), play the argument left out and the argument left out with its value appended to the note: where the "
    "first fails a check but the second passes every required check, the checks read the value from the note"
)
_NOTES = ("add_note", "note", "reason", "comment")


def _field_check(spec: Spec) -> dict[str, Any]:
    for c in spec["checks"]:
        r = c["rule"]
        if r["kind"] == "field" and r.get("op", "equals") == "equals" and isinstance(r.get("value"), str):
            return c
    raise CorpusError(f"{spec['capability']}: no field check compares a text value")


def _anywhere(spec: Spec) -> None:
    """The field check made lenient: the field holds the value, or (a tier of full score, a Python grader) the
    record found by its id holds it anywhere in its text."""
    c = _field_check(spec)
    t, v = c["rule"]["target"], c["rule"]["value"]
    code = ("def check(state, audit, messages):\n"
            f"    r = next(r for r in state['apps'][{t['app']!r}][{t['table']!r}] if r['id'] == {t['id']!r})\n"
            f"    return str({v!r}).lower() in str(r).lower()\n")
    c["rule"] = {"kind": "tiers", "tiers": [{"score": 1.0, "rule": c["rule"]}, {"score": 1.0, "rule": {
        "kind": "python", "entrypoint": "check", "apps": [t["app"]], "code": code}}]}


def _in_note(spec: Spec) -> list[dict[str, Any]]:
    """The reference with the checked field's argument left out and `field: value` appended to the call's note."""
    c = _field_check(spec)
    field, v = c["rule"]["target"]["field"], c["rule"]["value"]
    ref = copy.deepcopy(spec["reference"])
    for turn in ref:
        for s in turn["steps"]:
            args = (s.get("call") or {}).get("arguments") or {}
            note = next((n for n in _NOTES if n in args), None)
            if args.get(field) == v and note is not None:
                del args[field]
                args[note] = f"{args[note] or ''} {field}: {v}".strip()
                return ref
    raise CorpusError(f"{spec['capability']}: no reference write sets {field} beside a note")


DEFECTS = [
    Defect(CLASS, f"anywhere-phone-{seed}", f"synth:contact_phone_update@{seed}",
           "leaves the phone as it was and writes the new number into the contact's note",
           breaks=_anywhere, witness=_in_note, gate="mutations", code="value_read_in_note")
    for seed in (1, 2, 3, 4, 5)
]
