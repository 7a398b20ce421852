"""A write a later turn allows, unchecked for when it came: the manager's approval, the delegate's answer, an
announced leave or clash reaches the agent only with the user's second turn, and the writes of that turn depend on
it (grant or not, in progress or handed on, to whom, when). No check tells a write made in the second turn from
the same write made a turn early, before that news came: an agent that guesses and acts at once passes whenever its
guess was right. The sound twin checks that the write came after the turn that allows it (a stamp later than the
turn's start, or a trace the world leaves only once the news is there)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coworkenv.validate.mutations import is_write
from tests.defects._core import CorpusError, Defect, Edit, Spec, check, reference
from tests.defects.overwritten_turn_unchecked import first_booking_unchecked

CLASS = "early_turn_unchecked"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "where a later user turn brings something the earlier turn lacked (an answer to its question, the changes the "
    "turn announces, the world's delayed reaction to the earlier turn's calls), move that turn's first write (and "
    "all its writes) before the earlier turn's closing reply; if the replay still passes, the checks reward a guess"
)


def _early(spec: Spec) -> list[dict[str, Any]]:
    """The reference with turn 1's first write made in turn 0, before its closing reply (the news not yet in)."""
    ref = reference(spec)
    steps = ref[1]["steps"]
    at = next((j for j, s in enumerate(steps) if s.get("call") and is_write(s["call"]["name"])), None)
    closing = max((j for j, s in enumerate(ref[0]["steps"]) if s.get("say")), default=None)
    if at is None or closing is None:
        raise CorpusError(f"{spec['capability']}: no second-turn write to make early")
    ref[0]["steps"].insert(closing, steps.pop(at))
    return ref


def _dropping(*ids: str, rule: str | None = None) -> Callable[[Spec], None]:
    """The spec without the waiting checks `ids` (and the world's rule `rule` that leaves the trace one reads, with
    the frame's allowance of its record): as the generator wrote it before it checked when the write came."""
    def edit(spec: Spec) -> None:
        for check_id in ids:
            spec["checks"].remove(check(spec, check_id))
        if rule is not None:
            [found] = [r for r in spec["dynamics"]["rules"] if r["id"] == rule]
            spec["dynamics"]["rules"].remove(found)
            put = {e["record"]["id"] for e in found["effects"]}
            for c in spec["checks"]:
                if c["rule"]["kind"] == "frame":
                    c["rule"]["allow"] = [a for a in c["rule"]["allow"] if a.get("id") not in put]
    return edit


def _defect(name: str, base: str, away: str, *ids: str, rule: str | None = None, also: Edit | None = None) -> Defect:
    drop = _dropping(*ids, rule=rule)

    def breaks(spec: Spec) -> None:
        drop(spec)
        if also is not None:
            also(spec)
    return Defect(CLASS, name, base, away, breaks=breaks, witness=_early, witness_kind="cheat",
                  gate="mutations", code="acts_before_answer")


DEFECTS = [
    _defect("grant-before-approval", "synth:access_request_approval@1",
            "grants the access and tells the requester in the first turn, before the manager approved",
            "granted-after-answer", "told-after-answer"),
    _defect("grant-before-approval-told-checked", "synth:access_request_approval@2",
            "grants the access in the first turn, before the manager approved (only the requester's answer waits)",
            "granted-after-answer"),
    _defect("decline-before-answer", "synth:access_request_approval@3",
            "tells the requester 'not approved' in the first turn, before the manager answered",
            "told-after-answer"),
    _defect("decline-before-answer-2", "synth:access_request_approval@5",
            "tells the requester 'not approved' in the first turn, before the manager answered",
            "told-after-answer"),
    _defect("in-progress-before-answer", "synth:delegate_and_follow_up@1",
            "sets the ticket in progress in the first turn, before the delegate accepted",
            "acted-after-answer"),
    _defect("handed-on-before-answer", "synth:delegate_and_follow_up@2",
            "hands the ticket to the suggested colleague in the first turn, before the delegate declined",
            "acted-after-answer"),
    _defect("handed-on-and-asked-before-answer", "synth:delegate_and_follow_up@5",
            "hands the ticket on and asks the suggested colleague in the first turn, before the delegate declined",
            "acted-after-answer", "suggested-asked-after-answer"),
    _defect("backup-before-leave", "synth:adapt_announced_change@1",
            "gives the ticket to the owner's backup in the first turn, before the leave was announced",
            "handed-after-news"),
    _defect("backup-before-leave-told", "synth:adapt_announced_change@4",
            "gives the ticket to the backup and tells them in the first turn, before the leave was announced",
            "handed-after-news", "backup-told-after-news"),
    _defect("moved-before-clash", "synth:adapt_announced_change@2",
            "moves the meeting to the later slot in the first turn, before the colleague's clash existed",
            "moved-after-clash", also=first_booking_unchecked),
    _defect("moved-before-clash-no-trace", "synth:adapt_announced_change@3",
            "moves the meeting to the later slot in the first turn, before the colleague's clash existed",
            "moved-after-clash", rule="mover-thanks", also=first_booking_unchecked),
]
