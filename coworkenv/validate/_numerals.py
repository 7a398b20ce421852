"""Numbers the reference writes in words: the writer's reply says "Three of 9 pages are broken", "Added four tasks",
"Triaged three tickets", and a check wants the word (a text check's term, a `contains` on the message). A number is
the same fact in digits; nobody asked for it spelled out, and an agent that writes `3`, as the tools' results do,
fails such a check (`numeral_pinned`).

Each reply, and each free-text argument of a write (one with a space in it), that writes a number from two to
ninety-nine in words is replayed with every such number in digits (`spelled_numbers`). A count of one is read where
it counts something: `one` (or `a single`) before a noun ("one row", "Handed one incident ticket", "a single page") or
before `of` and a number ("One of 5 pages"); `one` after a determiner ("the one that failed", "this one", "each one"),
before `of` and anything else ("one of the reasons"), before a verb, a preposition or a conjunction ("one is down",
"one by one", "one or two") or at the end of a clause ("pick one.") is a pronoun and is not read. A capitalised word
inside a sentence is never read (a name: "Seven Seas", "One Medical"); a word that begins a sentence is read. A number before a time unit ("forty-five minutes") is a duration: the
format replay writes it as the user gave it (`duration_pinned`), and a check that accepts the writer's words or the
user's form ("45-minute") is sound, so it is not rewritten here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from coworkenv.spec import EnvSpec
from coworkenv.validate._user_formats import _IN_WORDS, UserFormatted, _in_words, rewritten

_SPELLED = re.compile(r"(?<![\w'\u2019-])(?:" + _IN_WORDS + r")(?![\w'\u2019-])", re.IGNORECASE)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*)$")
# A count of one: `one` or `a single` before a word (its noun, checked by `_counts_one`) or `one of` a number.
_ONE = re.compile(r"(?<![\w'\u2019-])(?:(?P<single>a\s+single)|one)(?=\s+(?P<next>[a-z][\w-]*|\d))", re.IGNORECASE)
# Words before `one` that make it a pronoun ("the one", "each one", "no one"), and words after it that are no noun.
_DETERMINERS = re.compile(r"(?:^|\W)(?:the|this|that|which|each|every|any|no|some|another|only|just|last|next|"
                          r"first|other|new|old|right|wrong|same|big|small|not)\s+$", re.IGNORECASE)
_NOT_A_NOUN = frozenset({
    "of", "is", "was", "are", "were", "will", "would", "can", "could", "should", "may", "might", "must", "has",
    "had", "have", "does", "did", "do", "and", "or", "but", "nor", "so", "yet", "to", "for", "by", "in", "on", "at",
    "with", "from", "into", "onto", "over", "under", "about", "after", "before", "than", "then", "that", "which",
    "who", "whom", "whose", "where", "when", "while", "if", "as", "another", "more", "less", "too", "again", "way",
    "day"
})
_SPELLED_NUMBER = re.compile(r"(?:" + _IN_WORDS + r")$", re.IGNORECASE)
_TIME_UNIT = re.compile(r"[\s-]+(?:m(?:inutes?|ins?)|h(?:ours?|rs?)|d(?:ays?)|s(?:econds?|ecs?))(?!\w)", re.IGNORECASE)


def _counts_one(text: str, m: re.Match[str]) -> bool:
    """Whether `one` (or `a single`) at `m` counts the word after it: not a pronoun nor part of a phrase."""
    following = m.group("next").lower()
    if m.group("next")[0].isupper():  # "One Medical": a name
        return False
    if _DETERMINERS.search(text[:m.start()]) or _TIME_UNIT.match(text, m.end()):
        return False
    if following == "of":  # "one of 5 pages", "one of nine" counts; "one of the reasons" does not
        rest = re.match(r"\s+of\s+(\d+|[a-z-]+)(?![\w-])", text[m.end():], re.IGNORECASE)
        return rest is not None and (rest.group(1).isdigit() or _SPELLED_NUMBER.match(rest.group(1)) is not None)
    return following not in _NOT_A_NOUN and not following.isdigit()


def as_digits(text: str) -> str | None:
    """`text` with each number from one to ninety-nine written in words written in digits (a count of one only where
    it counts something, `_counts_one`); None where there is none."""
    found: list[tuple[int, int, str]] = []
    for m in _SPELLED.finditer(text):
        word = m.group(0)
        value = _in_words(word)
        if value < 2 or (word[0].isupper() and not _SENTENCE_START.search(text[:m.start()])) or \
                _TIME_UNIT.match(text, m.end()):
            continue
        found.append((m.start(), m.end(), str(value)))
    for m in _ONE.finditer(text):
        if any(start < m.end() and m.start() < end for start, end, _ in found) or \
                (m.group(0)[0].isupper() and not _SENTENCE_START.search(text[:m.start()])) or not _counts_one(text, m):
            continue
        found.append((m.start(), m.end(), "1"))
    out, at = [], 0
    for start, end, digits in sorted(found):
        out += [text[at:start], digits]
        at = end
    return None if not out else "".join(out) + text[at:]


def spelled_numbers(spec: EnvSpec) -> Iterator[UserFormatted]:
    """One replay per reply or free-text write of the reference that writes a number in words, written in digits."""

    def rewrite(value: str, reply: bool) -> str | None:
        if not reply and " " not in value.strip():
            return None
        return as_digits(value) if _SPELLED.search(value) or _ONE.search(value) else None

    for t, turn in enumerate(spec.reference[:len(spec.turns)]):
        for s in range(len(turn.steps)):
            found = rewritten(spec, t, s, rewrite, "the reply of turn {t} with its numbers in digits, {new!r}",
                              "{tool} with its numbers in digits, {shown}")
            if found is not None:
                yield found
