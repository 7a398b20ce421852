"""Format pinned: the user gives a date or a time in one format ("by 2026-06-02", "on Tuesday 3 November", "ends at
02:30"), the writer's reference relays it in another ("2 June 2026", "2026-11-03", "2:30 am") and the check on the
message or the reply wants the writer's format. An honest agent that copies the user's format fails; the sound twin
accepts either format (a term of alternatives, or `matches` on either).

The same where the value comes from the document the answer is read from: the contract file says "renewal date |
2027-04-19" or "approval limit | EUR 41,620", the writer's reply and checks say "19/04/2027" or "41,620 EUR"; an
honest agent that copies the file fails. The sound twin wants the value as the document gives it."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from tests.defects._core import CorpusError, Defect, Spec, reference

CLASS = "format_pinned"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "replay the reference with each date, time or amount its messages and replies write, that the user (or a "
    "document the reference read) wrote in another format, written as they did; where a check the reference passes "
    "then fails, it pins the writer's format"
)

@dataclass(frozen=True)
class When:
    """A date (year or None, month, day) or a time (None, hour, minute) the user wrote, and how."""

    kind: str
    values: tuple[tuple[int | None, int, int], ...]
    shown: str


_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]
Writer = Callable[[When, int], str]


def _date_as(pattern: str) -> Writer:
    """A date in the writer's `pattern` ({d} day, {m} month number, {M} month name, {y} year)."""

    def writer(when: When, year: int) -> str:
        y, m, d = when.values[0]
        return pattern.format(d=d, m=m, M=_MONTHS[m - 1], y=y or year)
    return writer


day_month = _date_as("{d} {M}")  # 2026-06-02 as "2 June"
slash_date = _date_as("{d:02d}/{m:02d}/{y}")  # 2026-06-12 as "12/06/2026" (day first)
month_day = _date_as("{M} {d}")  # 2026-06-02 as "June 2"
iso_date = _date_as("{y}-{m:02d}-{d:02d}")  # Tuesday 3 November as "2026-11-03"


def twelve_hour(when: When, year: int) -> str:
    """02:30 as "2:30 am"."""
    _, h, m = when.values[0]
    return f"{h % 12 or 12}:{m:02d} {'pm' if h >= 12 else 'am'}"


# Where the writer relays the user's date or time: (turn, tool and its text argument, or None for the turn's reply,
# the table and field a check on the message reads).
Site = tuple[int, str | None, str, str, str]
DM: Site = (0, "chat_send_dm", "text", "chat", "messages")
POST: Site = (0, "chat_post_message", "text", "chat", "messages")
MAIL: Site = (0, "mail_send", "body", "mail", "messages")


# The formats the generators' users write (kept apart from the gate's own reading, `validate._user_formats`).
_ISO = re.compile(r"(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?![\w-])")
_PROSE = re.compile(r"\b(?:[A-Z][a-z]+day )?(\d{1,2}) (" + "|".join(_MONTHS) + r")\b")
_CLOCK = re.compile(r"\b(\d{2}):(\d{2})\b")


def _user_when(spec: Spec, turn: int, kind: str) -> When:
    for content in (t["content"] for t in spec["turns"][:turn + 1]):
        if kind == "date":
            if m := _ISO.search(content):
                return When(kind, ((int(m[1]), int(m[2]), int(m[3])),), m[0])
            if m := _PROSE.search(content):
                return When(kind, ((None, _MONTHS.index(m[2]) + 1, int(m[1])),), m[0])
        elif m := _CLOCK.search(content):
            return When(kind, ((None, int(m[1]), int(m[2])),), m[0])
    raise CorpusError(f"{spec['capability']}: the user writes no {kind} up to turn {turn}")


def _step(spec: Spec, turn: int, tool: str | None) -> dict[str, Any]:
    for step in reversed(spec["reference"][turn]["steps"]) if tool is None else spec["reference"][turn]["steps"]:
        if (tool is None and step.get("say")) or (tool is not None and (step.get("call") or {}).get("name") == tool):
            return step  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: turn {turn} of the reference has no {tool or 'reply'}")


def _text_of(step: dict[str, Any], arg: str) -> str:
    return step["say"] if "say" in step and step.get("say") else step["call"]["arguments"][arg]  # type: ignore[no-any-return]


def _set_text(step: dict[str, Any], arg: str, text: str) -> None:
    if step.get("say"):
        step["say"] = text
    else:
        step["call"]["arguments"][arg] = text


def _relayed(text: str, user: str, writer: str) -> str:
    """The text with the user's date or time in the writer's format, or with it added where the text has none."""
    if user in text:
        return text.replace(user, writer)
    on = "" if writer.startswith(("today", "tomorrow", "next ")) else "on "  # "tomorrow", not "on tomorrow"
    return re.sub(r"([.?!]?)$", rf" {on}{writer}\1", text.rstrip(), count=1)


def _year(spec: Spec) -> int:
    return int(spec["world"]["start"][:4])


def _edit(site: Site, kind: str, writer: Writer, defect: bool) -> Callable[[Spec], None]:
    """The reference relays the user's date or time in the writer's format; a check pins it (the defect) or accepts
    the user's format too (the twin)."""
    turn, tool, arg, app, table = site

    def edit(spec: Spec) -> None:
        user = _user_when(spec, turn, kind)
        mine = writer(user, _year(spec))
        step = _step(spec, turn, tool)
        _set_text(step, arg, _relayed(_text_of(step, arg), user.shown, mine))
        either = f"(?i)(?:{re.escape(mine)}|{re.escape(user.shown)})"
        rule: dict[str, Any]
        if tool is None:
            rule = {"kind": "text", "scope": "final", "turn": turn, "all_of": [mine if defect else [mine, user.shown]]}
        else:
            where = [{"field": arg, "op": "contains", "value": mine} if defect else
                     {"field": arg, "op": "matches", "value": either}]
            if app == "mail":
                where.insert(0, {"field": "folder", "value": "sent"})
            rule = {"kind": "records", "app": app, "table": table, "where": where, "count_op": "gte", "count": 1}
        spec["checks"].append({"id": f"{kind}-relayed", "description": f"the {kind} the user gave is relayed",
                               "rule": rule})
    return edit


def _honest(site: Site, kind: str, writer: Writer) -> Callable[[Spec], list[dict[str, Any]]]:
    """The twin's reference with the date or time written as the user wrote it."""
    turn, tool, arg, _, _ = site

    def witness(spec: Spec) -> list[dict[str, Any]]:
        user = _user_when(spec, turn, kind)
        ref = reference(spec)
        step = _step({"reference": ref, "capability": spec["capability"]}, turn, tool)
        _set_text(step, arg, _text_of(step, arg).replace(writer(user, _year(spec)), user.shown))
        return ref
    return witness


# A fact the reference copies from a document, as the document writes it (ISO dates, "EUR 41,620").
_FACT = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\bEUR \d{1,3}(?:,\d{3})+")


def _fact(spec: Spec) -> str:
    """The first date or amount the reference's messages copy from a document."""
    for turn in spec["reference"]:
        for step in turn["steps"]:
            call = step.get("call") or {}
            if call.get("name") in ("mail_send", "mail_save_draft", "chat_send_dm"):
                text = call["arguments"].get("body") or call["arguments"].get("text") or ""
                if m := _FACT.search(text):
                    return m[0]
    raise CorpusError(f"{spec['capability']}: the reference relays no date or amount")


def euro_after(fact: str) -> str:
    """EUR 41,620 as "41,620 EUR"."""
    return f"{fact.removeprefix('EUR ')} EUR"


def euro_sign(fact: str) -> str:
    """EUR 41,620 as "€41,620"."""
    return f"€{fact.removeprefix('EUR ')}"


def slashes(fact: str) -> str:
    """2027-04-19 as "19/04/2027"."""
    y, m, d = fact.split("-")
    return f"{d}/{m}/{y}"


def _relayed_in(writer: Callable[[str], str]) -> Callable[[Spec], None]:
    """The reference and the checks write the document's date or amount in the writer's format."""

    def edit(spec: Spec) -> None:
        fact = _fact(spec)
        mine = writer(fact)
        for part in ("reference", "checks"):
            spec[part] = orjson.loads(orjson.dumps(spec[part]).decode().replace(fact, mine))
    return edit


def _from_document(name: str, base: str, writer: Callable[[str], str], away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_relayed_in(writer), witness=reference, witness_kind="honest",
                  gate="mutations", code="format_pinned")


def _pair(name: str, base: str, site: Site, kind: str, writer: Writer, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_edit(site, kind, writer, True), fix=_edit(site, kind, writer, False),
                  witness=_honest(site, kind, writer), witness_kind="honest", gate="mutations", code="format_pinned")


_DUE = "fails the agent that asks in the DM for the date as the user wrote it (2026-06-02), not as '2 June'"
_DUE_SLASH = "fails the agent that asks in the DM for the date as the user wrote it (2026-06-12), not as '12/06/2026'"
_DUE_REPLY = "fails the agent whose reply gives the due date as the user wrote it (2026-06-02), not as 'June 2'"
_DAY = "fails the agent that writes the day as the user did ('Tuesday 3 November'), not as an ISO date"
_SHIFT = "fails the agent that posts the shift's end as the user wrote it (02:30), not as '2:30 am'"
_FILE_DATE = "fails the agent that copies the date as the document gives it (2027-04-19), not as '19/04/2027'"
_FILE_AMOUNT = "fails the agent that copies the amount as the document gives it (EUR 41,620), not in the writer's format"
_REPLY_TURN_1: Site = (1, None, "say", "", "")

DEFECTS = [
    _pair("dm-due-date-day-month", "synth:delegate_and_follow_up@1", DM, "date", day_month, _DUE),
    _pair("dm-due-date-slashes", "synth:delegate_and_follow_up@2", DM, "date", slash_date, _DUE_SLASH),
    _pair("dm-due-date-day-month-3", "synth:delegate_and_follow_up@3", DM, "date", day_month, _DUE),
    _pair("reply-due-date-month-day", "synth:delegate_and_follow_up@1", _REPLY_TURN_1, "date", month_day, _DUE_REPLY),
    _pair("booking-mail-iso-day", "synth:schedule_meeting_timezones@1", MAIL, "date", iso_date, _DAY),
    _pair("booking-mail-iso-day-2", "synth:schedule_meeting_timezones@2", MAIL, "date", iso_date, _DAY),
    _pair("moved-dm-iso-day", "synth:reschedule_conflict@1", DM, "date", iso_date, _DAY),
    _pair("moved-dm-iso-day-2", "synth:reschedule_conflict@2", DM, "date", iso_date, _DAY),
    _pair("handoff-post-twelve-hour", "synth:oncall_handoff@1", POST, "time", twelve_hour, _SHIFT),
    _pair("handoff-post-twelve-hour-2", "synth:oncall_handoff@2", POST, "time", twelve_hour, _SHIFT),
    _from_document("reply-renewal-slashes", "synth:inbox_triage_reply@1", slashes, _FILE_DATE),
    _from_document("reply-renewal-slashes-2", "synth:inbox_triage_reply@2", slashes, _FILE_DATE),
    _from_document("draft-review-date-slashes", "synth:draft_only_reply@1", slashes, _FILE_DATE),
    _from_document("draft-review-date-slashes-11", "synth:draft_only_reply@11", slashes, _FILE_DATE),
    _from_document("dm-renewal-slashes-6", "synth:lookup_answer_source@6", slashes, _FILE_DATE),
    _from_document("dm-annual-value-euro-after", "synth:lookup_answer_source@2", euro_after, _FILE_AMOUNT),
    _from_document("dm-approval-limit-euro-sign", "synth:lookup_answer_source@11", euro_sign, _FILE_AMOUNT),
]


# -- phone numbers: the document (a mail, a file) writes "+31 284 9988", the writer "+31-284-9988" -----------------
_PHONE = re.compile(r"\+\d{2}(?: \d{3,4}){2,3}\b")


def phone_dashes(number: str) -> str:
    """+31 284 9988 as "+31-284-9988"."""
    return number.replace(" ", "-")


def phone_compact(number: str) -> str:
    """+31 284 9988 as "+312849988"."""
    return number.replace(" ", "")


def checked_fact(spec: Spec, pattern: re.Pattern[str], what: str) -> str:
    """The value (`pattern`, whole) a completion check wants the reference's message to hold, as the document writes
    it."""
    for c in spec["checks"]:
        for cond in c["rule"].get("where") or []:
            if cond.get("op") == "contains" and isinstance(cond.get("value"), str) and pattern.fullmatch(cond["value"]):
                return cond["value"]  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: no check wants {what} in a message")


def fact_relayed(pattern: re.Pattern[str], what: str, writer: Callable[[str], str]) -> Callable[[Spec], None]:
    """The reference's messages and replies, and the checks, write the document's value as the writer does."""

    def edit(spec: Spec) -> None:
        fact = checked_fact(spec, pattern, what)
        for part in ("reference", "checks"):
            spec[part] = orjson.loads(orjson.dumps(spec[part]).decode().replace(fact, writer(fact)))
    return edit


def _phone_relayed(writer: Callable[[str], str]) -> Callable[[Spec], None]:
    """The reference's messages and the checks write the document's phone number in the writer's grouping."""
    return fact_relayed(_PHONE, "a phone number", writer)


def _mailed_number(spec: Spec) -> str:
    """The new number the customer mailed (the value the contact card gets)."""
    call = next(s["call"] for t in spec["reference"] for s in t["steps"]
                if (s.get("call") or {}).get("name") == "contacts_update")
    return call["arguments"]["phone"]  # type: ignore[no-any-return]


def _confirmed_in(writer: Callable[[str], str]) -> Callable[[Spec], None]:
    """The confirmation mail (and the reply) write the mailed number in the writer's grouping; the check on the
    mail wants that grouping, where the sound one matches the digits however they are grouped."""

    def edit(spec: Spec) -> None:
        number = _mailed_number(spec)
        for turn in spec["reference"]:
            for step in turn["steps"]:
                if step.get("say"):
                    step["say"] = step["say"].replace(number, writer(number))
                elif (step.get("call") or {}).get("name") == "mail_send":
                    step["call"]["arguments"]["body"] = step["call"]["arguments"]["body"].replace(number, writer(number))
        conds = [cond for c in spec["checks"] if c["id"] == "confirmed" for cond in c["rule"]["where"]
                 if cond["field"] == "body"]
        if not conds:
            raise CorpusError(f"{spec['capability']}: no check on the confirmation mail's body")
        conds[0].update(op="contains", value=writer(number))
    return edit


def _card_in(writer: Callable[[str], str]) -> Callable[[Spec], None]:
    """The contact card gets the mailed number in the writer's grouping, and the check on the card wants it."""

    def edit(spec: Spec) -> None:
        number = _mailed_number(spec)
        for turn in spec["reference"]:
            for step in turn["steps"]:
                if (step.get("call") or {}).get("name") == "contacts_update":
                    step["call"]["arguments"]["phone"] = writer(number)
        rule = next((c["rule"] for c in spec["checks"] if c["id"] == "phone-updated"), None)
        if rule is None or rule.get("value") != number:
            raise CorpusError(f"{spec['capability']}: no check wants the card to hold {number}")
        rule["value"] = writer(number)
    return edit


def _card_and_mail(writer: Callable[[str], str]) -> Callable[[Spec], None]:
    """The card and the confirmation mail both get the mailed number in the writer's form; the checks want it."""

    def edit(spec: Spec) -> None:
        _confirmed_in(writer)(spec)
        _card_in(writer)(spec)
    return edit


def _phone_case(name: str, base: str, edit: Callable[[Spec], None], away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=edit, witness=reference, witness_kind="honest", gate="mutations",
                  code="format_pinned")


_FILE_PHONE = "fails the agent that copies the number as the document groups it (+31 284 9988), not as '+31-284-9988'"
_MAILED = "fails the agent that confirms the number as the customer grouped it in the mail, not in the writer's grouping"
_CARD = "fails the agent that saves the number on the card as the customer wrote it, not without its spaces"

DEFECTS += [
    _phone_case("dm-hotline-dashes-8", "synth:lookup_answer_source@8", _phone_relayed(phone_dashes), _FILE_PHONE),
    _phone_case("dm-hotline-compact-12", "synth:lookup_answer_source@12", _phone_relayed(phone_compact), _FILE_PHONE),
    _phone_case("reply-reception-dashes-12", "synth:inbox_triage_reply@12", _phone_relayed(phone_dashes), _FILE_PHONE),
    _phone_case("reply-reception-compact-16", "synth:inbox_triage_reply@16", _phone_relayed(phone_compact),
                _FILE_PHONE),
    _phone_case("draft-hotline-dashes-2", "synth:draft_only_reply@2", _phone_relayed(phone_dashes), _FILE_PHONE),
    _phone_case("draft-reception-compact-4", "synth:draft_only_reply@4", _phone_relayed(phone_compact), _FILE_PHONE),
    _phone_case("confirm-phone-dashes", "synth:contact_phone_update@1", _confirmed_in(phone_dashes), _MAILED),
    _phone_case("confirm-phone-compact-2", "synth:contact_phone_update@2", _confirmed_in(phone_compact), _MAILED),
    _phone_case("card-phone-compact", "synth:contact_phone_update@1", _card_in(phone_compact), _CARD),
    _phone_case("card-phone-dashes-4", "synth:contact_phone_update@4", _card_in(phone_dashes), _CARD),
]


# -- phone numbers without their country code: the document writes "0284 9988", the writer "0284-9988" ----------
_NATIONAL = re.compile(r"0\d{3} \d{4}")


def national(number: str) -> str:
    """+31 284 9988 as the number is dialled at home, "0284 9988"."""
    return "0" + number.split(" ", 1)[1]


def _at_home(spec: Spec) -> None:
    """The document (and everything quoting it) gives the phone number without its country code: the twin."""
    fact = checked_fact(spec, _PHONE, "a phone number")
    spec.update(orjson.loads(orjson.dumps(spec).decode().replace(fact, national(fact))))


def _at_home_relayed(writer: Callable[[str], str]) -> Callable[[Spec], None]:
    """The document gives the number without its country code; the writer's messages and the checks group it
    otherwise."""
    relay = fact_relayed(_NATIONAL, "a phone number without its country code", writer)

    def edit(spec: Spec) -> None:
        _at_home(spec)
        relay(spec)
    return edit


def _national_case(name: str, base: str, writer: Callable[[str], str], away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_at_home_relayed(writer), fix=_at_home, witness=reference,
                  witness_kind="honest", gate="mutations", code="format_pinned")


_AT_HOME = "fails the agent that copies the number as the document writes it (0284 9988), not as '{w}'"

DEFECTS += [
    _national_case("dm-hotline-national-dashes-8", "synth:lookup_answer_source@8", phone_dashes,
                   _AT_HOME.format(w="0284-9988")),
    _national_case("dm-hotline-national-compact-12", "synth:lookup_answer_source@12", phone_compact,
                   _AT_HOME.format(w="02849988")),
    _national_case("reply-reception-national-dashes-12", "synth:inbox_triage_reply@12", phone_dashes,
                   _AT_HOME.format(w="0284-9988")),
    _national_case("reply-reception-national-compact-16", "synth:inbox_triage_reply@16", phone_compact,
                   _AT_HOME.format(w="02849988")),
    _national_case("draft-hotline-national-dashes-2", "synth:draft_only_reply@2", phone_dashes,
                   _AT_HOME.format(w="0284-9988")),
    _national_case("draft-reception-national-compact-4", "synth:draft_only_reply@4", phone_compact,
                   _AT_HOME.format(w="02849988")),
]


# -- the source found by a search and never opened: the reference lists or searches the files (or the mail), the
# hits name the document, and the writer's script answers from it without opening it ---------------------------
_OPENS = {"files_read_file": ("files_search_files", "files_list_files"),
          "mail_read_message": ("mail_search", "mail_list_messages")}


def _unopened(spec: Spec) -> None:
    """The reference without the calls opening a document that an earlier search or listing of its turn found."""
    dropped = 0
    for turn in spec["reference"]:
        kept, looked = [], set()
        for step in turn["steps"]:
            name = (step.get("call") or {}).get("name")
            if name in _OPENS and looked & set(_OPENS[name]):
                dropped += 1
                continue
            looked.add(name)
            kept.append(step)
        turn["steps"] = kept
    if not dropped:
        raise CorpusError(f"{spec['capability']}: the reference opens no document a search found")


def _searched(edit: Callable[[Spec], None]) -> Callable[[Spec], None]:
    def both(spec: Spec) -> None:
        _unopened(spec)
        edit(spec)
    return both


def _search_case(name: str, base: str, edit: Callable[[Spec], None], away: str, opened: bool = False) -> Defect:
    """`opened`: the base's reference already reads the source only through a search's hits (no twin edit)."""
    return Defect(CLASS, name, base, away, breaks=edit if opened else _searched(edit), fix=None if opened else _unopened,
                  witness=reference, witness_kind="honest", gate="mutations", code="format_pinned")


_SEARCHED = " (the reference found the document by a search and never opened it)"

DEFECTS += [
    _search_case("searched-dm-hotline-dashes-8", "synth:lookup_answer_source@8", _phone_relayed(phone_dashes),
                 _FILE_PHONE + _SEARCHED),
    _search_case("searched-dm-hotline-compact-12", "synth:lookup_answer_source@12", _phone_relayed(phone_compact),
                 _FILE_PHONE + _SEARCHED),
    _search_case("searched-reply-reception-dashes-12", "synth:inbox_triage_reply@12", _phone_relayed(phone_dashes),
                 _FILE_PHONE + _SEARCHED),
    _search_case("searched-reply-reception-compact-16", "synth:inbox_triage_reply@16", _phone_relayed(phone_compact),
                 _FILE_PHONE + _SEARCHED),
    _search_case("searched-draft-reception-compact-4", "synth:draft_only_reply@4", _phone_relayed(phone_compact),
                 _FILE_PHONE + _SEARCHED),
    _search_case("searched-draft-hotline-dashes-2", "synth:draft_only_reply@2", _phone_relayed(phone_dashes),
                 _FILE_PHONE + _SEARCHED),
    _search_case("searched-dm-annual-value-euro-after", "synth:lookup_answer_source@2", _relayed_in(euro_after),
                 _FILE_AMOUNT + _SEARCHED),
    _search_case("searched-reply-renewal-slashes", "synth:inbox_triage_reply@1", _relayed_in(slashes),
                 _FILE_DATE + _SEARCHED),
    _search_case("searched-card-phone-compact-3", "synth:contact_phone_update@3", _card_and_mail(phone_compact),
                 _CARD + " (the reference found the mail by a search)", opened=True),
    _search_case("searched-confirm-phone-dashes-3", "synth:contact_phone_update@3", _confirmed_in(phone_dashes),
                 _MAILED + " (the reference found the mail by a search)", opened=True),
    _search_case("searched-card-phone-dashes-12", "synth:contact_phone_update@12", _card_and_mail(phone_dashes),
                 _CARD + " (the reference found the mail by a search)", opened=True),
    _search_case("searched-confirm-phone-compact-12", "synth:contact_phone_update@12", _confirmed_in(phone_compact),
                 _MAILED + " (the reference found the mail by a search)", opened=True),
]
