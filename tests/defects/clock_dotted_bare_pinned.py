"""Times of day the user gave on the 24-hour clock with a colon ("my on-call shift ends at 02:30 (America/Toronto)",
"working hours 09:00-17:00") that the writer relays dotted with a one-digit hour and no word before it that places a
time: the zone after it ("My shift ended 2.30 (America/Toronto).") or the range's other end ("Everyone's working hours
are 9.00-17.00 local.", "9.00\u201317.00", "9.00 to 17.00"). The writer's handoff post, booking mail or DM says so,
and the check on it wants the writer's "9.00". An honest agent that copies "09:00" fails. Nobody asked for a notation.
The sound twin accepts either.

The format replay read a dotted time with a one-digit hour only after a word that places a time ("at 2.30", "until
9.00"; never bare: "it costs 9.30", "version 9.30"), and the end of a range after a hyphen never ("09:00-17:00" gave
09:00 alone), so it never wrote the user's time back: main accepted every case here.

Caught by the format replay (`format_pinned`, `_user_formats`), which now also reads such a time where what follows
it places it: a zone's abbreviation or its IANA name in parentheses ("9.30 UTC", "2.30 (America/Toronto)"), or a
dash, `to`, `until` or `till` before another time ("9.00-17.00", "9.00 to 17.30"; not before a currency, `%` or an
hour unit: a price or a length), and the end of a range of times after a dash ("14:30-15:00").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, reference
from tests.defects.clock_notation_pinned import dotted_short
from tests.defects.format_pinned import _step, _text_of, _user_when

CLASS = "clock_dotted_bare_pinned"
DETECTION = (
    "read a dotted time with a one-digit hour where what follows it places it (a zone, 'UTC' or '(America/Toronto)'; "
    "a dash or 'to' before another time) and a range's end after a dash; replay the reference with each time its "
    "messages write that the user wrote in another notation, written as the user did; where a check the reference "
    "passes then fails, it pins the writer's notation"
)

# Where the writer relays the user's time: (tool and its text argument, the app a check on the message reads, the
# sentence that relays it: {t} the time, {zone} the user's IANA zone).
Site = tuple[str, str, str, str]
HANDOFF = "chat_post_message", "text", "chat", "My shift ended {t} ({zone})."
BOOKING_DASH = "mail_send", "body", "mail", "Everyone's working hours are {t}-17.00 local."
BOOKING_EN = "mail_send", "body", "mail", "Everyone's working hours: {t}\u201317.00 local."
BOOKING_TO = "mail_send", "body", "mail", "Working hours are {t} to 17.00 local for each of you."
MOVED_DASH = "chat_send_dm", "text", "chat", "My working day is {t}-17.00."
MOVED_EN = "chat_send_dm", "text", "chat", "My working hours: {t}\u201317.00."
MOVED_TO = "chat_send_dm", "text", "chat", "I work {t} to 17.00."


def _zone(spec: Spec) -> str:
    m = re.search(r"\(([A-Z][A-Za-z_]+/[A-Za-z_/]+)\)", spec["turns"][0]["content"])
    if m is None:
        raise CorpusError(f"{spec['capability']}: the user names no zone")
    return m.group(1)


def _edit(site: Site, defect: bool) -> Callable[[Spec], None]:
    """The reference relays the user's time dotted with a one-digit hour; a check pins it (the defect) or accepts
    the user's notation too (the twin)."""
    tool, arg, app, sentence = site

    def edit(spec: Spec) -> None:
        user = _user_when(spec, 0, "time")
        mine = dotted_short(user)
        if len(mine) != 4:
            raise CorpusError(f"{spec['capability']}: the user's time {user.shown} has a two-digit hour")
        step = _step(spec, 0, tool)
        step["call"]["arguments"][arg] = f"{_text_of(step, arg).rstrip()} " + \
            sentence.format(t=mine, zone=_zone(spec) if "{zone}" in sentence else "")
        relayed_check(spec, (app, arg), mine, user.shown, defect, ("time-relayed", "the time the user gave is relayed"))
    return edit


def relayed_check(spec: Spec, where_to: tuple[str, str], mine: str, theirs: str, defect: bool,
                  named: tuple[str, str]) -> None:
    """Add a check that a sent message (`where_to`: the app and its text field) holds the writer's form `mine` (the
    defect) or either form, the user's `theirs` too (the twin); `named`: the check's id and description."""
    app, arg = where_to
    either = f"(?i)(?:{re.escape(mine)}|{re.escape(theirs)})"
    where: list[dict[str, Any]] = [{"field": arg, "op": "contains", "value": mine} if defect else
                                   {"field": arg, "op": "matches", "value": either}]
    if app == "mail":
        where.insert(0, {"field": "folder", "value": "sent"})
    spec["checks"].append({"id": named[0], "description": named[1],
                           "rule": {"kind": "records", "app": app, "table": "messages", "where": where,
                                    "count_op": "gte", "count": 1}})


def _honest(site: Site) -> Callable[[Spec], list[dict[str, Any]]]:
    """The twin's reference with the time written as the user wrote it."""
    tool, arg, _, _ = site

    def witness(spec: Spec) -> list[dict[str, Any]]:
        user = _user_when(spec, 0, "time")
        ref = reference(spec)
        step = _step({"reference": ref, "capability": spec["capability"]}, 0, tool)
        step["call"]["arguments"][arg] = _text_of(step, arg).replace(dotted_short(user), user.shown)
        return ref
    return witness


def _pair(name: str, base: str, site: Site, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_edit(site, True), fix=_edit(site, False), witness=_honest(site),
                  witness_kind="honest", gate="mutations", code="format_pinned")


_SHIFT = "fails the agent that posts the shift's end as the user wrote it ('{u}'), not as '{w} (zone)'"
_HOURS = "fails the agent that mails the working hours as the user wrote them ('09:00'), not as '{w}'"
_TOLD = "fails the agent that tells the colleague the hours as the user wrote them ('09:00'), not as '{w}'"

DEFECTS = [
    _pair("handoff-post-zone-1", "synth:oncall_handoff@1", HANDOFF, _SHIFT.format(u="02:30", w="2.30")),
    _pair("handoff-post-zone-2", "synth:oncall_handoff@2", HANDOFF, _SHIFT.format(u="07:00", w="7.00")),
    _pair("handoff-post-zone-4", "synth:oncall_handoff@4", HANDOFF, _SHIFT.format(u="09:00", w="9.00")),
    _pair("handoff-post-zone-11", "synth:oncall_handoff@11", HANDOFF, _SHIFT.format(u="08:45", w="8.45")),
    _pair("booking-mail-dash-1", "synth:schedule_meeting_timezones@1", BOOKING_DASH, _HOURS.format(w="9.00-17.00")),
    _pair("booking-mail-en-dash-2", "synth:schedule_meeting_timezones@2", BOOKING_EN,
          _HOURS.format(w="9.00\u201317.00")),
    _pair("booking-mail-to-3", "synth:schedule_meeting_timezones@3", BOOKING_TO, _HOURS.format(w="9.00 to 17.00")),
    _pair("booking-mail-dash-4", "synth:schedule_meeting_timezones@4", BOOKING_DASH, _HOURS.format(w="9.00-17.00")),
    _pair("moved-dm-dash-1", "synth:reschedule_conflict@1", MOVED_DASH, _TOLD.format(w="9.00-17.00")),
    _pair("moved-dm-en-dash-2", "synth:reschedule_conflict@2", MOVED_EN, _TOLD.format(w="9.00\u201317.00")),
    _pair("moved-dm-to-3", "synth:reschedule_conflict@3", MOVED_TO, _TOLD.format(w="9.00 to 17.00")),
    _pair("moved-dm-dash-4", "synth:reschedule_conflict@4", MOVED_DASH, _TOLD.format(w="9.00-17.00")),
]
