"""Times of day the user gave on the 24-hour clock with a colon ("my on-call shift ends at 02:30", "working hours
(09:00-17:00)") that the writer relays in another clock notation: dotted ("02.30", "14.30 Uhr", the British, German
and Nordic way), military ("0230h", "0900 hrs", "1430 hours") or dotted on the twelve-hour clock ("2.30 am",
"11.15pm"); the writer's handoff post, booking mail or DM says so, and the check on it wants the writer's notation.
An honest agent that copies "02:30" fails. Nobody asked for a notation. The sound twin accepts either.

The format replay read a time with a colon ("15:00", "2:30 am") or a bare hour ("3pm"): it took "0230h" for a
duration of 230 hours (too long to be one, so nothing) and "02.30" for the start of a phone number dialled at home
(too short to be one), so it never wrote the user's time back: main accepted every case here.

Caught by the format replay (`format_pinned`, `_user_formats`), which now reads four digits followed by `h`, `hrs` or
`hours` as a military time, a dotted time with a two-digit hour (not followed by a currency, `%` or an hour unit:
a sum, a share or a duration) and a dotted time on the twelve-hour clock, and writes the user's time back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import Defect, Spec, reference
from tests.defects.format_pinned import When, _step, _text_of, _user_when

CLASS = "clock_notation_pinned"
DETECTION = (
    "read times of day in every clock notation ('02.30', '14.30 Uhr', '0230h', '0900 hrs', '2.30 am'); replay the "
    "reference with each time its messages and replies write that the user wrote in another notation, written as "
    "the user did; where a check the reference passes then fails, it pins the writer's notation"
)
Writer = Callable[[When], str]


def dotted(when: When) -> str:
    """02:30 as "02.30"."""
    _, h, m = when.values[0]
    return f"{h:02d}.{m:02d}"


def dotted_short(when: When) -> str:
    """02:30 as "2.30", 09:00 as "9.00" (dotted, the hour without its leading zero)."""
    _, h, m = when.values[0]
    return f"{h}.{m:02d}"


def dotted_uhr(when: When) -> str:
    """09:00 as "09.00 Uhr"."""
    return f"{dotted(when)} Uhr"


def military(when: When) -> str:
    """02:30 as "0230h"."""
    _, h, m = when.values[0]
    return f"{h:02d}{m:02d}h"


def military_hrs(when: When) -> str:
    """02:30 as "0230 hrs"."""
    return f"{military(when)[:-1]} hrs"


def twelve_dotted(when: When) -> str:
    """02:30 as "2.30 am", 23:15 as "11.15 pm"."""
    _, h, m = when.values[0]
    return f"{h % 12 or 12}.{m:02d} {'pm' if h >= 12 else 'am'}"


# Where the writer relays the user's time: (turn, tool and its text argument, or None for the turn's reply; the app
# and table a check on the message reads; the sentence that relays it).
Site = tuple[int, str | None, str, str, str, str]
HANDOFF: Site = (0, "chat_post_message", "text", "chat", "messages", "My shift ended at {t}.")
BOOKING: Site = (0, "mail_send", "body", "mail", "messages", "Everyone's working hours start at {t}.")
MOVED: Site = (0, "chat_send_dm", "text", "chat", "messages", "My working day starts at {t}.")


def _edit(site: Site, writer: Writer, defect: bool) -> Callable[[Spec], None]:
    """The reference relays the user's time in the writer's notation; a check pins it (the defect) or accepts the
    user's notation too (the twin)."""
    turn, tool, arg, app, table, sentence = site

    def edit(spec: Spec) -> None:
        user = _user_when(spec, turn, "time")
        mine = writer(user)
        step = _step(spec, turn, tool)
        text = f"{_text_of(step, arg).rstrip()} {sentence.format(t=mine)}"
        if step.get("say"):
            step["say"] = text
        else:
            step["call"]["arguments"][arg] = text
        rule: dict[str, Any]
        if tool is None:
            rule = {"kind": "text", "scope": "final", "turn": turn, "all_of": [mine if defect else [mine, user.shown]]}
        else:
            either = f"(?i)(?:{re.escape(mine)}|{re.escape(user.shown)})"
            where = [{"field": arg, "op": "contains", "value": mine} if defect else
                     {"field": arg, "op": "matches", "value": either}]
            if app == "mail":
                where.insert(0, {"field": "folder", "value": "sent"})
            rule = {"kind": "records", "app": app, "table": table, "where": where, "count_op": "gte", "count": 1}
        spec["checks"].append({"id": "time-relayed", "description": "the time the user gave is relayed", "rule": rule})
    return edit


def _honest(site: Site, writer: Writer) -> Callable[[Spec], list[dict[str, Any]]]:
    """The twin's reference with the time written as the user wrote it."""
    turn, tool, arg, _, _, _ = site

    def witness(spec: Spec) -> list[dict[str, Any]]:
        user = _user_when(spec, turn, "time")
        ref = reference(spec)
        step = _step({"reference": ref, "capability": spec["capability"]}, turn, tool)
        text = _text_of(step, arg).replace(writer(user), user.shown)
        if step.get("say"):
            step["say"] = text
        else:
            step["call"]["arguments"][arg] = text
        return ref
    return witness


def _pair(name: str, base: str, site: Site, writer: Writer, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_edit(site, writer, True), fix=_edit(site, writer, False),
                  witness=_honest(site, writer), witness_kind="honest", gate="mutations", code="format_pinned")


_SHIFT = "fails the agent that posts the shift's end as the user wrote it ('{u}'), not as '{w}'"
_HOURS = "fails the agent that mails the working hours as the user wrote them ('09:00'), not as '{w}'"
_TOLD = "fails the agent that tells the colleague the hours as the user wrote them ('09:00'), not as '{w}'"
_HANDOFF = "synth:oncall_handoff@"

DEFECTS = [
    _pair("handoff-post-dotted-1", f"{_HANDOFF}1", HANDOFF, dotted, _SHIFT.format(u="02:30", w="02.30")),
    _pair("handoff-post-military-2", f"{_HANDOFF}2", HANDOFF, military, _SHIFT.format(u="07:00", w="0700h")),
    _pair("handoff-post-military-hrs-3", f"{_HANDOFF}3", HANDOFF, military_hrs, _SHIFT.format(u="HH:MM", w="HHMM hrs")),
    _pair("handoff-post-twelve-dotted-4", f"{_HANDOFF}4", HANDOFF, twelve_dotted, _SHIFT.format(u="09:00", w="9.00 am")),
    _pair("handoff-post-dotted-uhr-5", f"{_HANDOFF}5", HANDOFF, dotted_uhr, _SHIFT.format(u="HH:MM", w="HH.MM Uhr")),
    _pair("handoff-post-dotted-6", f"{_HANDOFF}6", HANDOFF, dotted, _SHIFT.format(u="HH:MM", w="HH.MM")),
    _pair("booking-mail-dotted-1", "synth:schedule_meeting_timezones@1", BOOKING, dotted, _HOURS.format(w="09.00")),
    _pair("booking-mail-military-hrs-2", "synth:schedule_meeting_timezones@2", BOOKING, military_hrs,
          _HOURS.format(w="0900 hrs")),
    _pair("booking-mail-twelve-dotted-3", "synth:schedule_meeting_timezones@3", BOOKING, twelve_dotted,
          _HOURS.format(w="9.00 am")),
    _pair("moved-dm-dotted-1", "synth:reschedule_conflict@1", MOVED, dotted, _TOLD.format(w="09.00")),
    _pair("moved-dm-military-2", "synth:reschedule_conflict@2", MOVED, military, _TOLD.format(w="0900h")),
    # The hour without its leading zero, after the word that places it ("ended at 2.30", "start at 9.00").
    _pair("handoff-post-dotted-short-1", f"{_HANDOFF}1", HANDOFF, dotted_short, _SHIFT.format(u="02:30", w="2.30")),
    _pair("booking-mail-dotted-short-4", "synth:schedule_meeting_timezones@4", BOOKING, dotted_short,
          _HOURS.format(w="9.00")),
    _pair("moved-dm-dotted-short-3", "synth:reschedule_conflict@3", MOVED, dotted_short, _TOLD.format(w="9.00")),
]
