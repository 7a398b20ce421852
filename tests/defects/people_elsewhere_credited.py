"""A check that the agent read the calendars, met by a free/busy look-up of other people.

The reference reads free/busy of the people the meeting is for (`calendar_free_busy` with `people` the user and
the attendees, in the window the task names) and the writer checks that the agent read it with a matcher that pins
the window (`end`) but not whose calendars: an agent that asks about other people (the read succeeds) and books
from memory passes. `read_elsewhere_credited`'s moves (defects91, defects98) put a record argument or an address
onto another one, a window a week later, words onto other words, but left a list of addresses or ids as it was,
so whom a free/busy read asked about was never moved. Now a list whose every item is a record's id or address is
moved whole onto other records the reference does not name. The sound twin's matcher names the people too.
"""

from __future__ import annotations

from typing import Any

from coworkenv.env import base_world
from coworkenv.loading import parse_spec
from tests.defects._core import CorpusError, Defect, Spec, reference
from tests.defects.read_elsewhere_credited import _consulted

CLASS = "people_elsewhere_credited"
GATE, CODE = "mutations", "read_elsewhere_credited"
DETECTION = ("replay the reference with each needed read whose list argument names records or people (free/busy "
             "of the attendees) moved whole onto other people the world holds (the read succeeds): a call matcher "
             "that pins the window but not the list credits a look-up of anyone's calendar")
TOOL = "calendar_free_busy"


def _read(ref: list[dict[str, Any]], nth: int) -> dict[str, Any]:
    hits = [st["call"] for turn in ref for st in turn["steps"] if st.get("call") and st["call"]["name"] == TOOL]
    if len(hits) <= nth:
        raise CorpusError(f"{len(hits)} {TOOL} reads")
    return hits[nth]  # type: ignore[no-any-return]


def _others(spec: Spec, people: list[str]) -> list[str]:
    """As many other people's addresses as `people` (the first by id the reference does not name)."""
    named = {v for turn in spec["reference"] for st in turn["steps"] if st.get("call")
             for a in st["call"]["arguments"].values() for v in (a if isinstance(a, list) else [a])
             if isinstance(v, str)}
    records = sorted(base_world(parse_spec(spec)).table("directory", "people"), key=lambda p: p.id)
    others = [p.email for p in records if p.email and p.email not in named]
    if len(others) < len(people):
        raise CorpusError(f"{spec['capability']}: too few other people")
    return [str(o) for o in others[:len(people)]]


def _asked_others(nth: int, kept: int):  # type: ignore[no-untyped-def]
    """Witness: the reference with its `nth` free/busy read asking about other people than all but the `kept`th
    (same window)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        call = _read(ref, nth)
        people = call["arguments"]["people"]
        others = iter(_others(spec, people))
        call["arguments"]["people"] = [p if i == kept else next(others) for i, p in enumerate(people)]
        return ref
    return witness


def _pinned(nth: int, kept: int | None, where: bool):  # type: ignore[no-untyped-def]
    """A required check that the agent read free/busy of the `kept`th person (None: all the reference's people), as
    `args` (a list matches as a subset) or `where` contains."""
    def edit(spec: Spec) -> None:
        people = _read(spec["reference"], nth)["arguments"]["people"]
        wanted = list(people) if kept is None else [people[kept]]
        matcher: dict[str, Any] = {"tool": TOOL}
        if where:
            matcher["where"] = [{"field": "people", "op": "contains", "value": wanted}]
        else:
            matcher["args"] = {"people": wanted}
        _consulted(matcher)(spec)
    return edit


def _defect(name: str, base: str, kept: int, nth: int = 0, where: bool = False) -> Defect:
    return Defect(CLASS, name, base, f"reads free/busy of person {kept} of the meeting and of other people in place "
                  "of the rest, books from memory, and passes: the check that the agent read the calendars pins one "
                  "person of several", breaks=_pinned(nth, kept, where), fix=_pinned(nth, None, where),
                  witness=_asked_others(nth, kept), witness_kind="cheat", gate=GATE, code=CODE)


DEFECTS = [
    _defect("attendees-user-only", "synth:schedule_meeting_timezones@1", 0),
    _defect("attendees-user-only-5", "synth:schedule_meeting_timezones@5", 0, where=True),
    _defect("mate-only", "synth:reschedule_conflict@3", 1),
    _defect("user-only-reschedule", "synth:reschedule_conflict@5", 0, where=True),
    _defect("attendee-one-of-four", "synth:schedule_meeting_timezones@6", 2),
]
