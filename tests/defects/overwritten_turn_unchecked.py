"""A turn's result that a later turn overwrites, judged only on the final state: adapt_announced_change's meeting
variant books the meeting in the first turn and moves it in the second, and no check reads the first booking. A
booking at the wrong time (16:00Z, past everyone's working hours, reported to the user as booked) that the second
turn moves passes with full marks; the mutants that shift the first booking end in the reference's final state, so
the mutations gate took them for equivalent. The defect is the generator's version-16 output (the version-17 spec
without its check of the first booking, the rules that leave the trace it reads and the frame's allowance of it);
the sound twin is version 17's, whose rules bring in the first attendee's acceptance while the clash is not there
yet and the meeting sits at the first slot (and withdraw it when a write leaves it elsewhere)."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, reference

CLASS = "overwritten_turn_unchecked"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "judge a mutant's equivalence to the reference at each turn's end, not only on the final state: a mutant that "
    "passes, ends as the reference does, but leaves an earlier turn's world otherwise has that turn's result unchecked"
)
_CHECK = "first-booked-at-earliest"
_RULES = "first-booking-"


def first_booking_unchecked(spec: Spec) -> None:
    """The spec as version 16 wrote it: no check of the first booking, no rule leaving its trace, no allowance."""
    spec["checks"].remove(check(spec, _CHECK))
    rules = [r for r in spec["dynamics"]["rules"] if r["id"].startswith(_RULES)]
    if not rules:
        raise CorpusError(f"{spec['capability']}: no rule marking the first booking")
    marks = {e.get("record", {}).get("id") or e.get("id") for r in rules for e in r["effects"]}
    spec["dynamics"]["rules"] = [r for r in spec["dynamics"]["rules"] if r not in rules]
    for c in spec["checks"]:
        if c["rule"]["kind"] == "frame":
            c["rule"]["allow"] = [a for a in c["rule"]["allow"] if a.get("id") not in marks]


def _booked_late(spec: Spec) -> list[dict[str, Any]]:
    """The reference with the first turn's booking at 16:00Z that day (past everyone's hours); the move is kept."""
    ref = reference(spec)
    calls = [s["call"] for s in ref[0]["steps"] if s.get("call") and s["call"]["name"] == "calendar_create_event"]
    if not calls:
        raise CorpusError(f"{spec['capability']}: the first turn books nothing")
    args = calls[0]["arguments"]
    args["start"], args["end"] = args["start"][:11] + "16:00:00Z", args["end"][:11] + "17:00:00Z"
    return ref


def _defect(name: str, seed: int) -> Defect:
    return Defect(CLASS, name, f"synth:adapt_announced_change@{seed}",
                  "books the meeting at 16:00Z in the first turn (past everyone's working hours) and reports it "
                  "booked; the second turn's move hides it", breaks=first_booking_unchecked, witness=_booked_late,
                  witness_kind="cheat", gate="mutations", code=CLASS)


DEFECTS = [_defect(f"first-booking-unchecked-{seed}", seed) for seed in (2, 3, 5, 8, 9)]
