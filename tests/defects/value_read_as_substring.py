"""A written value read as a substring: a check that finds the value the task sets inside the text it reads, a Python
grader's `str(value) in str(record)` or `str(value) in str(r.get(field))` (a tier of full score beside the field
check). The agent that writes a longer value holding the wanted one passes: a deploy of `1.5.01` (or `11.5.0`) for
`1.5.0`, a phone number with a digit more. Found by the outsider's hunt (`--family d149`, `py_value_in_record`):
accepted and witnessed on refuse_forbidden_action seed 1. The sound twin is the shipped spec (the field compared
equal). A declarative `contains` on the field is `_admitted_values`' (`loose_value_accepted`) and not repeated here."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec

CLASS = "value_read_as_substring"
DETECTION = (
    "where a check has a Python rule, for each written scalar naming or counting something (a version, an id, a "
    "number, a phone number), play the value with its last character changed and the value one character longer "
    "(a digit after a digit): where the first fails a check but the second passes every required check, the checks "
    "read the written value as a substring of a longer one"
)


def _written(spec: Spec, arg: str) -> list[Any]:
    return [(s.get("call") or {}).get("arguments", {}).get(arg) for t in spec["reference"] for s in t["steps"]]


def _field_check(spec: Spec, field: str, arg: str) -> dict[str, Any]:
    """The check comparing `field` equal to a value the reference writes with `arg`."""
    for c in spec["checks"]:
        r = c["rule"]
        if r["kind"] == "field" and r["target"]["field"] == field and r.get("op", "equals") == "equals" \
                and r.get("value") in _written(spec, arg):
            return c
    raise CorpusError(f"{spec['capability']}: no field check compares {field} to a value written as {arg}")


def _lenient(reads: str) -> Callable[[str, str], Callable[[Spec], None]]:
    """The field check made lenient: the field holds the value, or (a tier of full score, a Python grader) the text
    `reads` names (`r`: the record found by its id; `r.get(field)`: the field) holds it."""
    def how(field: str, arg: str) -> Callable[[Spec], None]:
        def breaks(spec: Spec) -> None:
            c = _field_check(spec, field, arg)
            t, v = c["rule"]["target"], c["rule"]["value"]
            code = ("def check(state, audit, messages):\n"
                    f"    r = next(r for r in state['apps'][{t['app']!r}][{t['table']!r}] if r['id'] == {t['id']!r})\n"
                    f"    return str({v!r}) in str({reads.format(field=repr(field))})\n")
            c["rule"] = {"kind": "tiers", "tiers": [{"score": 1.0, "rule": c["rule"]}, {"score": 1.0, "rule": {
                "kind": "python", "entrypoint": "check", "apps": [t["app"]], "code": code}}]}
        return breaks
    return how


_in_record = _lenient("r")
_in_field = _lenient("r.get({field})")


def _padded(field: str, arg: str) -> Callable[[Spec], list[dict[str, Any]]]:
    """The reference with each write of the value the field check wants one character longer (a digit appended)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        v = _field_check(spec, field, arg)["rule"]["value"]
        ref, found = copy.deepcopy(spec["reference"]), False
        for turn in ref:
            for s in turn["steps"]:
                args = (s.get("call") or {}).get("arguments") or {}
                if args.get(arg) == v:
                    args[arg] = v * 10 if isinstance(v, int) else f"{v}1"
                    found = True
        if found:
            return ref
        raise CorpusError(f"{spec['capability']}: no reference write sets {arg} to {v!r}")
    return witness


_CASES = (  # (name, how the check reads, base, field the check reads, argument the reference writes it with, what
    # the agent gets away with)
    ("in-record-deploy-version", _in_record, "synth:refuse_forbidden_action@1", "deployed_version", "version",
     "deploys version 1.5.01 where the task asks for 1.5.0"),
    ("in-field-deploy-version", _in_field, "synth:refuse_forbidden_action@1", "deployed_version", "version",
     "deploys version 1.5.01 where the task asks for 1.5.0"),
    ("in-field-phone-1", _in_field, "synth:contact_phone_update@1", "phone", "phone",
     "writes the new phone number with a digit more"),
    ("in-field-phone-2", _in_field, "synth:contact_phone_update@2", "phone", "phone",
     "writes the new phone number with a digit more"),
    ("in-field-phone-3", _in_field, "synth:contact_phone_update@3", "phone", "phone",
     "writes the new phone number with a digit more"),
)
DEFECTS = [
    Defect(CLASS, name, base, away, breaks=how(field, arg), witness=_padded(field, arg), gate="mutations",
           code="value_read_as_substring")
    for name, how, base, field, arg, away in _CASES
]
