"""Text checks: normalisation, keyword terms (with alternatives in several languages), regex, length, numbers."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from coworkenv.checks.primitives import MISSING, resolve
from coworkenv.checks.results import Reply
from coworkenv.spec import NumberTarget, TextNorm, TextRule
from coworkenv.spec_regex import compiled, search
from coworkenv.world import World

# A written number: digits with decimal or grouping separators (1,234.5 / 1.234,5 / 1 234 / 12'000 / 1,24,500), not
# the digits inside an identifier such as v2 or INV-123 (`_CODE`; the sign counts only after a non-word character); with its
# scale where one follows ("12k", "1.2M", "3bn", "41.62 thousand": 12000, 1200000, ...; never the bare 12, which would
# take a wrong answer of twelve thousand for a right one of twelve).
_NUMBER = re.compile(r"(?<![\w.,])([-+\u2212]?)(?:[$\u20ac\u00a3\u00a5\u20b9](?=\d))?"
                     r"(\d+(?:[.,]\d+|[ '\u00a0\u202f]\d{3}(?!\d))*)"
                     r"(?:\s?(k|K|M|bn)(?![^\W\d_])|\s+(thousand|million|billion)\b)?")
# A calendar date or a time of day written in digits ("2026-03-11", "2026-03-11T09:30:00Z", "09:30", "14:05:59"): a
# value of its own, not numbers; its parts are never read as one ("Triaged 2 tickets at 03:15" states no 3, "10 rows
# fixed on 2026-03-11" no 11), so that a wrong count beside a date or a time does not pass a check wanting that part;
# a length on a clock's face ("0:45 h") stays read as it was.
_DATE_OR_TIME = re.compile(r"(?<![\w.,:-])(?:\d{4}-[01]\d-[0-3]\d(?:[T ][0-2]\d:[0-5]\d(?::[0-5]\d(?:\.\d+)?)?"
                           r"(?:Z|[+-][0-2]\d:?[0-5]\d)?)?|[0-2]?\d:[0-5]\d(?::[0-5]\d)?(?!\s*(?:h|hrs?|hours?)\b))"
                           r"(?![\w:]|[.,]\d)")
# A date written otherwise than in ISO ("11/03/2026", "11.03.2026", "2026/03/11", "3 March 2026", "March 3rd, 2026") or
# a year and month ("2026-03"): its parts are not numbers either ("4 rows on 11/03/2026" states no 11 nor 3); a day
# and month without the year stay read ("3/11 pages", "3 May" could be a fraction or a verb's subject).
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec)[a-z]*\.?"
_WRITTEN_DATE = re.compile(rf"(?<![\w.,/-])(?:\d{{1,2}}([./])\d{{1,2}}\1\d{{4}}|\d{{4}}/\d{{1,2}}/\d{{1,2}}|\d{{4}}-[01]\d"
                           rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}\s+\d{{4}}"
                           rf"|{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}})(?![\w/-]|[.,]\d)", re.IGNORECASE)
# A code: letters joined to more letters or digits by a hyphen or an at sign ("INV-7", "OPS-12", "job-842",
# "svc-recs@5", "ana3@example.com"); its digits name a record, they count nothing ("INV-7" states no 7).
_CODE = re.compile(r"(?<![\w@.+-])[^\W\d_][\w.+]*(?:[-@][\w]+)+")
_SCALES = {"k": 1e3, "K": 1e3, "M": 1e6, "bn": 1e9, "thousand": 1e3, "million": 1e6, "billion": 1e9}
# A number in words, as an honest answer writes a count ("Three of 9 pages are broken", "the third failure this
# week", "forty-two tickets", "three hundred and twelve rows", "two thousand requests"): two to ninety-nine, or an
# ordinal from third to ninety-ninth (`second` only after `the`: "a second" is a moment); `one` before a scale
# ("one hundred") or where it counts (`counts_one`: "one row", "one of 5 pages", "a single row") and `first` only in a
# compound ("twenty-first"): alone, a pronoun ("one of the reasons") or an adverb ("first, I checked") counts nothing.
# A fraction is no count ("a third of", "two thirds", "three-quarters"), and a word before a scale is read with it,
# never alone ("three thousand" is 3000, not 3).
UNIT_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
               "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
TEN_WORDS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_ORDINAL_WORDS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
                  "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
                  "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
                  "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60, "seventieth": 70,
                  "eightieth": 80, "ninetieth": 90}
_WORD_VALUES = {w: i for i, w in enumerate(UNIT_WORDS)} | {w: 10 * i for i, w in enumerate(TEN_WORDS) if w} | \
    _ORDINAL_WORDS | {"first": 1}
_TENS_RE = "|".join(TEN_WORDS[2:])
_ONES_RE = "|".join(UNIT_WORDS[9:0:-1])
# A number from one to ninety-nine in words ("seven", "forty-five", "twenty one"), ones matched after tens.
IN_WORDS = rf"(?:(?:{_TENS_RE})(?:[\s-](?:{_ONES_RE}))?|{'|'.join(sorted(UNIT_WORDS[1:], key=len, reverse=True))})"
_ORDINAL = rf"(?:(?:{_TENS_RE})[\s-](?:first|{'|'.join(list(_ORDINAL_WORDS)[:8])})|" \
           rf"{'|'.join(sorted(_ORDINAL_WORDS, key=len, reverse=True))})"
_WORDS_NUMBER = re.compile(
    rf"(?<![\w-])(?:(?P<before>\b(?:a|one|the)\s+)?(?P<ord>{_ORDINAL})"
    rf"|(?P<card>{IN_WORDS})(?:\s+hundred(?:\s+(?:and\s+)?(?P<rest>{IN_WORDS}))?(?P<hundred>))?"
    r"(?:\s+(?P<scale>thousand|million|billion))?)"
    r"(?![\w]|-(?:quarters?|thirds?|fourths?|fifths?|sixths?|eighths?|tenths?|halves|half)(?!\w))", re.IGNORECASE)


# A count of one: `one` or `a single` before a word (its noun, checked by `counts_one`) or `one of` a number; the
# verifier's number reading and the validation's numeral replays (`coworkenv.validate._numerals`) share it.
ONE_COUNT = re.compile(r"(?<![\w'\u2019-])(?:(?P<single>a\s+single)|one)(?=\s+(?P<next>[a-z][\w-]*|\d))",
                       re.IGNORECASE)
# Words before `one` that make it a pronoun ("the one", "each one", "no one"), and words after it that are no noun.
# `only` and `just` count ("only one page is broken") unless a determiner precedes them ("the only one left").
_DETERMINERS = re.compile(r"(?:^|\W)(?:(?:the|this|that|which|each|every|any|no|some|another|last|next|first|other|new|"
                          r"old|right|wrong|same|big|small|not)|(?:the|this|that|my|your|his|her|its|our|their)\s+"
                          r"(?:only|just))\s+$", re.IGNORECASE)
NOT_A_NOUN = frozenset({
    "of", "is", "was", "are", "were", "will", "would", "can", "could", "should", "may", "might", "must", "has",
    "had", "have", "does", "did", "do", "and", "or", "but", "nor", "so", "yet", "to", "for", "by", "in", "on", "at",
    "with", "from", "into", "onto", "over", "under", "about", "after", "before", "than", "then", "that", "which",
    "who", "whom", "whose", "where", "when", "while", "if", "as", "another", "more", "less", "too", "again", "way",
    "day"
})
TIME_UNIT = re.compile(r"[\s-]+(?:m(?:inutes?|ins?)|h(?:ours?|rs?)|d(?:ays?)|s(?:econds?|ecs?))(?!\w)", re.IGNORECASE)
_SPELLED_NUMBER = re.compile(rf"(?:{IN_WORDS})$", re.IGNORECASE)

# A sign in words before a number ("minus 12.50", "negative $3"): the number is read negative, as "-12.50" is; a sign
# before a currency ("-$12.50", "\u2212\u20ac3") counts too (`_NUMBER`).
_MINUS_WORD = re.compile(r"(?<![\w-])(?:minus|negative)\s+(?=[$\u20ac\u00a3\u00a5\u20b9]?\d)", re.IGNORECASE)
# An amount in an accountant's brackets ("(12.50)", "($1,200.00)"): negative in a ledger, but a bracket also holds an
# aside ("the fee ($12.50)"), so it is read both ways; a bracketed count ("(4 rows)", "(3)") is no amount.
_BRACKETED = re.compile(r"\(\s*[$\u20ac\u00a3\u00a5\u20b9]?\s?(\d{1,3}(?:,\d{3})+\.\d{2}|\d+\.\d{2})\s*\)")
# A share ("40%", "40 %", "40 percent", "40 per cent", "40 pct"): read as written and as the fraction (0.4), so that a
# check wanting 0.4 is met by the honest "40%"; a check whose source field keeps the share in percent (`*_pct`,
# `*percent*`) wants it as written (`states_number`).
_SHARE = re.compile(r"(?<![\w.,])([-+\u2212]?\d+(?:[.,]\d+)?)\s?(?:%|percent\b|per\s+cent\b|pct\b)", re.IGNORECASE)
_PERCENT_FIELD = re.compile(r"(?:^|_)(?:pct|percent|percentage)(?:_|$)", re.IGNORECASE)
# A hedged number states no exact value: an approximation ("around 40", "roughly three", "~40", "some 40", "nearly
# 40", "40 or so", "40-ish") is read only by a check with a tolerance, and numbers given as alternatives ("3 or 4",
# "three or four") by none: either would meet an exact check wanting one of them. `about` is a hedge only where no verb
# or noun of a message goes before it, up to three words back ("Jun mailed me about 500s", "told the team about 3
# failing jobs": what it is about). A bound ("at least 3", "above 80%", "up to 40 rps") states its limit exactly, a
# threshold or a cap, and stays read.
_HEDGED = rf"(?:[$\u20ac\u00a3\u00a5\u20b9]?\d+(?:[.,]\d+)*(?:\s?%)?|(?:{IN_WORDS})(?:\s+hundred)?)(?![\w.,]?\d|\w)"
_TOPIC_BEFORE = re.compile(
    r"\b(?:mail|mailed|emailed|wrote|write|asked|ask|asking|told|tell|talk|talked|spoke|heard|ticket|note|message|"
    r"question|complained|complaint|reminder|replied|reply|said|says|me|him|her|them|us|you|worried|thinking|"
    r"know|care|something|nothing|anything)(?:\s+[\w@.'\u2019-]+){0,3}\s+$", re.IGNORECASE)
_APPROXIMATE = re.compile(
    rf"(?<![\w-])(?:(?P<about>about)|around|roughly|approximately|approx\.|nearly|almost|circa|ca\.|some|close\s+to)"
    rf"\s+{_HEDGED}|(?<![\w~])(?:~|\u2248)\s?{_HEDGED}"
    r"|(?<![\w.,-])[$\u20ac\u00a3\u00a5\u20b9]?\d+(?:[.,]\d+)*(?:\s+or\s+so|-ish|-odd)(?!\w)", re.IGNORECASE)
_ALTERNATIVES = re.compile(rf"(?<![\w.,-]){_HEDGED}\s+or\s+(?:maybe\s+|perhaps\s+)?{_HEDGED}", re.IGNORECASE)
# A bound ("more than 40", "at least 3", "up to 5", "fewer than ten", "over 40", "below 20", "40+", "40 or more",
# "> 40", "≥ 3") states no exact value: its number is read only by a check on a bound (`number_is_bound`: the source
# field or the rule's terms name a limit, a threshold, a cap), where it states the limit; an exact check wanting 40
# is not met by "more than 40 tickets" (main passed it). "over" and "under" after a phrasal verb ("handed over 3
# tickets", "filed under 2 headings") and "up to" after a verb of raising ("scaled up to 5 replicas": exactly 5) are
# no bound.
_PHRASAL = re.compile(
    r"\b(?:hand|pass|carr(?:y|ie)|turn|sign|roll|switch|flip|check|mov|br(?:ing|ought)|sen[dt]|c[ao]m|giv|gave|look|"
    r"go|went|gone|get|got|think|thought|read|hold|held|start|won|win|f[ae]ll|tak|took|fil|list|group|sort|put|"
    r"kept|keep|plac|log|scal|rais|bump|increas|top|back|set|round|add|sum|climb|grew|grow|went|jump|reduc|cut|"
    r"lower|decreas|dropp?|trimm?)\w*(?:\s+[\w@.'\u2019-]+)?\s+$", re.IGNORECASE)
_BOUND_BEFORE = re.compile(
    rf"(?<![\w-])(?P<w>(?:no\s+|not\s+)?(?:more|fewer|less|greater|higher|lower)\s+than|at\s+(?:least|most)|up\s+to|"
    rf"over|under|above|below|exceeding|in\s+excess\s+of|upwards\s+of|a\s+(?:minimum|maximum)\s+of|"
    rf"(?:minimum|maximum|max\.?|min\.?)(?=\s+[$\u20ac\u00a3\u00a5\u20b9]?\d))\s+(?P<n>{_HEDGED})"
    rf"|(?<![-=<>])(?P<s>[<>\u2264\u2265]=?)\s?(?P<n2>{_HEDGED})", re.IGNORECASE)
_BOUND_AFTER = re.compile(
    rf"(?<![\w.,-])(?P<n>[$\u20ac\u00a3\u00a5\u20b9]?\d+(?:[.,]\d+)*(?:\s?%)?|(?:{IN_WORDS}))"
    r"(?:\+(?![\d\w])|-plus\b|\s+(?:or|and)\s+(?:more|fewer|less|above|below|over|under|up|higher|lower)\b)",
    re.IGNORECASE)
_LIMIT_FIELD = re.compile(r"(?:^|_)(?:threshold|limit|max|min|maximum|minimum|cap|ceiling|floor|quota|budget|reorder|"
                          r"upper|lower|bound|at_least|at_most)s?(?:_|$)", re.IGNORECASE)
_LIMIT_TERM = re.compile(r"threshold|limit|\bcap\b|ceiling|floor|quota|maximum|minimum|\bat (?:least|most)\b|\bup to\b|"
                         r"(?:more|fewer|less) than|\bor (?:more|fewer|less)\b|reorder", re.IGNORECASE)


# A numbered part ("week 14", "quarter 4", "part 2", "phase 3", "round 2", "page 3 of 9", "step 2", "row 7"): its
# number names the part, it counts nothing, as a code's digits ("INV-7") do not; a check on such a part (its source
# field or its terms name it: `week`, `phase`, ...) reads it (`number_names_label`). A version's number stays read
# ("rolled back to version 3" states the config version 3).
_LABEL_WORDS = r"week|wk|quarter|part|phase|stage|tier|level|round|chapter|section|season|sprint|wave|page|step|line|" \
               r"row|room|floor"
_LABELLED = re.compile(rf"(?<![\w-])(?:{_LABEL_WORDS})\.?\s*#?\s*(?P<n>\d+|{IN_WORDS})(?![\w.,]?\d|\w)", re.IGNORECASE)
_LABEL_NAMED = re.compile(rf"(?:^|_|\b)(?:{_LABEL_WORDS})(?:s|_|\b|$)", re.IGNORECASE)


def _labels_blanked(text: str) -> str:
    """The text with the numbers of numbered parts blanked (`_LABELLED`)."""
    return _LABELLED.sub(lambda m: m.group(0)[:m.start("n") - m.start()] + " " * len(m.group("n")), text)


def number_names_label(rule: TextRule) -> bool:
    """Whether a text rule's `number` is the number of a numbered part (a week, a phase, a page): its source field
    or its terms name one."""
    target = rule.number
    if target is not None and target.source is not None and _LABEL_NAMED.search(target.source.field):
        return True
    terms = [t for term in (*rule.all_of, *rule.any_of) for t in ([term] if isinstance(term, str) else term)]
    return any(_LABEL_NAMED.search(t) for t in terms)


def _bounds_blanked(text: str) -> str:
    """The text with the numbers that state a bound blanked (`_BOUND_BEFORE`, `_BOUND_AFTER`)."""
    def before(m: re.Match[str]) -> str:
        group = "n" if m.group("n") is not None else "n2"
        word = (m.group("w") or "").lower()
        if word in ("over", "under") and _PHRASAL.search(text, 0, m.start()):
            return m.group(0)
        if word.startswith("up") and _PHRASAL.search(text, 0, m.start()):
            return m.group(0)
        start, end = m.start(group) - m.start(), m.end(group) - m.start()
        whole = m.group(0)
        return whole[:start] + " " * (end - start) + whole[end:]
    text = _BOUND_BEFORE.sub(before, text)
    return _BOUND_AFTER.sub(lambda m: " " * len(m.group("n")) + m.group(0)[len(m.group("n")):], text)


def number_is_bound(rule: TextRule) -> bool:
    """Whether a text rule's `number` is a bound (a threshold, a cap, a minimum), which a bound in the text states:
    its source field names one (`reorder_point`, `max_replicas`, `threshold_pct`) or its terms do ("threshold", "at
    least")."""
    target = rule.number
    if target is not None and target.source is not None and _LIMIT_FIELD.search(target.source.field):
        return True
    terms = [t for term in (*rule.all_of, *rule.any_of) for t in ([term] if isinstance(term, str) else term)]
    return any(_LIMIT_TERM.search(t) for t in terms)


# A day written with its ordinal suffix beside a month ("March 3rd", "3rd of March", "the 21st of May"): a date even
# without its year (a bare "3 May" may be a count's subject), so its day is no count.
_ORDINAL_DAY = re.compile(rf"(?<![\w.,/-])(?:\d{{1,2}}(?:st|nd|rd|th)\s+(?:of\s+)?{_MONTHS}(?!\w)"
                          rf"|{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)(?!\w))", re.IGNORECASE)


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


def _hedges_blanked(text: str, approximate: bool) -> str:
    """The text with its hedged numbers blanked: alternatives always, approximations unless `approximate` (a check
    with a tolerance reads "about 40" as 40)."""
    text = _ALTERNATIVES.sub(_blank, text)
    if approximate:
        return text
    return _APPROXIMATE.sub(lambda m: m.group(0) if m.group("about") is not None and _TOPIC_BEFORE.search(
        text, 0, m.start()) else _blank(m), text)


def counts_one(text: str, m: re.Match[str]) -> bool:
    """Whether `one` (or `a single`) at `m` (`ONE_COUNT`) counts the word after it: not a pronoun ("the one that
    failed", "one of the reasons"), a name ("One Medical"), a phrase ("one by one") nor a duration ("one hour")."""
    following = m.group("next").lower()
    if m.group("next")[0].isupper():  # "One Medical": a name
        return False
    if _DETERMINERS.search(text[:m.start()]) or TIME_UNIT.match(text, m.end()):
        return False
    if following == "of":  # "one of 5 pages", "one of nine" counts; "one of the reasons" does not
        rest = re.match(r"\s+of\s+(\d+|[a-z-]+)(?![\w-])", text[m.end():], re.IGNORECASE)
        return rest is not None and (rest.group(1).isdigit() or _SPELLED_NUMBER.match(rest.group(1)) is not None)
    return following not in NOT_A_NOUN and not following.isdigit()


def normalize(text: str, norm: TextNorm) -> str:
    """The text as a text rule matches it: NFKC, accents stripped, case folded, whitespace collapsed."""
    if not text.isascii():
        if norm.unicode:
            text = unicodedata.normalize("NFKC", text)
        if norm.accents:
            decomposed = unicodedata.normalize("NFKD", text)
            text = unicodedata.normalize("NFC", "".join(c for c in decomposed if not unicodedata.combining(c)))
    if norm.case:
        text = text.casefold()
    if norm.whitespace:
        text = " ".join(text.split())
    return text


def number_readings(token: str) -> set[float]:
    """The values a written number may mean: with '.' as the decimal mark, and with ',' as the decimal mark."""
    plain = re.sub(r"[ '\u00a0\u202f]", "", token)
    out = set()
    for group, decimal in ((",", "."), (".", ",")):
        parts = plain.replace(group, "").split(decimal)
        if len(parts) <= 2:
            try:
                out.add(float(".".join(parts)))
            except ValueError:
                continue
    return out


def numbers_in(text: str, approximate: bool = False, shares: bool = True, bounds: bool = True,
               labels: bool = True) -> set[float]:
    """Every value any number written in the text may mean, in digits or in words (`words_values`); not the parts of
    a date or a time of day (`_DATE_OR_TIME`, `_WRITTEN_DATE`, `_ORDINAL_DAY`), nor a hedged number (`_ALTERNATIVES`,
    and `_APPROXIMATE` unless `approximate`); a share also as its fraction where `shares` (`_SHARE`), a bracketed
    amount also negative (`_BRACKETED`), a number after `minus` negative (`_MINUS_WORD`); a number stating a bound
    ("more than 40", "40+") only where `bounds`, a numbered part's ("week 14", "page 3") only where `labels`."""
    values: set[float] = set()
    if not bounds:
        text = _bounds_blanked(text)
    if not labels and any(c.isalpha() for c in text):
        text = _labels_blanked(text)
    if any(c.isalpha() for c in text) or "~" in text or "\u2248" in text:
        text = _hedges_blanked(text, approximate)
        text = _MINUS_WORD.sub(lambda m: " " * (len(m.group(0)) - 1) + "-", text)
    if "(" in text:
        values.update(-v for m in _BRACKETED.finditer(text) for v in number_readings(m.group(1)))
    if shares and ("%" in text or "p" in text.lower()):
        values.update(v / 100 for m in _SHARE.finditer(_DATE_OR_TIME.sub(_blank, text))
                      for v in number_readings(m.group(1).lstrip("+-\u2212"))
                      for v in ((-v,) if m.group(1)[0] in "-\u2212" else (v,)))
    if ":" in text or "-" in text:
        text = _DATE_OR_TIME.sub(lambda m: " " * len(m.group(0)), text)
    if "-" in text or "@" in text:
        text = _CODE.sub(lambda m: " " * len(m.group(0)) if any(c.isdigit() for c in m.group(0)) else m.group(0), text)
    if any(c.isdigit() for c in text):
        text = _ORDINAL_DAY.sub(_blank, _WRITTEN_DATE.sub(_blank, text))
    for sign, digits, short, word in _NUMBER.findall(text):
        factor = (-1.0 if sign in ("-", "\u2212") else 1.0) * _SCALES.get(short or word, 1.0)
        values.update(factor * v for v in number_readings(digits))
    return values | {v for _, _, v in words_values(text)}


def words_values(text: str) -> list[tuple[int, int, float]]:
    """(start, end, value) of each number the text writes in words (see `_WORDS_NUMBER`)."""
    out = []
    for m in _WORDS_NUMBER.finditer(text) if any(c.isalpha() for c in text) else ():
        if m.group("ord") is not None:
            before = (m.group("before") or "").split()
            ordinal = m.group("ord").lower()
            if (before and before[0].lower() in ("a", "one")) or (ordinal == "second" and before != ["the"]):
                continue  # "a third of", "one fifth": a fraction; "a second", "per second": a moment
            value = float(in_words(ordinal))
        else:
            card = in_words(m.group("card"))
            hundreds = m.group("hundred") is not None
            scale = m.group("scale")
            if card < 2 and not (hundreds or scale):  # `one` alone: a pronoun as often as a count
                continue
            value = float(card * 100 + (in_words(m.group("rest")) if m.group("rest") else 0) if hundreds else card)
            value *= _SCALES.get((scale or "").lower(), 1.0)
        out.append((m.start("ord") if m.group("ord") is not None else m.start(), m.end(), value))
    # A count of one where it counts ("One of 5 pages are broken", "Fixed a single row"), never the pronoun.
    out += [(m.start(), m.end(), 1.0) for m in ONE_COUNT.finditer(text) if counts_one(text, m)]
    return sorted(out)


def in_words(written: str) -> int:
    """A number from one to ninety-nine written in words, cardinal or ordinal ("forty-two", "twenty-third"); the
    validation gates read spelled numbers with it too (`IN_WORDS` finds them)."""
    return sum(_WORD_VALUES.get(w, 0) for w in re.split(r"[\s-]+", written.lower()))


class Transcript:
    """The agent's text in one episode, normalised on demand once per (scope, turn, normalisation)."""

    def __init__(self, replies: Sequence[Reply], notes: Sequence[Reply] = (), heard: Sequence[Reply] = ()) -> None:
        self.replies = replies
        self.notes = notes
        self.heard = heard  # what a simulated user said, each opening its turn (`Env.hear`)
        self._cache: dict[tuple[Any, ...], str] = {}

    def raw(self, scope: str, turn: int | None) -> str:
        replies = [r for r in self.replies if turn is None or r.turn == turn]
        if scope == "final":
            return replies[-1].text if replies else ""
        if scope == "replies":
            return "\n".join(r.text for r in replies)
        notes = [n for n in self.notes if n.text and (turn is None or n.turn == turn)]  # a message of calls alone: none
        # Notes and replies of a turn in order: notes ride with tool calls, the reply ends the turn.
        turns = sorted({r.turn for r in replies} | {n.turn for n in notes})
        return "\n".join(r.text for t in turns for r in (*[n for n in notes if n.turn == t],
                                                          *[r for r in replies if r.turn == t]))

    def messages(self) -> list[dict[str, Any]]:
        """Every assistant message in order, as a python check with `transcript` reads them: per turn the messages
        that made tool calls (`aside`, with their calls' audit indices; an empty one that ended the turn last, with
        none), then the replies; a turn a simulated user's answer opened starts with it (`user`)."""
        turns = sorted({r.turn for r in self.replies} | {n.turn for n in self.notes} | {h.turn for h in self.heard})
        return [m for t in turns for m in (
            *[{"turn": h.turn, "text": h.text, "user": True} for h in self.heard if h.turn == t],
            *[{"turn": n.turn, "text": n.text, "aside": True, "calls": list(getattr(n, "calls", ()))}
              for n in self.notes if n.turn == t],
            *[{"turn": r.turn, "text": r.text} for r in self.replies if r.turn == t])]

    def text(self, scope: str, turn: int | None, norm: TextNorm) -> str:
        key = (scope, turn, norm.case, norm.whitespace, norm.unicode, norm.accents)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = normalize(self.raw(scope, turn), norm)
        return found


@dataclass(frozen=True)
class _Term:
    shown: str
    alternatives: tuple[str, ...]
    words: re.Pattern[str] | None

    def found_in(self, text: str) -> bool:
        if self.words is not None:
            return self.words.search(text) is not None
        return any(a in text for a in self.alternatives)


class CompiledText:
    """A text rule with its terms normalised and its patterns compiled once per spec."""

    def __init__(self, rule: TextRule) -> None:
        self.rule = rule
        self.all_of = [self._term(t) for t in rule.all_of]
        self.any_of = [self._term(t) for t in rule.any_of]
        self.none_of = [self._term(t) for t in rule.none_of]
        self.regex = compiled(rule.regex, rule.normalize.case) if rule.regex is not None else None
        self.bound = number_is_bound(rule)
        self.label = number_names_label(rule)

    def _term(self, term: str | list[str]) -> _Term:
        items = [term] if isinstance(term, str) else term
        alts = tuple(a for a in (normalize(i, self.rule.normalize) for i in items) if a)
        pattern = None
        if self.rule.words:
            pattern = re.compile("|".join(rf"(?<!\w){re.escape(a)}(?!\w)" for a in alts))
        return _Term(items[0], alts, pattern)

    def evaluate(self, world: World, transcript: Transcript) -> tuple[float, str, bool]:
        """(score, reason for what failed, error); the score is the fraction of conditions met if graded."""
        rule = self.rule
        text = transcript.text(rule.scope, rule.turn, rule.normalize)
        met: list[bool] = []
        failures: list[str] = []

        def cond(ok: bool, failure: str) -> None:
            met.append(ok)
            if not ok:
                failures.append(failure)

        for term in self.all_of:
            cond(term.found_in(text), f"does not mention {term.shown!r}")
        if self.any_of:
            cond(any(t.found_in(text) for t in self.any_of),
                 f"mentions none of {', '.join(repr(t.shown) for t in self.any_of)}")
        for term in self.none_of:
            cond(not term.found_in(text), f"mentions {term.shown!r}")
        if self.regex is not None:
            cond(search(self.regex, text) is not None, f"does not match /{rule.regex}/")
        if rule.min_chars is not None:
            cond(len(text) >= rule.min_chars, f"has {len(text)} characters, fewer than {rule.min_chars}")
        if rule.max_chars is not None:
            cond(len(text) <= rule.max_chars, f"has {len(text)} characters, more than {rule.max_chars}")
        if rule.number is not None:
            expected = _expected_number(world, rule.number)
            if isinstance(expected, str):
                return 0.0, expected, False
            cond(states_number(text, expected, rule.number, self.bound, self.label),
                 f"states no number near {expected:g}")
        score = sum(met) / len(met) if rule.partial else float(all(met))
        where = {"final": "the final reply", "replies": "the replies", "all": "the assistant's text"}[rule.scope]
        if rule.turn is not None:
            where += f" of turn {rule.turn}"
        return score, f"{where} {'; '.join(failures)}" if failures else "", False


def _expected_number(world: World, target: NumberTarget) -> float | str:
    """The expected number, or a reason why there is none."""
    if target.source is None:
        assert target.value is not None  # NumberTarget has exactly one of value and source
        return target.value
    value = resolve(world, target.source)
    s = target.source
    where = f"{s.app}.{s.table}[{s.id}].{s.field}"
    if value is MISSING:
        return f"{where} does not exist in the final state"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return f"{where} is {value!r}, not a number"
    return number if math.isfinite(number) else f"{where} is not a finite number"


def states_number(text: str, expected: float, target: NumberTarget, bound: bool = False, label: bool = False) -> bool:
    """Whether the text states `expected` as a `number` check on `target` reads it: within its tolerance, an
    approximation only where it has one, a share as its fraction unless its source keeps percent, a bound ("more
    than 40") only where the check is on one (`bound`, or a source field naming a limit), a numbered part's ("week
    14") only where the check is on such a part (`label`, or a source field naming it)."""
    slack = target.tolerance * abs(expected) if target.relative else target.tolerance
    shares = target.source is None or not _PERCENT_FIELD.search(target.source.field)
    slack += 1e-9 * max(1.0, abs(expected))  # written decimals are not exact binary fractions
    field = target.source.field if target.source is not None else ""
    bound = bound or _LIMIT_FIELD.search(field) is not None
    label = label or _LABEL_NAMED.search(field) is not None
    return any(abs(v - expected) <= slack for v in numbers_in(text, approximate=target.tolerance > 0, shares=shares,
                                                              bounds=bound, labels=label))
