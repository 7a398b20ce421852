"""Numbers the reference writes in words: the writer's reply says "Three of 9 pages are broken", "Added four tasks",
"Triaged three tickets", and a check wants the word (a text check's term, a `contains` on the message). A number is
the same fact in digits; nobody asked for it spelled out, and an agent that writes `3`, as the tools' results do,
fails such a check (`numeral_pinned`).

Each reply, and each free-text argument of a write (one with a space in it), that writes a number from two to
ninety-nine in words is replayed with every such number in digits (`spelled_numbers`). A count of one is read where
it counts something: `one` (or `a single`) before a noun ("one row", "Handed one incident ticket", "a single page") or
before `of` and a number ("One of 5 pages"); `one` after a determiner ("the one that failed", "this one", "each one"),
before `of` and anything else ("one of the reasons"), before a verb, a preposition or a conjunction ("one is down",
"one by one", "one or two") or at the end of a clause ("pick one.") is a pronoun and is not read. A count said as an
idiom is read the same: `a couple of` and `a pair of` (2), `half a dozen` or `a half-dozen` (6) and `a dozen` (12)
before a noun, and `a`/`an` before a noun where it counts one ("Fixed a row", "Handed an incident ticket"), not in a
phrase that counts nothing (`a few`, `a lot`, `a bit`, `a number of`, `a quarter`, `a half`, ...). A capitalised word
inside a sentence is never read (a name: "Seven Seas", "One Medical"); a word that begins a sentence is read. A number before a time unit ("forty-five minutes") is a duration: the
format replay writes it as the user gave it (`duration_pinned`), and a check that accepts the writer's words or the
user's form ("45-minute") is sound, so it is not rewritten here. Nor is an hour in a time of day said in words
("half past two", "quarter to nine", "nine o'clock", "one in the afternoon"): it is a time, which the format replay
writes as the user gave it ("02:30"), not a count.

The other way round (`digits_pinned`): the writer's reply says "Triaged 3 tickets" or "3 of 9 pages are broken" and a
check wants the digit (`all_of: ["3"]`, a `contains` of "4 rows"), so the agent that spells the count out, as many
style guides ask for numbers under a hundred ("Triaged three tickets", "Three of nine pages"), fails. Each reply, and
each free-text argument of a write, that writes a count from one to ninety-nine in digits is replayed with every such
count in words (`digit_counts`). A count is digits standing alone (not in an id, a version, a time, a date, an amount,
a phone number, a range or a decimal: `INV-12`, `v2`, `@3`, `9:30`, `3/11`, `3-5`, `2.5`) before a word in lower case
that is not a unit (`30 min`, `15 x`, `12 GB`, `85%`, `3 pm`) nor a month (`3 June`) nor a verb or a preposition
after a label (`page 3 is`), and not after a label or a name (`page 3`, `Sprint 12 tasks`, `week 42 report`); a count
written as what the agent read writes it is left as it is (copied), and so is data: JSON, a table's row, a row of
comma- or tab-separated values.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from coworkenv.checks.text import NOT_A_NOUN, ONE_COUNT, TEN_WORDS, TIME_UNIT, UNIT_WORDS, counts_one
from coworkenv.spec import EnvSpec
from coworkenv.validate._leaks import normalize, readable_text
from coworkenv.validate._mentions import _IN_WORDS, _MONTHS, _in_words, mentions
from coworkenv.validate._user_formats import UserFormatted, rewritten

_SPELLED = re.compile(r"(?<![\w'\u2019-])(?:" + _IN_WORDS + r")(?![\w'\u2019-])", re.IGNORECASE)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*)$")
_MONTH_WORDS = frozenset(_MONTHS) | {m[:3] for m in _MONTHS} | {"sept"}
# A count said as an idiom before a word (its noun): a couple of, a pair of, half a dozen, a dozen; `a`/`an` (one).
_IDIOM = re.compile(r"(?<![\w'\u2019.-])(?:(?P<two>an?\s+(?:couple|pair)\s+of)|(?P<six>(?:a\s+)?half[\s-]a[\s-]dozen|"
                    r"a\s+half-dozen)|(?P<twelve>a\s+dozen)|(?P<a>an?))(?=\s+(?P<next>[a-z][\w-]*))", re.IGNORECASE)
# Words after `a`/`an` that make a phrase counting nothing ("a few", "a lot of", "a number of"), or a fraction.
_NOT_COUNTED = frozenset({
    "few", "lot", "lots", "bit", "little", "number", "while", "moment", "half", "quarter", "third", "total", "couple",
    "pair", "dozen", "single", "kind", "sort", "bunch", "variety", "range", "majority", "minority", "great", "good",
    "whole", "further", "more", "less", "long", "short", "reminder", "heads-up", "hundred", "thousand", "million",
    "billion"
})
_IDIOM_VALUE = {"two": "2", "six": "6", "twelve": "12", "a": "1"}
_SPELLED_NUMBER = re.compile(r"(?:" + _IN_WORDS + r")$", re.IGNORECASE)


def _counts_idiom(text: str, m: re.Match[str]) -> bool:
    """Whether the idiom at `m` counts the word after it: its noun, no name, no duration, and for `a`/`an` none of
    the phrases that count nothing (`a few`, `a lot`) nor a number (`a forty-five minutes slot`, `a hundred`)."""
    following = m.group("next").lower()
    if following in NOT_A_NOUN or TIME_UNIT.match(text, m.end()):
        return False
    return m.group("a") is None or (following not in _NOT_COUNTED and not _SPELLED_NUMBER.match(following))


def _copied(text: str, start: int, end: int, told: str) -> bool:
    """Whether the count at `start:end`, with the word before and the word after it ("with a timeout"; the two words
    after it at the start of a text), is written as what the agent read says it (the customer's subject, the user's
    words): copied, not the writer's choice of form. Two words alone ("an incident") are too common to tell."""
    if not told:
        return False
    before = re.search(r"[\w'\u2019-]+\s+$", text[:start])
    after = re.match(r"\s+[\w'\u2019-]+" + ("" if before else r"\s+[\w'\u2019-]+"), text[end:])
    if after is None:
        return False
    return normalize((before.group(0) if before else "") + text[start:end] + after.group(0)) in told


def as_digits(text: str, told: str = "") -> str | None:
    """`text` with each number from one to ninety-nine written in words written in digits (a count of one only where
    it counts something, `counts_one`), and each count said as an idiom (`a couple of`, `an`); a count written as
    `told` (what the agent can read, `readable_text`) writes it is left as it is. None where there is none."""
    found: list[tuple[int, int, str]] = []
    times = [(w.start, w.end) for w in mentions(text) if w.kind == "time"]  # "half past two": an hour, no count
    for m in _SPELLED.finditer(text):
        if any(start <= m.start() and m.end() <= end for start, end in times):
            continue
        word = m.group(0)
        value = _in_words(word)
        if value < 2 or (word[0].isupper() and not _SENTENCE_START.search(text[:m.start()])) or \
                TIME_UNIT.match(text, m.end()):
            continue
        if not _copied(text, m.start(), m.end(), told):
            found.append((m.start(), m.end(), str(value)))
    for m in ONE_COUNT.finditer(text):
        if any(start < m.end() and m.start() < end for start, end, _ in found) or \
                (m.group(0)[0].isupper() and not _SENTENCE_START.search(text[:m.start()])) or \
                not counts_one(text, m) or _copied(text, m.start(), m.end(), told):
            continue
        found.append((m.start(), m.end(), "1"))
    for m in _IDIOM.finditer(text):
        if any(start < m.end() and m.start() < end for start, end, _ in found) or \
                (m.group(0)[0].isupper() and not _SENTENCE_START.search(text[:m.start()])) or \
                not _counts_idiom(text, m) or _copied(text, m.start(), m.end(), told):
            continue
        found.append((m.start(), m.end(), next(v for k, v in _IDIOM_VALUE.items() if m.group(k) is not None)))
    out, at = [], 0
    for start, end, digits in sorted(found):
        out += [text[at:start], digits]
        at = end
    return None if not out else "".join(out) + text[at:]


def spelled_numbers(spec: EnvSpec) -> Iterator[UserFormatted]:
    """One replay per reply or free-text write of the reference that writes a number in words, written in digits."""
    found = (_SPELLED, ONE_COUNT, _IDIOM)
    return _replays(spec, lambda v: any(p.search(v) for p in found), as_digits, "its numbers in digits")


def _replays(spec: EnvSpec, holds: Callable[[str], bool], write: Callable[[str, str], str | None],
             what: str) -> Iterator[UserFormatted]:
    """One replay per reply or free-text write (one with a space in it) of the reference where `holds` and
    `write(text, told)` rewrites it; `told` is what the agent can read, built once where a text holds one."""
    told: list[str] = []

    def rewrite(value: str, reply: bool) -> str | None:
        if (not reply and " " not in value.strip()) or not holds(value):
            return None
        told[:] = told or [readable_text(spec)]
        return write(value, told[0])

    for t, turn in enumerate(spec.reference[:len(spec.turns)]):
        for s in range(len(turn.steps)):
            found = rewritten(spec, t, s, rewrite, f"the reply of turn {{t}} with {what}, {{new!r}}",
                              f"{{tool}} with {what}, {{shown}}")
            if found is not None:
                yield found


# A count in digits: one to ninety-nine standing alone (no id, version, time, date, decimal, range or sign around it),
# before a word (`next`, checked by `_counts_digits`); a count of one is written `one`, which the number check reads
# where it counts (`coworkenv.checks.text.counts_one`: "One of 5 pages", "one row").
_DIGITS = re.compile(r"(?<![\w.,:/#@'\u2019$\u20ac\u00a3\u00a5+\u2212\u2013\u2014-])(?P<n>[1-9]\d?)"
                     r"(?=\s+(?P<next>[a-z][\w-]*))")
# Words after a count in digits that make it a quantity of a unit, a time or a date, not a count of things.
_UNIT_AFTER = frozenset({
    "x", "am", "pm", "a", "p", "h", "hr", "hrs", "m", "min", "mins", "s", "sec", "secs", "ms", "d", "wk", "wks", "mo",
    "y", "yr", "yrs", "kb", "mb", "gb", "tb", "kib", "mib", "gib", "b", "k", "kg", "g", "mg", "lb", "lbs", "km", "cm",
    "mm", "mi", "ft", "in", "percent", "pct", "per", "eur", "usd", "gbp", "chf", "jpy", "euros", "euro", "dollars",
    "pounds", "st", "nd", "rd", "th", "o'clock", "oclock", "times", "bn", "thousand", "million", "billion", "hundred",
    "degrees", "points", "pts", "px", "rps", "qps", "utc", "gmt", "cet", "est", "pst", "bst",
})
# A word before a count in digits that makes it a label ("page 3", "week 42", "version 2", "no. 4"), not a count.
_LABEL_BEFORE = re.compile(r"(?:^|\W)(?:page|pages|room|floor|step|steps|version|release|week|day|item|line|row|"
                           r"table|level|phase|tier|sprint|chapter|section|part|priority|no|number|rank|round|"
                           r"stage|slot|seat|gate|building|unit|track|option|case|issue|ticket|order|batch|"
                           r"wave|q|quarter|year|month|build|port|rev|revision|iteration|episode|test|figure|"
                           r"appendix|article|rule|clause|lot|bay|aisle|shelf|zone|region|ring|node)\.?\s+$",
                           re.IGNORECASE)


# A row of a table or of comma- or tab-separated data ("| p1 | 4 | 3 |", "Widget A,3 units,EUR 12"): data, not prose.
_DATA_ROW = re.compile(r"^[^\n]*(?:\||\t|,\S[^\n]*,\S)[^\n]*$", re.MULTILINE)


def spelled(n: int) -> str:
    """A number from zero to ninety-nine in words ("three", "forty-two")."""
    if n < 20:
        return UNIT_WORDS[n]
    tens, ones = divmod(n, 10)
    return TEN_WORDS[tens] + (f"-{UNIT_WORDS[ones]}" if ones else "")


def _counts_digits(text: str, m: re.Match[str]) -> bool:
    """Whether the digits at `m` count the word after them: no unit, month or verb after, no label or name before."""
    following = m.group("next").lower()
    if following in _UNIT_AFTER or following.rstrip(".") in _UNIT_AFTER or TIME_UNIT.match(text, m.end()):
        return False
    if following.rstrip(".") in _MONTH_WORDS:
        return False
    if following != "of" and following in NOT_A_NOUN:
        return False
    if re.match(r"[\w-]*[.,:/]\d", text[m.end("n"):]) is not None:  # "3.5", "2,5", "9:30", "3/11"
        return False
    before = text[:m.start()]
    if _LABEL_BEFORE.search(before):
        return False
    word_before = re.search(r"([A-Za-z][\w-]*)\s+$", before)
    # a capitalised word inside a sentence before it: a name ("Sprint 12", "Building 4")
    return not (word_before and word_before.group(1)[0].isupper() and
                not _SENTENCE_START.search(before[:word_before.start(1)]))


def as_words(text: str, told: str = "") -> str | None:
    """`text` with each count from one to ninety-nine written in digits written in words (at a sentence's start,
    capitalised); a count written as `told` writes it is left as it is. None where there is none."""
    if text.lstrip().startswith(("{", "[")):
        return None  # JSON: data, never written in words
    hidden = [(w.start, w.end) for w in mentions(text) if w.kind != "number"]  # a time, date, amount, phone, duration
    hidden += [m.span() for m in _DATA_ROW.finditer(text)]
    out, at = [], 0
    for m in _DIGITS.finditer(text):
        if any(start < m.end("n") and m.start() < end for start, end in hidden) or not _counts_digits(text, m) or \
                _copied(text, m.start(), m.end("n"), told):
            continue
        word = spelled(int(m.group("n")))
        if _SENTENCE_START.search(text[:m.start()]):
            word = word.capitalize()
        out += [text[at:m.start()], word]
        at = m.end("n")
    return None if not out else "".join(out) + text[at:]


def digit_counts(spec: EnvSpec) -> Iterator[UserFormatted]:
    """One replay per reply or free-text write of the reference that writes a count in digits, written in words."""
    return _replays(spec, lambda v: _DIGITS.search(v) is not None, as_words, "its counts in words")
