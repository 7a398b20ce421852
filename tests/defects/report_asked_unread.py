"""An answer asked for in other words, read by no check: the user asks for the answer as "apply the restocking policy
from the KB and report", "send me a summary of what you added", "keep me posted", "then confirm what you moved", and
the spec has no check on the reply (the writer read "report" as no request, or dropped the reply check as flaky). The
agent that does the work and says "Done." passes. The reply near misses (`_reply_mutations`) run only on a turn whose
answer is task content (`_mutation_core.reply_is_content`: a check reads it, or the user asks); the asking words
were "tell me", "let me know", "report back", "summarise" and questions, so "and report" and the rest asked for
nothing (the outsider's hunt, `check.drop reply-moves` on inventory_restock_policy 1, defects92 left it). The sound
twin keeps the reply check (the base, or the request reworded with its check kept).
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, with_say

CLASS = "report_asked_unread"
DETECTION = (
    "the reply near misses run on each turn that asks for an answer, the asking words read as a class (tell me, let "
    "me know, report, confirm what, send me a summary, keep me posted, fill me in, ...) beside questions; a reply "
    "dropped that every check still passes is content nothing reads"
)
GATE, CODE = "mutations", "content_unchecked"


def _reword(old: str, new: str) -> Any:
    def edit(spec: Spec) -> None:
        turn = spec["turns"][0]
        if old not in turn["content"]:
            raise CorpusError(f"{spec['capability']}: the request does not say {old!r}")
        turn["content"] = turn["content"].replace(old, new)
    return edit


def _unread(reword: Any) -> Any:
    def edit(spec: Spec) -> None:
        if reword is not None:
            reword(spec)
        kept = [c for c in spec["checks"] if c["rule"]["kind"] not in ("text", "reply_states")]
        if len(kept) == len(spec["checks"]):
            raise CorpusError(f"{spec['capability']}: no check reads the reply")
        spec["checks"] = kept
    return edit


def _done(spec: Spec) -> list[dict[str, Any]]:
    """Witness: the work done, the answer only "Done."."""
    return with_say(spec, "Done.", 0)


def _defect(cap: str, seed: int, old: str | None = None, new: str | None = None, how: str = "and report") -> Defect:
    reword = _reword(old, new) if old is not None and new is not None else None
    return Defect(CLASS, f"{cap}-{how.replace(' ', '-')}-{seed}", f"synth:{cap}@{seed}",
                  f"asked in other words than \"tell me\" ({how!r}), answers only \"Done.\"", breaks=_unread(reword),
                  fix=reword, witness=_done, gate=GATE, code=CODE)


_REPORT = "the published one) and report."
_TOLD = "Tell me what you added."
DEFECTS = [
    _defect("inventory_restock_policy", 1), _defect("inventory_restock_policy", 3),
    _defect("inventory_restock_policy", 4),
    _defect("inventory_restock_policy", 7, _REPORT, "the published one) and send me a short summary.", "summary"),
    _defect("inventory_restock_policy", 10, _REPORT, "the published one), then confirm what you moved.", "confirm what"),
    _defect("inventory_restock_policy", 12, _REPORT, "the published one) and keep me posted.", "keep me posted"),
    _defect("todo_track_mail_requests", 1, _TOLD, "Send me a summary of what you added.", "summary"),
    _defect("todo_track_mail_requests", 2, how="list what"),  # "Then list what you added."
    _defect("todo_track_mail_requests", 3, _TOLD, "Then fill me in.", "fill me in"),
    _defect("scheduler_pause_failing_jobs", 1, "Tell me when each one last ran", "Report when each one last ran",
            "report when"),
    _defect("scheduler_pause_failing_jobs", 2, "Tell me when each of them last ran",
            "Keep me posted on when each of them last ran", "keep me posted"),
    _defect("incident_investigate_fix", 1, "Tell me which service caused it", "Confirm which service caused it",
            "confirm which"),
]
