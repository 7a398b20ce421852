"""A check that the agent looked a person up, met by a look-up of another person by address.

The reference reads the person the task is about by their address (`directory_get_person` of
`hamza.osei@atlasfreight.test`: the requester's manager, the hand-over's owner, the attendee's zone) and the writer
checks that the agent looked with a matcher that does not pin whom (`called directory_get_person`, no arguments). An
agent that looks up someone else (the look-up succeeds) and acts from memory passes. `read_elsewhere_credited`'s
moves (defects91) put a record argument onto another record by id, a window a week later, words onto other words,
but left an address as it was (`@` in the value: no table holds it as an id, and it is no free text), so the read
was never moved. Now an address some record of the world holds as its `email` is moved onto each other record's
address. The sound twin's matcher names the person in `args`. A Python grader finding any successful look-up in
the audit, or a calendar listing of another person's events, is the same mistake (held by
tests/test_validate_read_moves.py: sandboxed cases cost seconds each).
"""

from __future__ import annotations

from typing import Any

from coworkenv.env import base_world
from coworkenv.loading import parse_spec
from tests.defects._core import CorpusError, Defect, Spec, reference
from tests.defects.read_elsewhere_credited import _consulted

CLASS = "address_elsewhere_credited"
GATE, CODE = "mutations", "read_elsewhere_credited"
DETECTION = ("replay the reference with each read a check needs (its drop fails a check) that names a person by "
             "address moved onto another person's address (one the world holds, the read succeeds): a loose call "
             "matcher, or a Python check finding the read in the audit, that passes it credits a look-up of anyone")
TOOL = "directory_get_person"


def _other_person(spec: Spec, address: str) -> str:
    """Another person's address the directory holds (the first by id that the reference does not name)."""
    named = {v for turn in spec["reference"] for st in turn["steps"] if st.get("call")
             for v in st["call"]["arguments"].values() if isinstance(v, str)}
    people = sorted(base_world(parse_spec(spec)).table("directory", "people"), key=lambda p: p.id)
    other = next((p.email for p in people if p.email and p.email != address and p.email not in named), None)
    if other is None:
        raise CorpusError(f"{spec['capability']}: no other person to look up")
    return str(other)


def _looked_up_other(address: str):  # type: ignore[no-untyped-def]
    """Witness: the reference with its look-up of `address` made of another person."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        hits = [st["call"] for turn in ref for st in turn["steps"] if st.get("call") and st["call"]["name"] == TOOL
                and st["call"]["arguments"].get("person") == address]
        if len(hits) != 1:
            raise CorpusError(f"{spec['capability']}: {len(hits)} look-ups of {address}")
        hits[0]["arguments"]["person"] = _other_person(spec, address)
        return ref
    return witness


def _defect(name: str, base: str, address: str) -> Defect:
    return Defect(CLASS, name, base, f"looks up another person than {address} (the look-up succeeds) and acts from "
                  f"memory, and passes: the check that the agent looked the person up matches any {TOOL} call",
                  breaks=_consulted({"tool": TOOL}), fix=_consulted({"tool": TOOL, "args": {"person": address}}),
                  witness=_looked_up_other(address), witness_kind="cheat", gate=GATE, code=CODE)


DEFECTS = [
    _defect("requester-any-person", "synth:access_request_approval@1", "hamza.osei@atlasfreight.test"),
    _defect("requester-any-person-3", "synth:access_request_approval@3", "anya.okafor@copperleaf.test"),
    _defect("handoff-owner-any-person", "synth:oncall_handoff@1", "felix.ortiz@obsidian.test"),
    _defect("attendee-any-person", "synth:reschedule_conflict@3", "saoirse.ali@wavecrest.test"),
    _defect("data-owner-any-person", "synth:report_from_data@3", "marta.kaur@marlinpay.test"),
    _defect("delegate-any-person", "synth:delegate_and_follow_up@2", "diego.khan@veldt.test"),
]
