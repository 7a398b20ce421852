"""The work the user asks to be told of, unread: "tell me what you moved", "tell me the time you picked", "email the
attendees the new time, and tell me what it is", "tell me what you changed". The asked facts are the values the
agent's own calls wrote (the units moved, the new start, the new assignee and priority), not fields a word of the
request names, and the reply check reads the answer's other facts (the items, the date, the people, the tickets, the
time the meeting had before) but not them: an answer that misreports the work passes. Written declaratively (a text
check), where no near miss left those values out: the asked-fact probes were made for Python graders only, and the
written values were asked only where a word named their field or a time.
"""

from __future__ import annotations

import re
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls, check, with_say

CLASS = "written_fact_unread"
DETECTION = (
    "near miss per turn whose request asks what the agent did (`what you moved`, `what you changed`) or a time by a "
    "generic word: the answer without the values the turn's writes passed (a number, a new field value; the clock "
    "times of the instants written, in any zone); if no answer fails a check but that answer passes every one, the "
    "checks read the answer but not the work it reports"
)
GATE, CODE = "mutations", "asked_unchecked"


def _answer(spec: Spec, turn: int = 0) -> str:
    return [s["say"] for s in spec["reference"][turn]["steps"] if s.get("say")][-1]  # type: ignore[no-any-return]


def _restated(pattern: str, wrong: str, turn: int = 0):  # type: ignore[no-untyped-def]
    """Witness: the reference's answer of `turn` with every `pattern` match stated as `wrong` (the work misreported)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        said = _answer(spec, turn)
        cut = re.sub(pattern, wrong, said)
        if cut == said:
            raise CorpusError(f"{spec['capability']}: the answer has no {pattern!r}")
        return with_say(spec, cut, turn)
    return witness


def _text_check(spec: Spec, has: Any) -> dict[str, Any]:
    return check(spec, kind="text", where=lambda c: bool(has(c["rule"])))


# -- inventory_restock_policy ("Tell me what you moved"): the reply check keeps the items, not how many moved.
def _items_only(spec: Spec) -> None:
    rule = _text_check(spec, lambda r: any(isinstance(t, str) and t.isdigit() for t in r["all_of"]))["rule"]
    rule["all_of"] = [t for t in rule["all_of"] if not (isinstance(t, str) and t.isdigit())]


# -- restock_store_through_declared_tools ("Tell me what you moved and how many are on the Lisbon shelf now"): the
# pattern reads the shelf's count, not the units moved.
def _shelf_only(spec: Spec) -> None:
    moved = next(str(c["arguments"]["units"]) for _, _, c in calls(spec, "shop_transfer_stock"))
    rule = _text_check(spec, lambda r: r.get("regex") and moved in r["regex"])["rule"]
    counts = [n for n in re.findall(r"\d+", rule["regex"]) if n != moved]
    if not counts:
        raise CorpusError(f"{spec['capability']}: the pattern reads no other count")
    rule["regex"] = rf"\b{counts[0]}\b"


# -- calendar_reschedule_across_time_zones ("email the attendees the new time, and tell me what it is"): the reply
# checks read the people emailed (or the time the meeting had before), not the new time.
def _no_time_read(spec: Spec, regex: str | None = None) -> None:
    spec["checks"] = [c for c in spec["checks"]
                      if not (c["rule"]["kind"] == "reply_states" and c["rule"]["source"]["field"] == "start")]
    _text_check(spec, lambda r: r.get("regex") and r.get("all_of"))["rule"]["regex"] = regex


_FROM_TO = ("I moved the Q2 roadmap review from Tuesday 14 April 15:00 Berlin (13:00 UTC) to Wednesday 15 April "
            "16:00-17:00 Berlin (14:00-15:00 UTC), the earliest slot free for everyone inside their working hours, and "
            "emailed Marcus, Aisha and Tom.")


def _from_to(spec: Spec) -> None:
    """The answer states the old time and the new one (the twin: the checks as shipped)."""
    spec["reference"] = with_say(spec, _FROM_TO, 0)


def _old_time_only(spec: Spec) -> None:
    _from_to(spec)
    _no_time_read(spec, r"\b13:00\b")


# -- schedule_meeting_timezones ("Tell me the time you picked"): the reply check reads the date booked only.
def _date_only(spec: Spec) -> None:
    start = next(c["arguments"]["start"] for _, _, c in calls(spec, "calendar_create_event"))
    if start[:10] not in _answer(spec):
        raise CorpusError(f"{spec['capability']}: the answer does not state {start[:10]}")
    rule = _text_check(spec, lambda r: r["any_of"])["rule"]
    rule["any_of"], rule["all_of"] = [], [start[:10]]


# -- ticket_triage_update, asked "Tell me what you changed.": the answer lists each ticket's new assignee and
# priority, and the reply check reads the tickets named only.
def _changes(spec: Spec) -> list[tuple[str, list[str]]]:
    return [(c["arguments"]["ticket_id"], [str(v) for k, v in c["arguments"].items() if k != "ticket_id"])
            for _, _, c in calls(spec, "tickets_update")]


def _told_changes(tickets_only: bool):  # type: ignore[no-untyped-def]
    def edit(spec: Spec) -> None:
        changes = _changes(spec)
        if not changes:
            raise CorpusError(f"{spec['capability']}: no ticket updated")
        spec["turns"][0]["content"] += " Tell me what you changed."
        spec["reference"] = with_say(spec, "Triaged: " + "; ".join(f"{t} {' '.join(v)}" for t, v in changes) + ".", 0)
        terms = [t for t, _ in changes] + ([] if tickets_only else sorted({v for _, vs in changes for v in vs}))
        spec["checks"].append({"id": "reply-changes", "description": "the reply says what changed", "role": "completion",
                               "weight": 1.0, "rule": {"kind": "text", "turn": 0, "all_of": terms, "words": True}})
    return edit


def _defect(name: str, base: str, what: str, breaks: Any, witness: Any, fix: Any = None) -> Defect:
    return Defect(CLASS, name, base, what, breaks=breaks, fix=fix, witness=witness, gate=GATE, code=CODE)


DEFECTS = [
    *(_defect(f"moved-units-unread-{seed}", f"synth:inventory_restock_policy@{seed}",
              "misreports how many units it moved (the reply check reads the items only)", _items_only,
              _restated(r"\b(\d+) x ", r"1\g<1>0 x "))
      for seed in (2, 5, 6)),
    _defect("moved-units-unread-declared", "example:restock_store_declared_tools",
            "misreports how many mugs it moved (the pattern reads the shelf's count only)", _shelf_only,
            _restated(r"moved 20\b", "moved 12")),
    _defect("new-time-unread", "example:meeting_reschedule",
            "gives the attendees' new time wrong (the reply checks read the people emailed only)", _no_time_read,
            _restated(r"14:00-15:00 UTC", "12:00-13:00 UTC")),
    _defect("new-time-old-read", "example:meeting_reschedule",
            "gives the new time wrong (the reply check reads the time the meeting had before)", _old_time_only,
            _restated(r"16:00-17:00 Berlin \(14:00-15:00 UTC\)", "12:00-13:00 Berlin (10:00-11:00 UTC)"), fix=_from_to),
    *(_defect(f"picked-time-unread-{seed}", f"synth:schedule_meeting_timezones@{seed}",
              "gives another time for the meeting it booked (the reply check reads the date only)", _date_only,
              _restated(r"T\d\d:\d\d", "T11:11"))
      for seed in (1, 2, 3)),
    *(_defect(f"changes-unread-{seed}", f"synth:ticket_triage_update@{seed}",
              "misreports the new assignees and priorities (the reply check reads the tickets named only)",
              _told_changes(True), _restated(r" u-[a-z-]+ ", " u-nobody "), fix=_told_changes(False))
      for seed in (1, 2)),
]
