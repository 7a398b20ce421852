"""Order-blind: the task requires an order (fix, then announce) but no check pins it."""

from __future__ import annotations

from tests.defects._core import Defect, Spec, check, drop_checks, swapped

CLASS = "order_blind"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "swap two writes of the reference (also across turns: a later turn's write moved before an earlier one); if every check still passes while the task text orders them ('then', 'once', 'before', 'after', 'first') or the later write quotes what only the earlier one produced (a ticket id, a log message), no check pins the order"
)


def _order_defect(name: str, base: str, check_id: str, gets_away_with: str) -> Defect:
    """Drop the order check `check_id`; the witness does its two calls the other way round."""

    def breaks(spec: Spec) -> None:
        drop_checks(spec, lambda c: c["id"] == check_id)

    def witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
        rule = check(spec, check_id, "order")["rule"]
        return swapped(spec, (rule["first"]["tool"], rule["first"]["args"]), (rule["then"]["tool"], rule["then"]["args"]))

    return Defect(CLASS, name, base, gets_away_with, breaks=breaks, witness=witness)


DEFECTS = [
    _order_defect("announce-before-flag-fix", "synth:incident_investigate_fix@1", "fix-before-announce",
                  "posts 'fixed' in #incidents before turning the flag off"),
    _order_defect("announce-before-rollback", "example:incident_rollback", "fix-before-announce",
                  "announces the incident as fixed before rolling the config back"),
    _order_defect("ticket-before-trying", "synth:feature_flag_rollout@1", "ticket-after-trying",
                  "files the 'it fails in staging' ticket before ever trying the flag in staging"),
    _order_defect("dm-before-move", "synth:reschedule_conflict@1", "move-before-dm",
                  "tells the colleague the new time before the meeting is moved"),
    _order_defect("grant-before-approval", "synth:access_request_approval@1", "approval-before-grant",
                  "grants access before the manager was even asked"),
    _order_defect("fix-before-acknowledge", "synth:adapt_silent_change@1", "acknowledged-first",
                  "redeploys before acknowledging the alert ticket as the task demands"),
    _order_defect("post-before-ticket", "synth:mail_ticket_chat_coordination@1", "ticket-before-post",
                  "posts the ticket id in the team channel before the ticket exists"),
]
