"""DST pinned: a local time computed with the zone's offset of the other season. The writer converts the meeting's
UTC time with a fixed offset (Helsinki +2, Berlin +1, Chicago -6), so the DM says "11:00 your time" to Sanna, in
Helsinki, in September (daylight saving: 12:00), the reply tells the Berlin user "09:30 your time" on 31 March (10:30),
the booking mail says "15:00 Berlin" in April (16:00), and the check wants the writer's time. An honest agent that gives the right local time fails; the sound twin wants the time as the
zone reads it on that date."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from tests.defects._core import CorpusError, Defect, Spec, check, reference, with_say
from tests.defects.zone_pinned import zone_of

CLASS = "dst_pinned"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "replay the reference with each time labelled with a zone ('15:00 Berlin', '11:00 your time') that is a known "
    "instant only under the zone's offset of the other season written as the zone reads it on that date; where a "
    "check the reference passes then fails, it wants the writer's fixed offset"
)


def _right_and_stale(iso: str, tz: str) -> tuple[str, str]:
    """(the clock time the zone reads at the instant, the one its offset of the other season gives)."""
    when = datetime.fromisoformat(iso)
    now = when.astimezone(ZoneInfo(tz))
    for days in (91, -91, 182, -182):
        then = (when + timedelta(days=days)).astimezone(ZoneInfo(tz)).utcoffset()
        if then is not None and then != now.utcoffset():
            stale = when.astimezone(ZoneInfo("UTC")) + then
            return now.strftime("%H:%M"), stale.strftime("%H:%M")
    raise CorpusError(f"{tz} keeps one offset all year")


def _last(spec: Spec, tool: str) -> dict[str, Any]:
    found = [st["call"] for turn in spec["reference"] for st in turn["steps"] if st.get("call") and st["call"]["name"] == tool]
    if not found:
        raise CorpusError(f"{spec['capability']}: the reference never calls {tool}")
    return found[-1]["arguments"]  # type: ignore[no-any-return]


def _swap_value(c: dict[str, Any], field: str, old: str, new: str) -> None:
    for w in c["rule"]["where"]:
        if w["field"] == field:
            if old not in w["value"]:
                raise CorpusError(f"check {c['id']!r} does not want {old!r}")
            w["value"] = w["value"].replace(old, new)
            return
    raise CorpusError(f"check {c['id']!r} has no condition on {field!r}")


# -- the DM telling the colleague the new time "in their time zone" ---------------------------------------------------
def _dm_stale(spec: Spec) -> None:
    dm = _last(spec, "chat_send_dm")
    right, stale = _right_and_stale(_last(spec, "calendar_update_event")["start"], zone_of(spec, dm["person"]))
    if f"{right} your time" not in dm["text"]:
        raise CorpusError(f"{spec['capability']}: the DM does not give {right} your time")
    dm["text"] = dm["text"].replace(f"{right} your time", f"{stale} your time")
    _swap_value(check(spec, "mate-told"), "text", right, stale)


# -- the reply telling the user the time "in my time zone" ------------------------------------------------------------
def _booked(spec: Spec) -> tuple[str, str, str, str]:
    args = _last(spec, "calendar_create_event")
    right, stale = _right_and_stale(args["start"], zone_of(spec, spec["user"]))
    return args["title"], right, stale, datetime.fromisoformat(args["start"]).astimezone(ZoneInfo("UTC")).strftime("%H:%M")


def _reply_local(which: str) -> Any:
    def edit(spec: Spec) -> None:
        title, right, stale, utc = _booked(spec)
        shown = stale if which == "stale" else right
        for turn in spec["reference"]:
            for st in turn["steps"]:
                if st.get("say"):
                    st["say"] = f"Booked '{title}' for {shown} your time, the earliest slot free for everyone."
        check(spec, "reply-states-time")["rule"]["any_of"] = [shown, utc]
    return edit


def _honest_reply(spec: Spec) -> list[dict[str, Any]]:
    title, right, _, _ = _booked(spec)
    return with_say(spec, f"Booked '{title}' for {right} your time.")


# -- the shipped example: the attendees' mail with Berlin time, Elena's DM with her time -------------------------------
def _moved_to(spec: Spec) -> str:
    """The start the reference moves the meeting to (its first update that sets one)."""
    return next(st["call"]["arguments"]["start"] for turn in spec["reference"] for st in turn["steps"]
                if st.get("call") and st["call"]["name"] == "calendar_update_event" and "start" in st["call"]["arguments"])


def _berlin_in_mail(which: str) -> Any:
    def edit(spec: Spec) -> None:
        right, stale = _right_and_stale(_moved_to(spec), "Europe/Berlin")
        mail = _last(spec, "mail_send")
        shown = stale if which == "stale" else right
        if f"{right} Berlin" not in mail["body"]:
            raise CorpusError(f"{spec['capability']}: the mail does not give {right} Berlin")
        mail["body"] = mail["body"].replace(f"{right} Berlin", f"{shown} Berlin")
        where = check(spec, "attendees-mailed")["rule"]["where"]
        where.append({"field": "body", "op": "contains", "value": f"{shown} Berlin"})
        # The mail lists each attendee's local time: a grader pinning Berlin's reads the others too (a list read
        # but for some items passes an agent giving London's or New York's wrongly: sibling_unchecked).
        where += [{"field": "body", "op": "matches", "value": f"(?i){time}.{{0,12}}{re.escape(city)}"}
                  for time, city in re.findall(r"(\d\d:\d\d) (London|New York)", mail["body"])]
    return edit


def _elena_time(which: str) -> Any:
    def edit(spec: Spec) -> None:
        dm = _last(spec, "chat_send_dm")
        right, stale = _right_and_stale(_moved_to(spec), zone_of(spec, dm["person"]))
        shown = stale if which == "stale" else right
        if f"{right}-" not in dm["text"]:
            raise CorpusError(f"{spec['capability']}: the DM does not give {right}")
        dm["text"] = dm["text"].replace(f"{right}-", f"{shown}-")
        for w in check(spec, "elena-told-on-chat")["rule"]["where"]:
            if w["field"] == "text":
                w["value"] = f"(?i){shown}.*14:00 utc"
    return edit


DEFECTS = [
    *(Defect(CLASS, f"moved-dm-fixed-offset-{seed}", f"synth:reschedule_conflict@{seed}",
             "is failed for telling the colleague the right local time: the check wants it computed with the zone's "
             "offset of the other season",
             breaks=_dm_stale, witness=reference, witness_kind="honest") for seed in (1, 3, 7, 8, 10)),
    *(Defect(CLASS, f"booking-reply-fixed-offset-{seed}", f"synth:schedule_meeting_timezones@{seed}",
             "is failed for telling the user the right local time: the check wants it computed with the zone's "
             "offset of the other season",
             breaks=_reply_local("stale"), fix=_reply_local("right"), witness=_honest_reply, witness_kind="honest")
      for seed in (5, 6, 8)),
    Defect(CLASS, "roadmap-mail-berlin-winter-offset", "example:meeting_reschedule",
           "is failed for giving the attendees 16:00 Berlin in April: the check wants 15:00, Berlin's winter time",
           breaks=_berlin_in_mail("stale"), fix=_berlin_in_mail("right"), witness=reference, witness_kind="honest"),
    Defect(CLASS, "elena-dm-winter-offset", "example:meeting_reschedule",
           "is failed for telling Elena 16:00 her time in April: the check wants 15:00, Rome's winter time",
           breaks=_elena_time("stale"), fix=_elena_time("right"), witness=reference, witness_kind="honest"),
]
