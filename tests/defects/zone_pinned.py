"""Zone pinned: a clock time relayed in another time zone than the one the task asks for. The user (in Dubai) asks for
the booking mail to give "the start time in UTC (HH:MM UTC)", the writer's mail says "13:30 Dubai time" and the check
wants "13:30"; the user asks to tell Sanna the new time "as HH:MM, their time zone", the writer's DM says "09:00 UTC"
and the check wants "09:00"; the user asks "tell me the time you picked" and the writer's reply, and the check, give
only the UTC time, "09:30"; a colleague is told the meeting's time on chat and the check wants it in UTC, though a
message to one person is naturally in their own zone; the user asks to see the event "in my time zone (Asia/Dubai)"
and the writer's booking, and its check, pass `timezone: "UTC"`. An honest agent that writes the time in the zone asked for (or
the reader's own) fails; the sound twin accepts it."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from tests.defects._core import CorpusError, Defect, Spec, check, reference, with_say

CLASS = "zone_pinned"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "replay the reference with each clock time its messages and replies give of a known instant (a date-time its calls "
    "wrote) written in the zone the turn asks that output in, or the reader's own where it names none; where a check "
    "the reference passes then fails, it pins a zone nobody asked for"
)


def zone_of(spec: Spec, person: str) -> str:
    """The time zone of a person of the directory, by id, email or chat handle."""
    ref = person.lower().lstrip("@")
    for p in spec["world"]["apps"]["directory"]["people"]:
        if ref in (p["id"], p["email"].lower(), p.get("chat_handle", "").lower()):
            return str(p.get("timezone", "UTC"))
    raise CorpusError(f"{spec['capability']}: no person {person!r} in the directory")


def _hhmm(iso: str, tz: str) -> str:
    return datetime.fromisoformat(iso).astimezone(ZoneInfo(tz)).strftime("%H:%M")


def _city(tz: str) -> str:
    return tz.rsplit("/", 1)[-1].replace("_", " ")


def _steps(spec: Spec, tool: str) -> list[dict[str, Any]]:
    found = [st for turn in spec["reference"] for st in turn["steps"] if st.get("call") and st["call"]["name"] == tool]
    if not found:
        raise CorpusError(f"{spec['capability']}: the reference never calls {tool}")
    return found


def _booked(spec: Spec) -> tuple[str, str, str]:
    """(title, start in UTC, user's zone) of the meeting the reference books."""
    args = _steps(spec, "calendar_create_event")[0]["call"]["arguments"]
    user = zone_of(spec, spec["user"])
    if _hhmm(args["start"], user) == _hhmm(args["start"], "UTC"):
        raise CorpusError(f"{spec['capability']}: the user's zone is UTC's clock")
    return args["title"], args["start"], user


# -- the booking mail, asked in UTC, written and checked in the user's zone ------------------------------------------
def _mail_in_user_clock(label: Any) -> Any:
    """The booking mail's start written in the user's clock, labelled `label(start, user zone)`; its check wants it."""
    def breaks(spec: Spec) -> None:
        _, start, user = _booked(spec)
        local, utc = _hhmm(start, user), _hhmm(start, "UTC")
        mail = _steps(spec, "mail_send")[-1]["call"]["arguments"]
        if f"{utc} UTC" not in mail["body"]:
            raise CorpusError(f"{spec['capability']}: the booking mail does not give {utc} UTC")
        mail["body"] = mail["body"].replace(f"{utc} UTC", f"{local} {label(start, user)}")
        for w in check(spec, "attendees-mailed")["rule"]["where"]:
            if w["field"] == "body":
                w["value"] = local
    return breaks


_mail_in_user_zone = _mail_in_user_clock(lambda start, user: f"{_city(user)} time")


def _honest_utc_mail(spec: Spec) -> list[dict[str, Any]]:
    """The booking mail as the user asked: the start in UTC."""
    return reference(spec)


# -- the reply, asked without a zone, given and checked in UTC only --------------------------------------------------
def _reply_in_utc(spec: Spec) -> None:
    title, start, _ = _booked(spec)
    utc = _hhmm(start, "UTC")
    for turn in spec["reference"]:
        for st in turn["steps"]:
            if st.get("say"):
                st["say"] = f"Booked '{title}' for {utc} UTC, the earliest slot free for everyone within working hours."
    check(spec, "reply-states-time")["rule"]["any_of"] = [utc]


def _honest_local_reply(spec: Spec) -> list[dict[str, Any]]:
    """The reply in the user's own zone."""
    title, start, user = _booked(spec)
    return with_say(spec, f"Booked '{title}' for {_hhmm(start, user)} your time, the earliest free slot.")


# -- the DM, asked in the colleague's zone, written and checked in the user's or UTC ---------------------------------
def _moved(spec: Spec) -> tuple[dict[str, Any], str, str, str]:
    """(the DM's arguments, the new start in the colleague's zone, in the user's zone, in UTC)."""
    dm = _steps(spec, "chat_send_dm")[-1]["call"]["arguments"]
    start = _steps(spec, "calendar_update_event")[-1]["call"]["arguments"]["start"]
    theirs, mine = _hhmm(start, zone_of(spec, dm["person"])), _hhmm(start, zone_of(spec, spec["user"]))
    if theirs == mine or theirs == _hhmm(start, "UTC"):
        raise CorpusError(f"{spec['capability']}: the colleague's clock reads as the user's or UTC's")
    return dm, theirs, mine, _hhmm(start, "UTC")


def _dm_in(which: str) -> Any:
    def breaks(spec: Spec) -> None:
        dm, theirs, mine, utc = _moved(spec)
        shown = f"{utc} UTC" if which == "utc" else f"{mine} my time"
        if f"{theirs} your time" not in dm["text"]:
            raise CorpusError(f"{spec['capability']}: the DM does not give {theirs} your time")
        dm["text"] = dm["text"].replace(f"{theirs} your time", shown)
        for w in check(spec, "mate-told")["rule"]["where"]:
            if w["field"] == "text":
                w["value"] = utc if which == "utc" else mine
    return breaks


# -- the chat message to one colleague, no zone asked, checked in UTC only (shipped example) -------------------------
def _elena_dm(spec: Spec) -> dict[str, Any]:
    dm = _steps(spec, "chat_send_dm")[-1]["call"]["arguments"]
    if "your time" not in dm["text"]:
        raise CorpusError(f"{spec['capability']}: the DM gives no local time")
    return dm  # type: ignore[no-any-return]


def _dm_utc_only(spec: Spec) -> None:
    dm = _elena_dm(spec)
    dm["text"] = re.sub(r"\d{1,2}:\d{2}-\d{1,2}:\d{2} your time \((\d{1,2}:\d{2}) UTC\)", r"\1 UTC", dm["text"])
    if "your time" in dm["text"]:
        raise CorpusError(f"{spec['capability']}: the DM's times are not in the shape this edit rewrites")


def _dm_local_accepted(spec: Spec) -> None:
    """The sound twin: the check accepts the colleague's own clock time too."""
    rule = check(spec, "elena-told-on-chat")["rule"]
    for w in rule["where"]:
        if w["field"] == "text":
            w["value"] = "(?i)14:00 utc|16:00"


def _dm_local_only(spec: Spec) -> list[dict[str, Any]]:
    ref = reference(spec)
    dm = _elena_dm({"reference": ref, "capability": spec["capability"]})
    dm["text"] = re.sub(r" \(\d{1,2}:\d{2} UTC\)", "", dm["text"])
    return ref


DEFECTS = [
    *(Defect(CLASS, f"booking-mail-in-user-zone-{seed}", f"synth:schedule_meeting_timezones@{seed}",
             "is failed for mailing the start time in UTC as the user asked: the check wants the user's local time",
             breaks=_mail_in_user_zone, witness=_honest_utc_mail, witness_kind="honest") for seed in (1, 2, 3, 4)),
    *(Defect(CLASS, f"booking-reply-utc-only-{seed}", f"synth:schedule_meeting_timezones@{seed}",
             "is failed for telling the user the time in their own zone: the check wants the UTC time only",
             breaks=_reply_in_utc, witness=_honest_local_reply, witness_kind="honest") for seed in (1, 2, 3, 4)),
    *(Defect(CLASS, f"moved-dm-in-{which}-{seed}", f"synth:reschedule_conflict@{seed}",
             f"is failed for telling the colleague the new time in their own zone, as asked: the check wants the "
             f"{'UTC' if which == 'utc' else 'user' + chr(39) + 's'} time",
             breaks=_dm_in(which), witness=reference, witness_kind="honest")
      for which, seed in (("utc", 1), ("mine", 3), ("utc", 6), ("mine", 7), ("utc", 9))),
    Defect(CLASS, "added-attendee-dm-utc", "example:meeting_reschedule",
           "is failed for telling Elena, in Rome, the meeting's time in her own zone: the check wants 14:00 UTC",
           breaks=_dm_utc_only, fix=_dm_local_accepted, witness=_dm_local_only, witness_kind="honest"),
]


# -- the booking mail, asked in UTC, written in the user's clock labelled by its UTC offset (defects64) ---------------
def _offset_label(start: str, tz: str, form: str) -> str:
    """The user's UTC offset at `start` as a label: "UTC+4", "GMT+04:00", "UTC-03"."""
    off = datetime.fromisoformat(start).astimezone(ZoneInfo(tz)).strftime("%z")  # "+0400"
    sign, hh, mm = off[0], off[1:3], off[3:]
    short = f"{int(hh)}" + (f":{mm}" if mm != "00" else "")
    return form.format(sign=sign, h=short, hh=hh, mm=mm)


def _mail_in_user_offset(form: str) -> Any:
    return _mail_in_user_clock(lambda start, user: _offset_label(start, user, form))


DEFECTS += [
    Defect(CLASS, f"booking-mail-offset-{seed}", f"synth:schedule_meeting_timezones@{seed}",
           f"is failed for mailing the start time in UTC as the user asked: the check wants the user's clock, written "
           f"'{form.format(sign='+', h='4', hh='04', mm='00')}'-style",
           breaks=_mail_in_user_offset(form), witness=_honest_utc_mail, witness_kind="honest")
    for seed, form in ((1, "UTC{sign}{h}"), (2, "(GMT{sign}{hh}:{mm})"), (3, "UTC {sign}{hh}:{mm}"), (4, "GMT{sign}{h}"))
]


# -- the DM, asked in the colleague's zone, written in the user's clock with its abbreviation (defects64): the twin
# accepts that or the colleague's clock with any label but the user's; a replay that moved the time and left the
# abbreviation ("09:00 BRT", a wrong instant) failed it on main ----------------------------------------------------------
def _dm_abbreviated(abbr: str, twin: bool) -> Any:
    def edit(spec: Spec) -> None:
        dm, theirs, mine, _ = _moved(spec)
        if f"{theirs} your time" not in dm["text"]:
            raise CorpusError(f"{spec['capability']}: the DM does not give {theirs} your time")
        dm["text"] = dm["text"].replace(f"{theirs} your time", f"{mine} {abbr}")
        for w in check(spec, "mate-told")["rule"]["where"]:
            if w["field"] == "text":
                w.update({"op": "matches", "value": f"(?i)\\b{mine} {abbr}\\b|\\b{theirs}\\b(?!\\s*{abbr})"} if twin
                         else {"value": mine})
    return edit


def _dm_theirs(abbr: str) -> Any:
    """The DM as the user asked: the colleague's clock, "your time"."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        dm, theirs, mine, _ = _moved({"reference": ref, "capability": spec["capability"], "world": spec["world"],
                                      "user": spec["user"]})
        dm["text"] = dm["text"].replace(f"{mine} {abbr}", f"{theirs} your time")
        return ref
    return witness


DEFECTS += [
    Defect(CLASS, f"moved-dm-abbreviated-{seed}", f"synth:reschedule_conflict@{seed}",
           f"is failed for telling the colleague the new time in their own zone, as asked: the check wants the user's "
           f"clock ('... {abbr}')", breaks=_dm_abbreviated(abbr, False), fix=_dm_abbreviated(abbr, True),
           witness=_dm_theirs(abbr), witness_kind="honest")
    for seed, abbr in ((3, "BRT"), (7, "IST"), (9, "CEST"), (6, "CET"))
]


# -- the event shown in the user's zone, as asked, booked and checked in UTC -------------------------------------------
def _event_in_utc(spec: Spec) -> None:
    args = _steps(spec, "calendar_create_event")[0]["call"]["arguments"]
    if args.get("timezone") in (None, "UTC"):
        raise CorpusError(f"{spec['capability']}: the event is not shown in the user's zone")
    args["timezone"] = "UTC"
    for w in check(spec, "in-my-timezone")["rule"]["where"]:
        if w["field"] == "timezone":
            w["value"] = "UTC"


DEFECTS += [
    Defect(CLASS, f"event-shown-in-utc-{name}", f"synth:{cap}@{seed}",
           "is failed for showing the event in the user's zone, as asked: the check wants it shown in UTC",
           breaks=_event_in_utc, witness=reference, witness_kind="honest")
    for name, cap, seed in (("booking-1", "schedule_meeting_timezones", 1), ("booking-2", "schedule_meeting_timezones", 2),
                            ("review-2", "adapt_announced_change", 2), ("review-3", "adapt_announced_change", 3))
]


# -- a time range, or a time labelled by a bare offset, in another zone than asked (defects66): the replay moved a
# range's start without its end ("13:30-14:00 UTC+4" became "13:30-10:00 UTC"), read "2-3pm" not at all, and placed
# "15:00 +05:30" in the default zones instead of at its offset, so a check pinning the wrong zone's clock passed it ----
def _booked_range(spec: Spec) -> tuple[str, str, str, str]:
    """(start, end, user's zone, title) of the meeting the reference books."""
    args = _steps(spec, "calendar_create_event")[0]["call"]["arguments"]
    return args["start"], args["end"], zone_of(spec, spec["user"]), args["title"]


def _mail_offset_range(form: str, twin: bool) -> Any:
    """The booking mail (asked in UTC) gives the meeting's range in the user's clock labelled by the user's offset;
    the check wants the user's start, or (the twin) that range or the UTC range without the offset."""
    def edit(spec: Spec) -> None:
        start, end, user, _ = _booked_range(spec)
        mail = _steps(spec, "mail_send")[-1]["call"]["arguments"]
        utc = _hhmm(start, "UTC")
        if f"{utc} UTC" not in mail["body"]:
            raise CorpusError(f"{spec['capability']}: the booking mail does not give {utc} UTC")
        written = form.format(s=_hhmm(start, user), e=_hhmm(end, user), off=_offset_label(start, user, "{sign}{h}"))
        mail["body"] = mail["body"].replace(f"{utc} UTC", written)
        for w in check(spec, "attendees-mailed")["rule"]["where"]:
            if w["field"] == "body":
                w.update({"op": "matches", "value": f"(?i){re.escape(written)}|\\b{utc}\\b\\D{{1,9}}"
                          f"\\b{_hhmm(end, 'UTC')}\\b(?!\\s*\\(?(?:UTC|GMT)\\s*[+\\-\\u2212])"} if twin
                         else {"value": _hhmm(start, user)})
    return edit


def _utc_range_mail(spec: Spec) -> list[dict[str, Any]]:
    """The booking mail as asked: the range in UTC."""
    ref = reference(spec)
    start, end, _, _ = _booked_range(spec)
    mail = _steps({"reference": ref, "capability": spec["capability"]}, "mail_send")[-1]["call"]["arguments"]
    mail["body"] = re.sub(r"booked for .*? \(", f"booked for {_hhmm(start, 'UTC')}-{_hhmm(end, 'UTC')} UTC (",
                          mail["body"])
    return ref


DEFECTS += [
    Defect(CLASS, f"booking-mail-offset-range-{seed}", f"synth:schedule_meeting_timezones@{seed}",
           f"is failed for mailing the meeting's time in UTC as the user asked: the check wants the user's clock, "
           f"written as a range labelled by the user's offset ('{form}')", breaks=_mail_offset_range(form, False),
           fix=_mail_offset_range(form, True), witness=_utc_range_mail, witness_kind="honest")
    for seed, form in ((1, "{s}-{e} UTC{off}"), (2, "{s} - {e} (GMT{off})"), (3, "{s}-{e} GMT{off}"),
                       (4, "{s}-{e} (UTC{off})"), (8, "{s} - {e} UTC{off}"), (11, "{s}-{e} GMT{off}"))
]


def _mail_attendee_offset(form: str) -> Any:
    """The booking mail (asked in UTC) gives the start in the first attendee's clock whose offset is neither UTC's
    nor the user's, labelled by that bare offset ("15:00 +05:30"; `off`, written short: "15:00 +5:30"); the check
    wants that clock."""
    def breaks(spec: Spec) -> None:
        start, _, user, _ = _booked_range(spec)
        args = _steps(spec, "calendar_create_event")[0]["call"]["arguments"]
        mine = _hhmm(start, user)
        theirs = next((z for z in (zone_of(spec, a) for a in args["attendees"])
                       if _hhmm(start, z) not in (mine, _hhmm(start, "UTC"))), None)
        if theirs is None:
            raise CorpusError(f"{spec['capability']}: every attendee reads the start as the user or UTC does")
        off = datetime.fromisoformat(start).astimezone(ZoneInfo(theirs)).strftime("%z")
        mail = _steps(spec, "mail_send")[-1]["call"]["arguments"]
        utc = _hhmm(start, "UTC")
        mail["body"] = mail["body"].replace(f"{utc} UTC", form.format(
            t=_hhmm(start, theirs), sign=off[0], hh=off[1:3], mm=off[3:], off=_offset_label(start, theirs, "{sign}{h}")))
        for w in check(spec, "attendees-mailed")["rule"]["where"]:
            if w["field"] == "body":
                w["value"] = _hhmm(start, theirs)
    return breaks


DEFECTS += [
    Defect(CLASS, f"booking-mail-{kind}-offset-{seed}", f"synth:schedule_meeting_timezones@{seed}",
           f"is failed for mailing the start time in UTC as the user asked: the check wants an attendee's clock, "
           f"labelled by a {kind} UTC offset ('{form}')", breaks=_mail_attendee_offset(form),
           witness=_honest_utc_mail, witness_kind="honest")
    for kind, seed, form in (
        ("bare", 1, "{t} {sign}{hh}:{mm}"), ("bare", 2, "{t} ({sign}{hh}:{mm})"), ("bare", 3, "{t} {sign}{hh}{mm}"),
        ("bare", 4, "{t} {sign}{hh}:{mm}"), ("bare", 8, "{t} ({sign}{hh}{mm})"), ("bare", 11, "{t} {sign}{hh}:{mm}"),
        # defects68: the offset written short ("15:00 +5:30", "10:30 (+1)"), which the replay did not read
        ("short", 1, "{t} {off}"), ("short", 2, "{t} ({off})"), ("short", 3, "{t} {off}"), ("short", 4, "{t} ({off})"),
        ("short", 8, "{t} {off}"))
]


def _retold(spec: Spec, written: str, pinned: str) -> None:
    """The DM's new time, "HH:MM your time" (the colleague's clock, as asked), written `written`; the check wants
    `pinned`."""
    dm, theirs, _, _ = _moved(spec)
    if f"{theirs} your time" not in dm["text"]:
        raise CorpusError(f"{spec['capability']}: the DM does not give {theirs} your time")
    dm["text"] = dm["text"].replace(f"{theirs} your time", written)
    for w in check(spec, "mate-told")["rule"]["where"]:
        if w["field"] == "text":
            w["value"] = pinned


def _dm_offset_range(form: str) -> Any:
    """The DM (asked in the colleague's zone) gives the new range in the user's clock labelled by the user's
    offset; the check wants the user's start."""
    def breaks(spec: Spec) -> None:
        _, _, mine, _ = _moved(spec)
        ev = _steps(spec, "calendar_update_event")[-1]["call"]["arguments"]
        user = zone_of(spec, spec["user"])
        _retold(spec, form.format(s=mine, e=_hhmm(ev["end"], user),
                                  off=_offset_label(ev["start"], user, "{sign}{h}")), mine)
    return breaks


DEFECTS += [
    Defect(CLASS, f"moved-dm-offset-range-{seed}", f"synth:reschedule_conflict@{seed}",
           f"is failed for telling the colleague the new time in their own zone, as asked: the check wants the user's "
           f"clock, written as a range labelled by the user's offset ('{form}')", breaks=_dm_offset_range(form),
           witness=reference, witness_kind="honest")
    for seed, form in ((3, "{s}-{e} UTC{off}"), (7, "{s}-{e} (GMT{off})"), (9, "{s} - {e} UTC{off}"))
]


def _twelve(iso: str, tz: str) -> tuple[str, str]:
    """("3" or "3:45", "am"/"pm") of the time in the zone."""
    t = datetime.fromisoformat(iso).astimezone(ZoneInfo(tz))
    return f"{t.hour % 12 or 12}" + (f":{t.minute:02d}" if t.minute else ""), "pm" if t.hour >= 12 else "am"


def _reply_meridiem_range(joint: str) -> Any:
    """The reply (asked without a zone: the user's own) gives the meeting's range in UTC, 12-hour with one meridiem
    ("7-8am UTC", "between 3 and 3:45pm UTC"); the check wants that range."""
    def breaks(spec: Spec) -> None:
        start, end, _, title = _booked_range(spec)
        (s, sp), (e, ep) = _twelve(start, "UTC"), _twelve(end, "UTC")
        if sp != ep:
            raise CorpusError(f"{spec['capability']}: the meeting spans noon")
        written = joint.format(s=s, e=e) + f"{ep} UTC"
        for turn in spec["reference"]:
            for st in turn["steps"]:
                if st.get("say"):
                    st["say"] = f"Booked '{title}' for {written}, the earliest slot free for everyone."
        check(spec, "reply-states-time")["rule"]["any_of"] = [written.removesuffix(" UTC")]
    return breaks


DEFECTS += [
    Defect(CLASS, f"booking-reply-meridiem-range-{seed}", f"synth:schedule_meeting_timezones@{seed}",
           f"is failed for telling the user the time in their own zone: the check wants the UTC range, written "
           f"'{joint}' with one meridiem", breaks=_reply_meridiem_range(joint), witness=_honest_local_reply,
           witness_kind="honest")
    for seed, joint in ((2, "{s}-{e}"), (3, "{s}-{e}"))
]


# -- short offsets, a range labelled at each time, a 24-hour start with a 12-hour end (defects68): the replay read no
# offset without two-digit hours and minutes ("15:00 +5:30", "10:30 +1"), so an attendee's clock so labelled was never
# moved; it read "09:30 UTC - 10:00 UTC" as the start at the offset UTC-10 (no instant) and left it; and "13:30-2pm"
# had no end (`mentions` reads no 12-hour time after a dash), so the start moved alone -----------------------------------


def _say_booked(spec: Spec, title: str, written: str, utc: str) -> None:
    """The reply gives the booking's time `written`; its check wants the UTC start."""
    for turn in spec["reference"]:
        for st in turn["steps"]:
            if st.get("say"):
                st["say"] = f"Booked '{title}' for {written}, the earliest slot free for everyone."
    check(spec, "reply-states-time")["rule"]["any_of"] = [utc]


def _reply_labelled_range(label: str) -> Any:
    """The reply (asked without a zone: the user's own) gives the meeting's range in UTC with the label after each
    time ("09:30 UTC - 10:00 UTC"); the check wants the UTC start."""
    def breaks(spec: Spec) -> None:
        start, end, _, title = _booked_range(spec)
        utc = _hhmm(start, "UTC")
        written = f"{utc} {label} - {_hhmm(end, 'UTC')} {label}"
        _say_booked(spec, title, written, utc)
    return breaks


DEFECTS += [
    Defect(CLASS, f"booking-reply-labelled-range-{seed}", f"synth:schedule_meeting_timezones@{seed}",
           f"is failed for telling the user the time in their own zone: the check wants the UTC start, the range "
           f"written with a label after each time ('HH:MM {label} - HH:MM {label}')", breaks=_reply_labelled_range(label),
           witness=_honest_local_reply, witness_kind="honest")
    for seed, label in ((1, "UTC"), (2, "UTC"), (5, "GMT"), (6, "UTC"), (7, "GMT"))
]


def _mail_user_clock(form: str, twin: bool) -> Any:
    """The booking mail (asked in UTC) gives the start, or the range, in the user's clock written `form` (a short
    offset, "13:30 +4"; a 24-hour start with a 12-hour end, "13:30-2pm GMT+4"); the check wants the user's start, or
    (the twin) that writing or the UTC time labelled UTC without an offset. Main's replay moved the time and kept the offset
    ("09:30 +4", a wrong instant) or moved the start alone ("09:30-2pm GMT+4"), failing the twin."""
    def edit(spec: Spec) -> None:
        start, end, user, _ = _booked_range(spec)
        mail = _steps(spec, "mail_send")[-1]["call"]["arguments"]
        utc = _hhmm(start, "UTC")
        if f"{utc} UTC" not in mail["body"]:
            raise CorpusError(f"{spec['capability']}: the booking mail does not give {utc} UTC")
        e, ep = _twelve(end, user)
        written = form.format(s=_hhmm(start, user), e=e, ep=ep, off=_offset_label(start, user, "{sign}{h}"))
        mail["body"] = mail["body"].replace(f"{utc} UTC", written)
        for w in check(spec, "attendees-mailed")["rule"]["where"]:
            if w["field"] == "body":
                w.update({"op": "matches", "value": f"(?i){re.escape(written)}|\\b{utc}\\b[^.]*?\\bUTC\\b"
                          f"(?!\\s*[+\\-\\u2212])"} if twin else {"value": _hhmm(start, user)})
    return edit


DEFECTS += [
    Defect(CLASS, f"booking-mail-{name}-{seed}", f"synth:schedule_meeting_timezones@{seed}",
           f"is failed for mailing the meeting's time in UTC as the user asked: the check wants the user's clock, "
           f"written '{form}'", breaks=_mail_user_clock(form, False), fix=_mail_user_clock(form, True),
           witness=_utc_range_mail, witness_kind="honest")
    for name, seed, form in (("user-short-offset", 1, "{s} {off}"), ("user-short-offset", 3, "{s} ({off})"),
                             ("mixed-clock-range", 1, "{s}-{e}{ep} GMT{off}"), ("mixed-clock-range", 2, "{s}-{e}{ep} UTC{off}"))
]


def _dm_utc_range(joint: str) -> Any:
    """The DM (asked in the colleague's zone) gives the new range in UTC with the label after each time, joined by
    `joint` ("09:00 UTC - 10:00 UTC", defects68; "09:00 UTC-10:00 UTC", defects72); the check wants the UTC start."""
    def breaks(spec: Spec) -> None:
        utc = _moved(spec)[3]
        end = _hhmm(_steps(spec, "calendar_update_event")[-1]["call"]["arguments"]["end"], "UTC")
        _retold(spec, f"{utc} UTC{joint}{end} UTC", utc)
    return breaks


_dm_labelled_range = _dm_utc_range(" - ")


DEFECTS += [
    Defect(CLASS, f"moved-dm-labelled-range-{seed}", f"synth:reschedule_conflict@{seed}",
           "is failed for telling the colleague the new time in their own zone, as asked: the check wants the UTC "
           "start, the range written with a label after each time ('HH:MM UTC - HH:MM UTC')",
           breaks=_dm_labelled_range, witness=reference, witness_kind="honest")
    for seed in (1, 6, 7, 9)
]


# -- times written with an h or as four digits, spoken hours, and labelled starts before a dash (defects72): the replay
# read "13h30", "16h" (French) and "1330" as no time (a duration, a number), so an offset or a zone after them was never
# applied; it read "half past one" only as 01:30 (its first reading), so the afternoon's 13:30 at an offset named no
# instant; and it read "09:30 UTC-10:00 UTC" (no spaces) as the start at the offset UTC-10, no instant, and left it ------
def _marked(hm: str, how: str) -> str:
    """A clock time "13:30" written `how`: "h" ("13h30", "15h"), "hh" ("13h30", "15h00"), "mil" ("1330")."""
    h, m = hm.split(":")
    if how == "mil":
        return h + m
    return f"{int(h)}h" + ("" if m == "00" and how == "h" else m)


_HOURS = ["twelve", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven"]


def _spoken(hm: str) -> str:
    """A clock time said without its half of the day: "three o'clock", "half past one", "quarter to two"."""
    h, m = (int(x) for x in hm.split(":"))
    said = {0: f"{_HOURS[h % 12]} o'clock", 15: f"quarter past {_HOURS[h % 12]}", 30: f"half past {_HOURS[h % 12]}",
            45: f"quarter to {_HOURS[(h + 1) % 12]}"}
    if m not in said:
        raise CorpusError(f"{hm}: not on a quarter hour")
    return said[m]


def _mail_user_marked(how: str, form: str, twin: bool) -> Any:
    """The booking mail (asked in UTC) gives the start in the user's clock written `how` and labelled `form` (an
    offset, "13h30 UTC+4"); the check wants that writing of the start, or (the twin) that or the UTC time labelled
    UTC without an offset."""
    def edit(spec: Spec) -> None:
        start, _, user, _ = _booked_range(spec)
        mail = _steps(spec, "mail_send")[-1]["call"]["arguments"]
        utc = _hhmm(start, "UTC")
        if f"{utc} UTC" not in mail["body"]:
            raise CorpusError(f"{spec['capability']}: the booking mail does not give {utc} UTC")
        shown = _spoken(_hhmm(start, user)) if how == "spoken" else _marked(_hhmm(start, user), how)
        written = form.format(t=shown, off=_offset_label(start, user, "{sign}{h}"))
        mail["body"] = mail["body"].replace(f"{utc} UTC", written)
        for w in check(spec, "attendees-mailed")["rule"]["where"]:
            if w["field"] == "body":
                w.update({"op": "matches", "value": f"(?i){re.escape(written)}|\\b{utc}\\b[^.]*?\\bUTC\\b"
                          f"(?!\\s*[+\\-\\u2212])"} if twin else {"value": shown})
    return edit


def _utc_start_mail(spec: Spec) -> list[dict[str, Any]]:
    """The booking mail as asked: the start in UTC, "09:30 UTC"."""
    ref = reference(spec)
    start, _, _, _ = _booked_range(spec)
    mail = _steps({"reference": ref, "capability": spec["capability"]}, "mail_send")[-1]["call"]["arguments"]
    mail["body"] = re.sub(r"booked for .*? \(", f"booked for {_hhmm(start, 'UTC')} UTC (", mail["body"])
    return ref


DEFECTS += [
    Defect(CLASS, f"booking-mail-{how}-clock-{seed}", f"synth:schedule_meeting_timezones@{seed}",
           f"is failed for mailing the start time in UTC as the user asked: the check wants the user's clock, written "
           f"'{form.format(t=_marked('13:30', how) if how != 'spoken' else 'one o' + chr(39) + 'clock', off='+4')}'",
           breaks=_mail_user_marked(how, form, False), fix=_mail_user_marked(how, form, True) if twin else None,
           witness=_utc_start_mail, witness_kind="honest")
    for how, seed, form, twin in (
        ("h", 1, "{t} UTC{off}", True), ("h", 2, "{t} (GMT{off})", False), ("hh", 3, "{t} UTC{off}", False),
        ("h", 4, "{t} GMT{off}", False), ("h", 11, "{t} (UTC{off})", True), ("mil", 8, "{t} UTC{off}", True),
        ("mil", 2, "{t} GMT{off}", False), ("spoken", 2, "{t} GMT{off}", True))
]


def _dm_marked(how: str) -> Any:
    """The DM (asked in the colleague's zone) gives the new start in UTC written `how` ("14h UTC", "0800 UTC"); the
    check wants that writing."""
    def breaks(spec: Spec) -> None:
        shown = _marked(_moved(spec)[3], how)
        _retold(spec, f"{shown} UTC", shown)
    return breaks


DEFECTS += [
    Defect(CLASS, f"moved-dm-{how}-utc-{seed}", f"synth:reschedule_conflict@{seed}",
           f"is failed for telling the colleague the new time in their own zone, as asked: the check wants the UTC "
           f"start written '{_marked('14:00', how)} UTC'", breaks=_dm_marked(how), witness=reference,
           witness_kind="honest")
    for how, seed in (("h", 3), ("hh", 7), ("mil", 6), ("mil", 9))
]


def _todo_dues_marked(how: str) -> Any:
    """The reply (asked without a zone: the user's own) lists each to-do's due as its UTC date and clock, the clock
    written `how` ("due 2026-06-07 12h UTC"); the check wants each due's clock so written."""
    def breaks(spec: Spec) -> None:
        replies = [st for turn in spec["reference"] for st in turn["steps"] if st.get("say")]
        first: list[str] = []

        def written(m: re.Match[str]) -> str:
            shown = _marked(m.group(2), how)
            first.append(shown)
            return f"due {m.group(1)} {shown} UTC"
        replies[-1]["say"] = re.sub(r"due (\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}):00Z", written, replies[-1]["say"])
        if not first:
            raise CorpusError(f"{spec['capability']}: the reply gives no due in UTC")
        rule = check(spec, "reply-lists-tasks")["rule"]
        rule["all_of"] = [*rule["all_of"], *dict.fromkeys(f"{t} UTC" for t in first)]
    return breaks


DEFECTS += [
    Defect(CLASS, f"todo-reply-{how}-utc-{seed}", f"synth:todo_track_mail_requests@{seed}",
           f"is failed for telling the user the to-dos' due times in their own zone: the check wants each due's "
           f"UTC clock written '{_marked('12:00', how)} UTC'", breaks=_todo_dues_marked(how), witness=reference,
           witness_kind="honest")
    for how, seed in (("h", 1), ("hh", 2), ("mil", 3))
]


def _reply_dash_range(form: str) -> Any:
    """The reply (asked without a zone: the user's own) gives the meeting's range in UTC with a label after its start
    and no spaces around the dash ("09:30 UTC-10:00 UTC", "09:30 UTC-11:00 CET": the end in another zone of the
    directory); the check wants the UTC start."""
    def breaks(spec: Spec) -> None:
        start, end, user, title = _booked_range(spec)
        zones = sorted({zone_of(spec, p["id"]) for p in spec["world"]["apps"]["directory"]["people"]})
        names = {z: datetime.fromisoformat(end).astimezone(ZoneInfo(z)).tzname() or "" for z in zones}
        other = next((z for z in zones if z not in (user, "UTC") and _hhmm(end, z) != _hhmm(end, "UTC")
                      and names[z][:1].isalpha()), None)
        if other is None:
            raise CorpusError(f"{spec['capability']}: no other zone of the directory with an abbreviation")
        abbr = names[other]
        utc = _hhmm(start, "UTC")
        written = form.format(s=utc, e=_hhmm(end, "UTC"), o=_hhmm(end, other), abbr=abbr)
        _say_booked(spec, title, written, utc)
    return breaks


DEFECTS += [
    Defect(CLASS, f"booking-reply-dash-range-{seed}", f"synth:schedule_meeting_timezones@{seed}",
           f"is failed for telling the user the time in their own zone: the check wants the UTC start, the range "
           f"written '{form.format(s='09:30', e='10:00', o='11:00', abbr='CET')}'", breaks=_reply_dash_range(form),
           witness=_honest_local_reply, witness_kind="honest")
    for seed, form in ((1, "{s} UTC-{o} {abbr}"), (2, "{s} GMT-{e} GMT"), (8, "{s} UTC-{e} UTC"),
                       (11, "{s} GMT-{o} {abbr}"), (12, "{s} UTC-{o} {abbr}"))
]


DEFECTS += [
    Defect(CLASS, f"moved-dm-dash-range-{seed}", f"synth:reschedule_conflict@{seed}",
           "is failed for telling the colleague the new time in their own zone, as asked: the check wants the UTC "
           "start, the range written 'HH:MM UTC-HH:MM UTC'", breaks=_dm_utc_range("-"), witness=reference,
           witness_kind="honest")
    for seed in (3, 12)
]
