"""Any for all: a reply check lists the facts the task asks the agent to state, all of them, under `any_of`, so a reply
stating one passes: the titles of the to-dos added (the user asked to hear every task), the broken page and its status
code, the items restocked and their quantities, the failing request, the cause and the fix of an incident. The sound
twin lists them under `all_of`.

Main's replay of one record's fact of several (`one_of_distinct_facts` in `validate/_lenient_answers.py`) kept one
term of an `any_of` check only where every stated term is exactly a field of a different record of the initial world
(the last runs of two jobs): the titles of the to-dos the task adds are the run's (`vendor shortlist (msg-225)`), and a
term that is a list of alternatives (`["GLOVE-96", "safety gloves"]`, `["rolled", "rollback"]`) was never held by one
record. Caught by the same replay, which now also reads the records the run made (a term its text holds as a phrase)
and takes terms as different facts where one of them is a list of alternatives (the writer grouped each fact's
alternatives).
"""

from __future__ import annotations

import re
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, reference

CLASS = "any_for_all"
DETECTION = (
    "for a text check whose `any_of` terms the reply states two or more of, each held by a different record (of the "
    "world or made by the run), or one of them a list of alternatives: replay the reply keeping the first term only; "
    "a check that still passes accepts part of what the task asks for"
)


def _any(check_id: str):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        rule = check(spec, check_id, "text")["rule"]
        if len(rule.get("all_of", [])) < 2:
            raise CorpusError(f"{spec['capability']}: {check_id} lists fewer than two facts")
        rule["any_of"], rule["all_of"] = rule["all_of"], []
    return breaks


def _first_only(check_id: str):  # type: ignore[no-untyped-def]
    """The cheat: the reference with the checked reply stating the check's first fact only (the others cut out)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        rule = check(spec, check_id, "text")["rule"]
        terms = [[t] if isinstance(t, str) else t for t in rule["all_of"]]
        ref = reference(spec)
        turn = ref[rule["turn"] if rule.get("turn") is not None else -1]
        say = next(s for s in reversed(turn["steps"]) if s.get("say"))
        for alts in terms[1:]:
            for alt in sorted(alts, key=len, reverse=True):
                say["say"] = re.sub(re.escape(alt), "", say["say"], flags=re.IGNORECASE)
        return ref
    return witness


def _case(name: str, base: str, check_id: str, away: str, witness: bool = True) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_any(check_id), witness=_first_only(check_id) if witness else None,
                  gate="mutations", code="content_unchecked")


_TASKS = "tells the user about one of the tasks it added; the check wants any of their titles"
_PAGE = "reports the broken page without its status code (or the code alone); the check wants either"
_MOVES = "names one restocked item and none of the quantities; the check wants any of the items or numbers"
DEFECTS = [
    *(_case(f"tasks-one-named-{seed}", f"synth:todo_track_mail_requests@{seed}", "reply-lists-tasks", _TASKS)
      for seed in (1, 2, 3)),
    *(_case(f"page-or-code-{seed}", f"synth:web_page_audit@{seed}", "reply-count", _PAGE) for seed in (1, 2, 3)),
    *(_case(f"moves-one-named-{seed}", f"synth:inventory_restock_policy@{seed}", "reply-moves", _MOVES)
      for seed in (1, 3)),
    _case("cause-or-fix", "example:incident_rollback", "reply-explains-cause",
          "says it rolled back, with no word of the failing request or the cause; the check wants any of them (an "
          "optional check: the twin takes its credit, not the pass, so no witness episode)", witness=False),
]
