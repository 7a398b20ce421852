"""Silent change ignored: state changes between user turns (a bot re-applies the fault, an owner goes on leave,
a colleague answers), but no check needs the work of the turn that follows, so an agent can ignore it."""

from __future__ import annotations

from tests.defects._core import CorpusError, Defect, Spec, play, reference

CLASS = "silent_change"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "leave the last turn's work undone (stop_early / drop the writes after a state change); if the checks still pass, the change is unchecked"
)


def _idle_last_turn(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    """The reference with no tool call in the last turn (it still answers)."""
    ref = reference(spec)
    ref[-1]["steps"] = [s for s in ref[-1]["steps"] if not s.get("call")] or [{"say": "Okay."}]
    return ref


def _unchecked_last_turn(spec: Spec) -> None:
    """Drop the checks that only the last turn's work satisfies."""
    result = play(spec, _idle_last_turn(spec))
    failing = {c.id for c in result.checks if not c.passed}
    if not failing or len(failing) == len(spec["checks"]):
        raise CorpusError(f"{spec['capability']}: no check isolates the last turn's work")
    spec["checks"] = [c for c in spec["checks"] if c["id"] not in failing]


def _defect(name: str, base: str, gets_away_with: str) -> Defect:
    return Defect(CLASS, name, base, gets_away_with, breaks=_unchecked_last_turn, witness=_idle_last_turn)


DEFECTS = [
    _defect("bot-reapplies-config", "example:incident_rollback",
            "ignores the config the bot silently re-applied; checkout stays broken"),
    _defect("release-rolled-out-again", "synth:adapt_silent_change@1",
            "ignores the bad release rolled out again between turns"),
    _defect("owner-on-leave", "synth:adapt_announced_change@1",
            "leaves the ticket with the owner who went on leave"),
    _defect("delegate-answered", "synth:delegate_and_follow_up@1",
            "never acts on the delegate's answer"),
    _defect("manager-approved", "synth:access_request_approval@1",
            "never grants the access the manager approved"),
    _defect("namesake-chosen", "synth:clarify_ambiguous_request@1",
            "never sends the file once the user said which Lucas"),
]

# Outsider defects (session 19): the multi-turn capabilities with the fewest cases, their follow-up turn unchecked.
DEFECTS += [
    _defect("suggested-delegate-unchecked", "synth:delegate_and_follow_up@2",
            "does nothing when the delegate declines and recommends someone else: no check reads the second turn"),
    _defect("backup-handover-unchecked", "synth:adapt_announced_change@2",
            "leaves the ticket with the owner who is now on leave: the announced change's turn is unchecked"),
    _defect("approval-grant-unchecked", "synth:access_request_approval@2",
            "never grants the access once the manager approved: the approval turn is unchecked"),
]
