"""A score that is the same for every episode: the completion checks weigh 0 in all.

The pass is "every required check passes"; the score (what training reads) is the weighted share of the completion
checks. An author who thinks the required checks decide everything and gives every completion check weight 0 (the
mutation an outside benchmark's imported spec took unnoticed: its one grader check weighted 0) writes a spec whose
completion is 0 for every episode, the reference's too: the reward is flat (nothing, or only the robustness share
where `robustness_weight` is set, Claw-Eval's 0.2), so an agent that does the whole task and one that does nothing
earn the same (with a `pass_threshold` the reference fails it too, and no gate saw that either).
"""

from __future__ import annotations

from tests.defects._core import Defect, Spec

CLASS = "score_weightless"
DETECTION = (
    "from the score's formula: the completion checks' weights sum to 0, so every episode's "
    "completion is 0 and the score is the same whatever the agent does"
)
GATE, CODE = "references", "failure_unscored"


def _weightless(robustness: float = 0.0):  # type: ignore[no-untyped-def]
    """Every completion check weighted 0 (guards as they were); with `robustness`, Claw-Eval's robustness share."""
    def breaks(spec: Spec) -> None:
        for check in spec["checks"]:
            if check.get("role", "completion") == "completion":
                check["weight"] = 0.0
        if robustness:
            spec.setdefault("scoring", {})["robustness_weight"] = robustness
    return breaks


def _defect(name: str, base: str, what: str, robustness: float = 0.0, threshold: bool = False) -> Defect:
    """`threshold`: the base sets a `pass_threshold`, which the flat score of 0 never reaches (the reference fails
    it too: no episode passes)."""
    share = f"only the robustness share {robustness}" if robustness else "0"
    return Defect(CLASS, name, base, f"{what}: every episode, the reference's and a do-nothing agent's alike, scores "
                  f"{share}", breaks=_weightless(robustness), gate=GATE, code=CODE, reference_sound=not threshold)


DEFECTS = [
    _defect("rollback-weightless", "example:incident_rollback", "the rollback task's checks all weigh 0"),
    _defect("reschedule-weightless", "example:meeting_reschedule", "the reschedule's checks all weigh 0"),
    _defect("report-weightless", "example:report_from_files", "the report's checks all weigh 0"),
    _defect("restock-weightless", "example:restock_store_declared_tools", "the restock's checks all weigh 0",
            threshold=True),
    _defect("triage-declared-weightless", "example:triage_escalation_declared_tools",
            "the escalation's checks all weigh 0"),
    _defect("triage-update-weightless", "synth:ticket_triage_update@1", "the ticket update's checks all weigh 0"),
    _defect("draft-reply-weightless", "synth:draft_only_reply@1", "the draft's checks all weigh 0"),
    _defect("lookup-answer-weightless", "synth:lookup_answer_source@1", "the answer checks all weigh 0"),
    _defect("silent-change-robustness-only", "synth:adapt_silent_change@1",
            "the checks weigh 0 under Claw-Eval's formula", robustness=0.2),
    _defect("flag-rollout-robustness-only", "synth:feature_flag_rollout@1",
            "the rollout's checks weigh 0 under Claw-Eval's formula", robustness=0.2),
]
