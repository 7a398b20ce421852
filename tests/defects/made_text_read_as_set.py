"""A record the agent makes, its text read as "set at all": the check that finds one of several to-dos keeps the list,
the due time and the state, and reads the title's words as `title matches .` (the author's "it has a title"). Each
to-do's due time still tells them apart, so every in-place near miss (a due time shifted, a list changed, a to-do left
out or made twice) fails; but an agent that titles the to-do for one request with another request's words passes:
the list holds two to-dos for one request and none for the other. web_page_audit's to-do for a broken page is read
the same way by its address (`title contains 301` kept): a to-do naming another page passes. The sound twin is the
shipped spec (`title contains` the request's words, the page's address). Found by the outsider hunt
(`benchmarks/hunt_mutants.py --family d129`, kind `cond_present`)."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls, checks, reference

CLASS = "made_text_read_as_set"
DETECTION = (
    "for each write that makes a record (a to-do, a ticket, a message) whose text argument names a field that "
    "completion records checks read with `contains` terms, replay the reference with that argument copied from "
    "another write of the same tool whose text holds other named terms; a replay that still passes reads the text "
    "as set, not as what it says: reported `sibling_text_unchecked`"
)


def _title_check(spec: Spec) -> tuple[dict[str, Any], dict[str, Any]]:
    for chk in checks(spec, "records", app="todo", table="tasks"):
        for cond in chk["rule"]["where"]:
            if cond["field"] == "title" and cond.get("op") == "contains" and isinstance(cond["value"], str):
                return chk, cond
    raise CorpusError(f"{spec['capability']}: no to-do check reads a title's words")


def _as_set(spec: Spec) -> None:
    _chk, cond = _title_check(spec)
    cond["op"], cond["value"] = "matches", "."


def _title_respelled(spec: Spec) -> list[dict[str, Any]]:
    """The reference, the checked to-do's words (its request, its page) replaced by another to-do's check's."""
    _chk, cond = _title_check(spec)
    mine = cond["value"]
    others = [w["value"] for c in checks(spec, "records", app="todo", table="tasks") for w in c["rule"]["where"]
              if w["field"] == "title" and w.get("op") == "contains" and isinstance(w["value"], str)
              and w["field"] == cond["field"] and w["value"] != mine and not w["value"].isdigit()]
    ref = reference(spec)
    for t, s, c in calls(spec, "todo_add_task"):
        title = str(c["arguments"].get("title", ""))
        if mine.casefold() in title.casefold():
            other = next((o for o in others if o.casefold() not in title.casefold()), None)
            if other is None:
                break
            at = title.casefold().index(mine.casefold())
            ref[t]["steps"][s]["call"]["arguments"]["title"] = title[:at] + other + title[at + len(mine):]
            return ref
    raise CorpusError(f"{spec['capability']}: no to-do of the reference to title as another")


def _defect(cap: str, seed: int, away: str) -> Defect:
    return Defect(CLASS, f"{cap}-title-set-{seed}", f"synth:{cap}@{seed}", away, breaks=_as_set,
                  witness=_title_respelled, gate="mutations", code="sibling_text_unchecked")


_REQUEST = ("titles the to-do for one request with another request's words: the check reads only that a title is "
            "there")
_PAGE = "titles the to-do for a broken page with another page's address (its status code kept)"
DEFECTS = [_defect("todo_track_mail_requests", 1, _REQUEST), _defect("todo_track_mail_requests", 2, _REQUEST),
           _defect("todo_track_mail_requests", 3, _REQUEST), _defect("web_page_audit", 4, _PAGE),
           _defect("web_page_audit", 8, _PAGE), _defect("web_page_audit", 3, _PAGE)]
