"""Numbers the reference writes in words: the writer's reply says "Three of 9 pages are broken", "Added four tasks",
"Triaged three tickets", and a check wants the word (a text check's term, a `contains` on the message). A number is
the same fact in digits; nobody asked for it spelled out, and an agent that writes `3`, as the tools' results do,
fails such a check (`numeral_pinned`).

Each reply, and each free-text argument of a write (one with a space in it), that writes a number from two to
ninety-nine in words is replayed with every such number in digits (`spelled_numbers`). `one` is never read (far more
often a pronoun, "the one that failed", than a count), nor a capitalised word inside a sentence (a name: "Seven
Seas"); a word that begins a sentence is read. A number before a time unit ("forty-five minutes") is a duration: the
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
_TIME_UNIT = re.compile(r"[\s-]+(?:m(?:inutes?|ins?)|h(?:ours?|rs?)|d(?:ays?)|s(?:econds?|ecs?))(?!\w)", re.IGNORECASE)


def as_digits(text: str) -> str | None:
    """`text` with each number from two to ninety-nine written in words written in digits; None where there is none."""
    out, at = [], 0
    for m in _SPELLED.finditer(text):
        word = m.group(0)
        value = _in_words(word)
        if value < 2 or (word[0].isupper() and not _SENTENCE_START.search(text[:m.start()])) or \
                _TIME_UNIT.match(text, m.end()):
            continue
        out += [text[at:m.start()], str(value)]
        at = m.end()
    return None if not out else "".join(out) + text[at:]


def spelled_numbers(spec: EnvSpec) -> Iterator[UserFormatted]:
    """One replay per reply or free-text write of the reference that writes a number in words, written in digits."""

    def rewrite(value: str, reply: bool) -> str | None:
        if not reply and " " not in value.strip():
            return None
        return as_digits(value) if _SPELLED.search(value) else None

    for t, turn in enumerate(spec.reference[:len(spec.turns)]):
        for s in range(len(turn.steps)):
            found = rewritten(spec, t, s, rewrite, "the reply of turn {t} with its numbers in digits, {new!r}",
                              "{tool} with its numbers in digits, {shown}")
            if found is not None:
                yield found
