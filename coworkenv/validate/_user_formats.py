"""Dates, times, durations, amounts and numbers the reference writes in another format than the user, or the document
the answer comes from, gave them: the user asks for the ticket to be picked up "by 2026-06-02", the meeting on "Tuesday
3 November", the shift ending "at 02:30"; the contract file says "renewal date | 2027-04-19", "approval limit | EUR
41,620"; and the reference's message (or reply) says "2 June", "2026-11-03", "2:30 am", "19/04/2027", "41,620 EUR". An
honest agent copies the format it was given; where the reference replayed with it fails a check, the check pins the
writer's format (a `contains` on the message, a text check's term), which nobody asked for (`format_pinned`). A time
is read however the clock is written ("02:30", "02.30", "0230h", "2.30 am", "14h30", "7h", "17:00 hrs", "9 o'clock",
"half past two", "quarter to nine", "noon", "one in the afternoon": the French hour mark and an hour unit read as a
duration too, "a 1h30 meeting"), a date also as an ISO week date ("2026-W23-2", "2026W232") or without its year
("3/11" either way round, "03.11." day first with two digits each, which is also the time 03:11 ending a
sentence).

Phone numbers the same: the customer's mail says "+41 650 123 456", the reference writes "+41-650-123-456" (or
"+41650123456") into the reply or the contact card, and a check wants the writer's grouping. A number is read with
its country code ("+41 ...") or as dialled at home, from a trunk 0 ("020 7946 0958", "(0284) 9988"), its digits
compared however they are grouped (a number given one way and written the other is not the same: the country code is
a fact the writer adds).

Only prose is rewritten: a reply, or a free-text argument of a write (one with a space in it; a date-time argument,
`2026-11-03T09:30:00Z`, is the tool's format, not the user's), or a structured argument that is one phone number and
nothing else; and only a date, time, duration, amount, number or phone number whose value the turns so far or the
records the reference's read calls name so far (a file, a mail, an article) hold, written otherwise (same month and
day, the year where both give one; same hour and minute; same minutes; same sum, and currency where both give one;
same digits). The replay counts only where the tool took the text (a message tool takes any).

Durations and numbers the same: the user books "a 60-minute" meeting or "(45 min)", the writer says "1 hour", "1h",
"0.75 h", "45 minutes", "45'", "60m" (read as minutes, however written, words and fractions included: "half an
hour", "forty-five minutes", "two hours", "2 days", "¾ h", "3/4 hour", "1½ hours", "an hour and a quarter",
"half-hour", "1-hour"); the contract file says "EUR 12,973", the writer "12973", "12,973 euros", "€12.973",
"€12.973k" or "12 973" (a number is read however it is grouped, with a comma, a dot, a space or none, the Indian way,
"1,24,500", or with its thousands, millions or billions abbreviated or in a word, "41.62 thousand", and where it has
no currency it is the same as an amount of that sum). A writer who adds the currency
the source left out adds a fact, not a format: an amount is never rewritten as a bare number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import partial

from coworkenv.apps import TOOLS
from coworkenv.checks.results import AuditEntry
from coworkenv.spec import EnvSpec, ReferenceStep, ReferenceTurn, ToolCallSpec
from coworkenv.validate._mentions import When, _is_phone, as_user_wrote, mentions
from coworkenv.validate._mutation_core import replaced
from coworkenv.validate._unasked_order import _read_documents
from coworkenv.validate.entities import leaves
from coworkenv.validate.mutations import is_write, shown_op
from coworkenv.world import World, parse_time


@dataclass(frozen=True)
class UserFormatted:
    """The reference with one message or reply writing the user's dates and times as the user wrote them."""

    path: str
    description: str
    tool: str | None
    reference: list[ReferenceTurn]


def shown_text(audit: Iterable[AuditEntry], world: World) -> dict[int, Callable[[], str]]:
    """Per turn, the text the reference's read calls were shown, read when asked for: every string in their results
    (a search's or a listing's hits as well as an opened file), and the text fields of each record of the tool's app
    that a result names by id, as the initial `world` holds it (a search lists the mail the number is in; the agent
    opens it)."""
    by_turn: dict[int, list[AuditEntry]] = {}
    for entry in audit:
        if entry.ok and shown_op(entry) is not None:  # a declared read's too
            by_turn.setdefault(entry.turn, []).append(entry)
    return {t: partial(_shown, entries, world) for t, entries in by_turn.items()}


def _shown(entries: list[AuditEntry], world: World) -> str:
    texts: list[str] = []
    for entry in entries:
        app = TOOLS[shown_op(entry) or entry.tool].app
        for value in dict.fromkeys(v for v in leaves(entry.result) if isinstance(v, str)):
            texts.append(value)
            for table in world.tables():
                rec = table.get(value) if table.app == app else None
                if rec is not None:
                    texts += [v for v in rec.model_dump().values() if isinstance(v, str)]
    return " ".join(texts)


class _Said:
    """What the user and the sources said so far, read only when a reply or a write of the reference holds a value
    to compare (the sources a search shows can be long); each text is read against the day it was written."""

    def __init__(self) -> None:
        self._pending: list[tuple[str | Callable[[], str], date]] = []
        self._read: list[When] = []

    def add(self, text: str | Callable[[], str], today: date) -> None:
        self._pending.append((text, today))

    def so_far(self) -> list[When]:
        for text, today in self._pending:
            self._read += mentions(text if isinstance(text, str) else text(), today)
        self._pending.clear()
        return self._read


def user_formats(spec: EnvSpec, world: World | None = None,
                 seen: dict[int, Callable[[], str]] | None = None) -> Iterator[UserFormatted]:
    """One replay per reply or written free text holding a date, time, duration, amount, number or phone number the
    user (or, given the initial `world`, a document the reference read so far; given `seen`, what the reference's
    read calls were shown so far, a search's results included) wrote otherwise."""
    said = _Said()
    start, elapsed = parse_time(spec.world.start), 0
    for t, turn in enumerate(spec.reference[:len(spec.turns)]):
        elapsed += spec.turns[t].advance_s
        today = datetime.fromtimestamp(start + elapsed, UTC).date()
        said.add(spec.turns[t].content, today)
        if world is not None:
            said.add(partial(_read_documents, spec, t, world), today)
        if seen is not None and t in seen:
            said.add(seen[t], today)
        for s in range(len(turn.steps)):

            def rewrite(value: str, reply: bool, today: date = today) -> str | None:
                if not reply and " " not in value.strip() and not _is_phone(value):
                    return None
                return as_user_wrote(value, said.so_far(), today) if mentions(value, today) else None
            found = rewritten(spec, t, s, rewrite, "the reply of turn {t} as {new!r}",
                              "{tool} with {shown}, dates and times as the user wrote them")
            if found is not None:
                yield found


def rewritten(spec: EnvSpec, t: int, s: int, rewrite: Callable[[str, bool], str | None], reply: str,
              write: str) -> UserFormatted | None:
    """The reference with step `s` of turn `t` rewritten: its reply, or each string argument of its write, by
    `rewrite(text, is_reply)` (None: left as it is); described by `reply` ({t}, {new}) or `write` ({tool}, {shown})."""
    step = spec.reference[t].steps[s]
    if step.say is not None:
        new = rewrite(step.say, True)
        if new is None:
            return None
        return UserFormatted(f"reference[{t}].steps[{s}].say", reply.format(t=t, new=new), None,
                             replaced(spec.reference, t, s, ReferenceStep(say=new)))
    call = step.call
    if call is None or not is_write(call.name, spec):  # a declared write's strings too
        return None
    args = dict(call.arguments)
    changed = []
    for arg, value in call.arguments.items():
        if isinstance(value, str) and (new := rewrite(value, False)) is not None:
            args[arg] = new
            changed.append(arg)
    if not changed:
        return None
    shown = ", ".join(f"{a} {args[a]!r}" for a in changed)
    return UserFormatted(f"reference[{t}].steps[{s}].call.arguments.{changed[0]}",
                         write.format(tool=call.name, shown=shown), call.name,
                         replaced(spec.reference, t, s, ReferenceStep(call=ToolCallSpec(name=call.name, arguments=args))))
