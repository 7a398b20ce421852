"""Lenient scoring: the v2 score composition set so that half the work passes (a pass threshold well below the
work the task asks for: one piece of the work can be skipped and the episode still passes)."""

from __future__ import annotations

from tests.defects._core import Defect, Spec, reference

CLASS = "lenient_scoring"
DETECTION = (
    "drop a write (or a fact of the answer) from the reference; if the episode still passes because a threshold or "
    "a pass_score lets partial work through, the scoring is lenient"
)


def _threshold(value: float):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        spec.setdefault("scoring", {})["pass_threshold"] = value
    return breaks


def _without_last_write(tool: str):  # type: ignore[no-untyped-def]
    """The reference without its last call of `tool` (the agent skips one piece of the work)."""

    def witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
        ref = reference(spec)
        for turn in reversed(ref):
            for i in range(len(turn["steps"]) - 1, -1, -1):
                c = turn["steps"][i].get("call")
                if c and c["name"] == tool:
                    del turn["steps"][i]
                    return ref
        return ref
    return witness


DEFECTS = [
    Defect(CLASS, "rollback-threshold", "example:incident_rollback",
           "passes without noting the regression on the ticket: the threshold is 0.75",
           breaks=_threshold(0.75), witness=_without_last_write("tickets_comment")),
    Defect(CLASS, "meeting-threshold", "synth:schedule_meeting_timezones@1",
           "books the meeting but never mails the attendees: the threshold is 0.7",
           breaks=_threshold(0.7), witness=_without_last_write("mail_send")),
    Defect(CLASS, "triage-threshold", "synth:ticket_triage_update@1",
           "triages two tickets of three: the threshold is 0.6",
           breaks=_threshold(0.6), witness=_without_last_write("tickets_update")),
    Defect(CLASS, "handoff-threshold", "synth:oncall_handoff@1",
           "hands over without telling the channel: the threshold is 0.7",
           breaks=_threshold(0.7), witness=_without_last_write("chat_post_message")),
    Defect(CLASS, "report-threshold", "example:report_from_files",
           "never posts the week's headline for the leads: the threshold is 0.85",
           breaks=_threshold(0.85), witness=_without_last_write("chat_post_message")),
    Defect(CLASS, "inbox-threshold", "synth:inbox_triage_reply@1",
           "archives the mails but never answers the question: the threshold is 0.5",
           breaks=_threshold(0.5), witness=_without_last_write("mail_send")),
]
