"""Clock times written in another time zone than the one the task asks for: the user (in Dubai) asks for the booking
mail to give "the start time in UTC", or for Sanna to be told the new time "in their time zone", or just asks "tell me
the time you picked"; the reference writes "13:30 Dubai time", "09:00 UTC", "2026-11-03T09:30:00Z", and the check
pins that rendering (`contains "13:30"`, `any_of ["09:30"]`). An honest agent that writes the time in the zone asked
for fails (`zone_pinned`).

Which zone an output is asked in is read from the turn: the part of a sentence from the word naming the channel (the
mail, the chat or DM, "tell me" / "let me know" for the reply) to the sentence's end names "UTC"/"GMT", "my time
(zone)" (the user's), "their/your (own) time (zone)" or "local time" (the recipient's), or an IANA zone or its city.
Where the turn names none, a reply is asked in the user's zone and a message to one person in that person's zone (what
an honest agent writes unprompted); a message to several people in several zones is left alone.

Only a time that is a known instant is rewritten: one of the date-times the reference's writes so far passed (a
meeting's start and end, a due time; not a read's window), read in the zone its label names ("09:30 UTC", "16:00
Berlin", "12:00 your time") or, unlabelled, in the first of UTC, the recipient's and the user's zone that makes it one;
and an ISO date-time in the prose ("2026-11-03T09:30:00Z"), only where the turn names the zone (it states its own, so
it is not left for the reader to place) and not one the user wrote. An output that already states the instant in the
zone asked for is left alone (the writer gave both). The replay writes each such time, and its label, in the zone
asked for; where it fails a check the reference passes, the check pins a zone nobody asked for.

A structured argument naming a zone (`calendar_create_event`'s `timezone`) is set to the one zone the turn names for
it ("show the event in my time zone (Asia/Dubai)"), where the reference passed another.

The same outputs are read once more for daylight saving (`dst_pinned`, `in_season`): a time labelled with a zone that
is no known instant as the zone reads it, but one under the zone's offset of the other season (the writer's fixed
offset: "11:00 your time" to Helsinki in September), is replayed as the zone reads it on that date.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from functools import lru_cache

from coworkenv.bindings import DeclaredTool, bind_arguments, spec_catalog
from coworkenv.spec import EnvSpec, ReferenceStep, ToolCallSpec
from coworkenv.tools import ToolDef, ToolError
from coworkenv.validate._mentions import ZONE_AFTER, When, mentions
from coworkenv.validate._mutation_core import replaced
from coworkenv.validate._user_formats import UserFormatted
from coworkenv.validate.mutations import is_write
from coworkenv.world import World, parse_time
from coworkenv.world._time import zone

_ISO = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})(?![\w:])")
_CHANNELS = {
    "reply": re.compile(r"\b(?:tell|let|give|show|send)\s+me\b|\bget back to me\b|\breply to me\b", re.IGNORECASE),
    "mail": re.compile(r"\be-?mail|\bmail\b", re.IGNORECASE),
    "chat": re.compile(r"\b(?:chat|dm|direct message|slack|ping)\b", re.IGNORECASE),
}
_ANY_CHANNEL = re.compile("|".join(f"(?:{p.pattern})" for p in _CHANNELS.values()), re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)")
_UTC = r"\b(?:utc|gmt)\b"
_THEIRS = r"\b(?:their|his|her|your)\s+(?:own\s+)?(?:local\s+)?time(?:\s*zones?)?\b|\blocal\s+time\b"
_MINE = r"\bmy\s+(?:own\s+)?(?:local\s+)?time(?:\s*zone)?\b"
_WHOLE_HOURS = re.compile(r"\d{1,2}:\d{2}\s*-\s*\d{1,2}:\d{2}\s+in\s+(?:their|each|everyone|every)")


def _city(name: str) -> str:
    return name.rsplit("/", 1)[-1].replace("_", " ")


def _zone_words(zones: set[str]) -> str:
    names = sorted({w for z in zones if z != "UTC" for w in (z, _city(z))}, key=len, reverse=True)
    return "|".join(re.escape(n) for n in names)


def _asked(text: str, kind: str, user: str | None, recipient: str | None,
           zones: set[str]) -> tuple[str | None, bool]:
    """The zone the turn asks this output in (see the module's docstring), None where it cannot tell, and whether the
    turn names it."""
    phrase = _phrase(_zone_words(zones))
    for m in _CHANNELS[kind].finditer(text):
        end = _SENTENCE_END.search(text, m.end())
        segment = text[m.end():end.start() if end else len(text)]
        other = _ANY_CHANNEL.search(segment)
        segment = segment[:other.start()] if other else segment
        segment = _WHOLE_HOURS.sub("", segment)  # "09:00-17:00 in their own time zone": working hours, not the output
        found = phrase.search(segment)
        if found is None:
            continue
        if found.group("utc"):
            return "UTC", True
        if found.group("theirs"):
            return recipient, True
        if found.group("mine"):
            return user, True
        said = found.group("named").lower()
        return next((z for z in sorted(zones) if said in (z.lower(), _city(z).lower())), None), True
    return recipient, False  # asked without a zone (or not asked at all): the reader's own


def _zone_arguments(call: ToolCallSpec, text: str, user: str, zones: set[str]) -> dict[str, str]:
    """A write's argument naming a time zone (`timezone="UTC"`) set to the one zone the turn names otherwise: an IANA
    zone it writes, or the user's where it says "my time zone" (the working hours' "in their own time zone" and a
    clock time's "UTC" do not count)."""
    named = {z for z in zones if "/" in z and re.search(rf"\b{re.escape(z)}\b", text, re.IGNORECASE)}
    if re.search(_MINE, text, re.IGNORECASE):
        named.add(user)
    if len(named) != 1:
        return {}
    wanted = next(iter(named))
    return {arg: wanted for arg, value in call.arguments.items()
            if isinstance(value, str) and value != wanted and value in zones | {"UTC"}}


def _render(instant: int, name: str) -> tuple[int, int, str]:
    """(hour, minute, UTC offset) of the instant in the zone."""
    local = datetime.fromtimestamp(instant, zone(name))
    offset = local.strftime("%z")
    return local.hour, local.minute, offset


def _label_zone(label: str, recipient: str | None, zones: set[str]) -> str | None:
    low = " ".join(label.lower().split())
    if re.fullmatch(_UTC, low):
        return "UTC"
    if re.fullmatch(_THEIRS, low):
        return recipient
    low = low.removesuffix(" time")  # "Dubai time"
    return next((z for z in sorted(zones) if low in (z.lower(), _city(z).lower())), None)


def in_zone(text: str, asked: str, instants: set[int], recipient: str | None, user: str | None,
            zones: set[str], said: str = "", named: bool = True) -> str | None:
    """`text` with each time of a known instant written in the zone `asked`, labels included; None where nothing
    changes (no known instant, or every one already stated in that zone, or a date-time copied from `said`, what the
    user wrote). A date-time (`2026-11-03T09:30:00Z`) is rewritten only where the turn `named` the zone: it states its
    zone, so it is not a clock time left for the reader to place."""
    label = _label(zones)
    found: list[tuple[int, int, int, tuple[int, int] | None]] = []  # (start, end, instant, label span)
    stated_in_asked: set[int] = set()
    for m in _ISO.finditer(text) if named else ():
        instant = parse_time(m.group(0))
        offset = datetime.fromisoformat(m.group(0)).strftime("%z")
        if _render(instant, asked)[2] == offset or m.group(0) in said:
            stated_in_asked.add(instant)
        found.append((m.start(), m.end(), instant, None))
    for group in _ranges(text):
        hms = [w.values[0][1:] for w in group]
        if len(group) > 1 and (b := _bare_offset(text, group[-2].end, hms[:-1], instants)) and b.end() >= group[-1].end:
            group, hms = group[:-1], hms[:-1]  # "10:00 -04:00": an offset, not the range 10:00-04:00
        last = group[-1].end  # a range's label follows its last time: "14:00-15:00 UTC", "from 9 until 10:30 CET"
        fixed = _OFFSET.match(text, last) or _bare_offset(text, last, hms, instants)
        anchor = None
        if fixed is not None:  # "16:00 UTC+2", "(GMT+02:00)", "16:00 +02:00": the time at that offset, whatever the zone
            shift = _offset(fixed)
            anchor = next(((k, i, hm) for k, w in enumerate(group) for hm in _faces(w) for i in sorted(instants)
                           if divmod((i + shift) % 86400 // 60, 60) == hm), None)
            if anchor is None and not _labelled_start(text, fixed):
                continue
        if fixed is not None and anchor is not None:
            hms = _fitted(group, anchor[0], anchor[2])
            moved = _together(hms, anchor[0], anchor[1])
            if _render(moved[anchor[0]], asked)[:2] == hms[anchor[0]]:
                stated_in_asked.update(moved)
            found += [(w.start, w.end, i, None) for w, i in zip(group, moved, strict=True)]
            found[-1] = (*found[-1][:3], (fixed.start("l"), fixed.end("l")))
            continue
        lab = label.match(text, last)
        span = (lab.start("l"), lab.end("l")) if lab else None
        tried = ([_label_zone(lab.group("l"), recipient, zones)] if lab else
                 _abbreviated(text, last, instants, zones) or ["UTC", recipient, user])
        hit = next(((z, k, i, hm) for z in tried if z for k, w in enumerate(group) for hm in _faces(w)
                    for i in sorted(instants) if _render(i, z)[:2] == hm), None)
        if hit is None:
            continue
        hms = _fitted(group, hit[1], hit[3])
        moved = _together(hms, hit[1], hit[2])
        if hit[0] == asked or _render(hit[2], asked)[:2] == hms[hit[1]]:
            stated_in_asked.update(moved)
        if span is None and not lab and (abbr := ZONE_AFTER.match(text, last)) is not None:
            word = re.search(r"[A-Za-z]{2,5}", abbr.group(0))  # "10:00 EDT": the abbreviation goes with the time
            span = (abbr.start() + word.start(), abbr.start() + word.end()) if word else None
        found += [(w.start, w.end, i, None) for w, i in zip(group, moved, strict=True)]
        found[-1] = (*found[-1][:3], span)
    edits: dict[tuple[int, int], str] = {}
    for start, end, instant, span in found:
        if instant in stated_in_asked:  # (a range's times are all stated there, or none)
            continue
        hour, minute, _ = _render(instant, asked)
        if text[start:end][:4].isdigit() and "T" in text[start:end]:
            local = datetime.fromtimestamp(instant, zone(asked)).isoformat()
            edits[(start, end)] = local.replace("+00:00", "Z") if asked == "UTC" else local
            continue
        edits[(start, end)] = f"{hour:02d}:{minute:02d}"
        if span is not None:
            edits[span] = "UTC" if asked == "UTC" else f"{_city(asked)} time"
    if not edits:
        return None
    out, at = [], 0
    for (start, end), new in sorted(edits.items()):
        if start < at:
            continue
        out += [text[at:start], new]
        at = end
    return "".join(out) + text[at:]


# Abbreviations people write for zones the time-zone database names by their offset ("-03", "+04"), with that offset.
_NUMERIC_NAMED = {"BRT": "-0300", "ART": "-0300", "GST": "+0400", "SGT": "+0800", "ICT": "+0700", "PHT": "+0800"}
# A fixed offset after a time: "UTC+2", "GMT-04:00", "(UTC+05:30)", "UTC +4".
# The sign touches the hour: "09:30 UTC - 10:00 UTC" is a range of two labelled times, not the offset UTC-10.
_OFFSET = re.compile(r"\s*\(?\s*(?P<l>(?:UTC|GMT)\s?(?P<sign>[+\-\u2212])(?P<h>1[0-4]|0?\d)(?::?(?P<m>[0-5]\d))?)(?![\d:])\)?",
                     re.IGNORECASE)


def _offset(m: re.Match[str]) -> int:
    """The seconds a fixed offset (`_OFFSET`) adds to UTC."""
    seconds = int(m.group("h")) * 3600 + int(m.group("m") or 0) * 60
    return -seconds if m.group("sign") in "-\u2212" else seconds


# A fixed offset after a time without "UTC": "16:00 +02:00", "(+0530)", "11:00 -03:00" (two-digit hours and minutes).
_BARE_OFFSET = re.compile(r"\s*\(?(?P<l>(?P<sign>[+\-\u2212])(?P<h>1[0-4]|0\d):?(?P<m>[0-5]\d))(?![\d:])\)?")
# A short one: "16:00 +2", "15:00 (+5:30)", "04:30 -5", "10:00 +02" (read only where it names a known instant).
_SHORT_OFFSET = re.compile(r"\s*\(?(?P<l>(?P<sign>[+\-\u2212])(?P<h>1[0-4]|0?\d)(?::(?P<m>[0-5]\d))?)(?![\d:%]|[.,]\d)\)?")
# What joins a range's times: a dash, "to", "until", "till", "through", "and" (after "between").
_JOINT = re.compile(r"\s*(?:[-\u2013\u2014]|(?:to|until|till|through|thru|and)\b)\s*", re.IGNORECASE)
# A range of 12-hour times whose start shares the end's meridiem: "2-3pm", "9:30-10am", "11 to 1 p.m.", "10am-11am".
_MERIDIEM_RANGE = re.compile(
    r"(?<![\w:.])(?P<h1>1[0-2]|0?[1-9])(?:[:.](?P<m1>[0-5]\d))?\s?(?P<ap1>[ap]\.?m\b\.?)?"
    r"(?P<joint>\s*[-\u2013\u2014]\s*|\s+(?:to|until|till|and)\s+)"
    r"(?P<h2>1[0-2]|0?[1-9])(?:[:.](?P<m2>[0-5]\d))?\s?(?P<ap2>[ap])(?:m\b|\.m\.)", re.IGNORECASE)


# A range's 12-hour end: "-2pm", " to 2:30 p.m.".
_MERIDIEM_END = re.compile(r"\s*(?:[-\u2013\u2014]|to|until|till)\s*(?P<h>1[0-2]|0?[1-9])(?:[:.](?P<m>[0-5]\d))?\s?"
                           r"(?P<ap>[ap])(?:m\b|\.m\.)", re.IGNORECASE)


def _bare_offset(text: str, end: int, hms: list[tuple[int, int]], instants: set[int]) -> re.Match[str] | None:
    """A bare offset after a time ("16:00 +02:00"); one written with a minus ("11:00 -03:00", which also reads as a
    range's end) or short ("16:00 +2", "15:00 +5:30") only where some time of the range at that offset is a known
    instant."""
    m = _BARE_OFFSET.match(text, end)
    if m is not None and m.group("sign") == "+":
        return m
    m = m or _SHORT_OFFSET.match(text, end)  # "+2", "+5:30": a number as often, so only where it names an instant
    if m is None:
        return None
    shift = _offset(m)
    return m if any(divmod((i + shift) % 86400 // 60, 60) in hms for i in instants) else None


def _together(hms: list[tuple[int, int]], k: int, instant: int) -> list[int]:
    """The instants of a range's times when its `k`-th time is `instant`: each later one after it (a range that
    crosses midnight ends the next day), each earlier one before it."""
    minutes = [h * 60 + m for h, m in hms]
    return [instant + ((m - minutes[k]) % 1440 if j >= k else -((minutes[k] - m) % 1440)) * 60
            for j, m in enumerate(minutes)]


def _faces(w: When) -> list[tuple[int, int]]:
    """The times of day a written time may be: one, or two for an hour said without its half of the day ("half past
    one", "nine o'clock": 01:30 or 13:30)."""
    return [v[1:] for v in w.values]


def _fitted(group: list[When], k: int, hm: tuple[int, int]) -> list[tuple[int, int]]:
    """The times of a range whose `k`-th time is `hm`: each other time that may be either half of the day read as
    the one nearest to it in the range's order (after it for a later time, before it for an earlier one)."""
    at = hm[0] * 60 + hm[1]
    out = []
    for j, w in enumerate(group):
        if j == k:
            out.append(hm)
            continue
        out.append(min(_faces(w), key=lambda f: ((f[0] * 60 + f[1] - at) * (1 if j > k else -1)) % 1440))
    return out


# A labelled time and a dash before another time: "09:30 UTC-11:00 CET", "10:30 CET-11:00 CET", "13:30 Dubai
# time-14:00": `mentions` reads no time right after a dash, and "UTC-11:00" reads as an offset.
_LABELLED_DASH = re.compile(r"\s*[-\u2013\u2014]\s*(?P<h>[01]?\d|2[0-3])[:.](?P<m>[0-5]\d)(?![\d:]|[.,]\d)")


def _labelled_start(text: str, fixed: re.Match[str]) -> bool:
    """Whether a fixed offset after a time that names no known instant ("09:30 UTC-11:00 CET": UTC-11) is instead
    the label "UTC" and a dash before the range's other end: a minus and an hour with its minutes, labelled itself
    (`_labelled_end`)."""
    return fixed.group("sign") != "+" and fixed.group("m") is not None and \
        _labelled_end(text, fixed.start("sign")) is not None


def _labelled_end(text: str, at: int) -> re.Match[str] | None:
    """A dash and a time with its own zone or offset after it, at `at` ("-11:00 CET"); an end without one
    ("09:30 UTC-10:00") is left unread: its zone, the start's or an offset, is the reader's guess."""
    end = _LABELLED_DASH.match(text, at)
    return end if end is not None and _ZONE_LABELLED.match(text, end.end()) else None


def _meridiem_ranges(text: str) -> list[When]:
    """The times of each 12-hour range whose start takes the end's meridiem ("2-3pm": 14:00 and 15:00; "11-1pm":
    11:00 and 13:00), which `mentions` reads only in part."""
    out = []
    for m in _MERIDIEM_RANGE.finditer(text):
        pm = m.group("ap2").lower() == "p"
        end = int(m.group("h2")) % 12 * 60 + int(m.group("m2") or 0) + (720 if pm else 0)
        first = m.group("ap1")
        start = int(m.group("h1")) % 12 * 60 + int(m.group("m1") or 0)
        if first is not None:
            start += 720 if first[0].lower() == "p" else 0
        elif start + (720 if pm else 0) <= end:
            start += 720 if pm else 0
        cut = m.start("joint")
        out += [When("time", ((None, *divmod(start, 60)),), text[m.start():cut], m.start(), cut),
                When("time", ((None, *divmod(end, 60)),), text[m.end("joint"):m.end()], m.end("joint"), m.end())]
    return out


def _ranges(text: str) -> list[list[When]]:
    """The clock times of `text`, those of one range ("14:00-15:00", "2-3pm", "from 9:00 until 10:30", "between 9 and
    10am") grouped together, in order."""
    extra = _meridiem_ranges(text)
    read = mentions(text)
    times = sorted([w for w in read if w.kind == "time"
                    and not any(w.start < e.end and e.start < w.end for e in extra)] + extra, key=lambda w: w.start)
    starts = {w.start for w in times}
    for w in list(times):  # "13:30-2pm": a 12-hour end after a 24-hour start, which `mentions` does not read
        end = _MERIDIEM_END.match(text, w.end)
        if end is not None and end.start("h") not in starts:
            minutes = int(end["h"]) % 12 * 60 + int(end["m"] or 0) + (720 if end["ap"].lower() == "p" else 0)
            times.append(When("time", ((None, *divmod(minutes, 60)),), text[end.start("h"):end.end()],
                              end.start("h"), end.end()))
    for w in list(times):  # "09:30 UTC-11:00 CET", "10:30 CET-11:00": the time after a labelled time and a dash
        lab = ZONE_AFTER.match(text, w.end) or _UTC_LABEL.match(text, w.end)
        end = _labelled_end(text, lab.end()) if lab is not None else None
        if end is not None and end.start("h") not in starts:
            times.append(When("time", ((None, int(end["h"]), int(end["m"])),), text[end.start("h"):end.end()],
                              end.start("h"), end.end()))
            starts.add(end.start("h"))
    marked = _marked_times(text, times + [w for w in read if w.kind not in ("duration", "number")])
    times = sorted(times + marked, key=lambda w: w.start)
    groups: list[list[When]] = []
    for w in times:
        joint = _JOINT.fullmatch(text, groups[-1][-1].end, w.start) if groups else None
        if joint is not None and (joint.group(0).strip().lower() != "and" or
                                  re.search(r"\bbetween\s*$", text[:groups[-1][0].start], re.IGNORECASE)):
            groups[-1].append(w)
        else:
            groups.append([w])
    # an hour mark or four digits is a time of day only where a zone or an offset labels it (or its range)
    return [g for g in groups if not all(w in marked for w in g) or _ZONE_LABELLED.match(text, g[-1].end)]


_UTC_LABEL = re.compile(r"\s*\(?(?:UTC|GMT)\)?(?![\w+\u2212])", re.IGNORECASE)
# A time of day written with an h ("13h30", "16h", "9 h 30": French, also a duration) or as four digits ("1330",
# "0930": a number as often), which `mentions` reads as a duration or a number or not at all.
_HOUR_MARKED = re.compile(
    r"(?<![\w:.+\u2212])(?<![^\dhH]-)(?:(?P<h>[01]?\d|2[0-3])\s?[hH](?:\s?(?P<m>[0-5]\d))?(?![\w:])"
    r"|(?P<xh>[01]\d|2[0-3])(?P<xm>[0-5]\d)(?![\w:.,/]|-\d{1,2}-))")
# What labels such a time as one of the day: a zone, an offset, "your time" after it.
_ZONE_LABELLED = re.compile(r"\s*\(?\s*(?:(?:UTC|GMT)(?![\w/])|[+\-\u2212]\d|(?:in\s+)?(?:" + _THEIRS + "|" + _MINE +
                            r"))|" + ZONE_AFTER.pattern, re.IGNORECASE)


def _marked_times(text: str, placed: list[When]) -> list[When]:
    """The times written with an h or as four digits (`_HOUR_MARKED`) that no other reading of `text` places: not
    within a time, a date, a phone number or an amount already read (`placed`), nor within a date-time."""
    taken = [(w.start, w.end) for w in placed] + [(m.start(), m.end()) for m in _ISO.finditer(text)]
    out = []
    for m in _HOUR_MARKED.finditer(text):
        if any(s < m.end() and m.start() < e for s, e in taken):
            continue
        hour, minute = (m["h"], m["m"]) if m["h"] is not None else (m["xh"], m["xm"])
        out.append(When("time", ((None, int(hour), int(minute or 0)),), m.group(0), m.start(), m.end()))
    return out


# The Americas' generic abbreviations, whichever the season.
_GENERIC = {"ET": ("EST", "EDT"), "CT": ("CST", "CDT"), "MT": ("MST", "MDT"), "PT": ("PST", "PDT")}


def _abbreviated(text: str, end: int, instants: set[int], zones: set[str]) -> list[str | None]:
    """The zones a time ending at `end` is labelled with by an abbreviation, in any case ("9.00 ist", "2.30 Edt"):
    those of `zones` that use it at one of the `instants`; [None] (try none) where the label is an abbreviation no
    known zone uses (a labelled time is not the reader's to place), [] where no abbreviation follows."""
    m = ZONE_AFTER.match(text, end)
    word = re.fullmatch(r"\W*([A-Za-z]{2,5})\W*", m.group(0)) if m is not None else None
    if word is None:
        return []
    said = word.group(1).upper()
    names = set(_GENERIC.get(said, (said,)))
    hits = [z for z in sorted(zones) if any(datetime.fromtimestamp(i, zone(z)).tzname() in names for i in instants)]
    if not hits and said in _NUMERIC_NAMED:  # "11:00 BRT": Sao Paulo's zone names itself "-03"
        hits = [z for z in sorted(zones) for i in instants if _render(i, z)[2] == _NUMERIC_NAMED[said]
                and (datetime.fromtimestamp(i, zone(z)).tzname() or "?")[:1] in "+-"]
    return list(dict.fromkeys(hits)) or [None]


def _other_season(instant: int, name: str) -> int | None:
    """The zone's UTC offset (seconds) in the other season around the instant; None where it keeps one offset."""
    now = datetime.fromtimestamp(instant, zone(name)).utcoffset()
    for days in (91, -91, 182, -182):
        then = datetime.fromtimestamp(instant + days * 86400, zone(name)).utcoffset()
        if then is not None and now is not None and then != now:
            return int(then.total_seconds())
    return None


def in_season(text: str, instants: set[int], recipient: str | None, zones: set[str]) -> str | None:
    """`text` with each time labelled with a zone ("15:00 Berlin", "11:00 your time") that is no known instant as the
    zone reads it, but one as the zone reads it in the other season (standard time in summer, daylight-saving time in
    winter: the writer's fixed offset), written as the zone reads it then; None where nothing changes."""
    label = _label(zones)
    edits: dict[tuple[int, int], str] = {}
    for group in _ranges(text):
        lab = label.match(text, group[-1].end)  # a range's label, after its last time, is each of its times'
        named = _label_zone(lab.group("l"), recipient, zones) if lab else None
        if named is None or named == "UTC":
            continue
        hms = [w.values[0][1:] for w in group]
        for k, hm in enumerate(hms):  # the first time of the range that names an instant, in this season or the other
            if any(_render(i, named)[:2] == hm for i in instants):
                break
            at = next((i for i in sorted(instants) if (other := _other_season(i, named)) is not None
                       and divmod(((i + other) % 86400) // 60, 60) == hm), None)
            if at is not None:  # the range's every time moved with it
                for w, i in zip(group, _together(hms, k, at), strict=True):
                    hour, minute, _ = _render(i, named)
                    edits[(w.start, w.end)] = f"{hour:02d}:{minute:02d}"
                break
    if not edits:
        return None
    out, at = [], 0
    for (start, end), new in sorted(edits.items()):
        out += [text[at:start], new]
        at = end
    return "".join(out) + text[at:]


@lru_cache(maxsize=1024)
def _phrase(words: str) -> re.Pattern[str]:
    """What names the zone asked for after a channel: UTC, the reader's, the user's own, or one of `words`."""
    return re.compile(rf"(?P<utc>{_UTC})|(?P<theirs>{_THEIRS})|(?P<mine>{_MINE})" +
                      (rf"|(?P<named>\b(?:{words})\b)" if words else ""), re.IGNORECASE)


def _label(zones: set[str]) -> re.Pattern[str]:
    """A zone's label after a time (or after a range's end): "UTC", "your time", "Berlin", "(Asia/Dubai)"."""
    return _label_of(_zone_words(zones))


@lru_cache(maxsize=1024)
def _label_of(words: str) -> re.Pattern[str]:
    return re.compile(r"\s*(?:-\s*\d{1,2}:\d{2}\s*)?\(?\s*(?:in\s+)?(?P<l>" + _UTC + "|" + _THEIRS +
                      (rf"|\b(?:{words})\b(?:\s+time\b)?" if words else "") + r")", re.IGNORECASE)


def _people(world: World) -> dict[str, str]:
    """Each person's time zone by id, email and chat handle (lower case)."""
    try:
        people = world.table("directory", "people")
    except KeyError:
        return {}
    out = {}
    for p in people:
        for ref in (p.id, p.email, p.chat_handle):
            if ref:
                out[str(ref).lower().lstrip("@")] = p.timezone
    return out


def _recipient(call: ToolCallSpec, tool: ToolDef, people: dict[str, str]) -> str | None:
    """The zone of the one person a message goes to (a declared tool's call read through its binding); None for a
    channel post or several people in several zones."""
    arguments = dict(call.arguments)
    if isinstance(tool, DeclaredTool):
        try:
            arguments = bind_arguments(tool.decl.bind, arguments)
        except (ToolError, ValueError, TypeError):
            return None
    value = arguments.get("person", arguments.get("to"))
    refs = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    found = {people.get(str(r).lower().lstrip("@")) for r in refs}
    return found.pop() if len(found) == 1 and None not in found else None


def _instants(value: object) -> set[int]:
    if isinstance(value, str):
        return {parse_time(m.group(0)) for m in _ISO.finditer(value)}
    if isinstance(value, list):
        return {i for v in value for i in _instants(v)}
    if isinstance(value, dict):
        return {i for v in value.values() for i in _instants(v)}
    return set()


def user_zones(spec: EnvSpec, world: World) -> Iterator[UserFormatted]:
    """One replay per reply or written message giving a known instant's clock time in another zone than the turn asks
    that output in (or, where it names none, than the reader's own)."""
    return _replays(spec, world, "zone")


def stale_offsets(spec: EnvSpec, world: World) -> Iterator[UserFormatted]:
    """One replay per reply or written message giving a known instant's clock time, labelled with a zone, as that zone
    reads it in the other season (`in_season`), with the time as the zone reads it then."""
    return _replays(spec, world, "season")


def _replays(spec: EnvSpec, world: World, mode: str) -> Iterator[UserFormatted]:
    people = _people(world)
    user = people.get(spec.user.lower())
    zones = set(people.values()) | {"UTC"}
    if user is None or len(zones) < 2:
        return
    instants: set[int] = set()
    catalog = spec_catalog(spec)  # a declared mail or chat tool writes a message too
    for t, turn in enumerate(spec.reference[:len(spec.turns)]):
        text = spec.turns[t].content
        said = " ".join(u.content for u in spec.turns[:t + 1])
        for s, step in enumerate(turn.steps):
            call = step.call
            tool = catalog.get(call.name) if call is not None else None
            kind, values = "reply", {}
            recipient: str | None = user
            if step.say is not None:
                values = {"say": step.say}
            elif call is not None and tool is not None and is_write(call.name, catalog) and tool.app in ("mail", "chat"):
                kind, recipient = tool.app, _recipient(call, tool, people)
                values = {a: v for a, v in call.arguments.items() if isinstance(v, str) and " " in v.strip()}
            asked, named = _asked(text, kind, user, recipient, zones) if values and mode == "zone" else (None, False)
            changed = {}
            for arg, value in values.items():
                known = instants | _instants(value) if step.say is not None else instants
                new = (in_zone(value, asked, known, recipient, user, zones, said, named) if asked else None) \
                    if mode == "zone" else in_season(value, known, recipient, zones)
                if new is not None:
                    changed[arg] = new
            if mode == "zone" and call is not None and step.say is None and is_write(call.name, catalog):
                changed |= _zone_arguments(call, text, user, zones)
            if changed:
                how = "with its times as their zones read them then" if mode != "zone" else \
                    f"with its times in {asked}" if asked else "with the zone the turn names"
                if step.say is not None:
                    yield UserFormatted(f"reference[{t}].steps[{s}].say", f"the reply of turn {t} {how} "
                                        f"({changed['say']!r})", None,
                                        replaced(spec.reference, t, s, ReferenceStep(say=changed["say"])))
                elif call is not None:
                    shown = ", ".join(f"{a} {v!r}" for a, v in changed.items())
                    yield UserFormatted(f"reference[{t}].steps[{s}].call.arguments.{next(iter(changed))}",
                                        f"{call.name} {how} ({shown})", call.name,
                                        replaced(spec.reference, t, s, ReferenceStep(
                                            call=ToolCallSpec(name=call.name, arguments={**call.arguments, **changed}))))
            if call is not None and is_write(call.name, catalog):
                instants |= _instants(call.arguments)  # (a read's window, free/busy 07:00-11:30, is no such instant)
