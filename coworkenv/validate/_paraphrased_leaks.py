"""Isolation beyond verbatim copies: the reference's answer or calls in the world, reworded.

Text is compared after normalisation: NFKC, lower case, dates and times in one canonical form
("April 15, 2026" / "15/04/2026"-style US dates / ISO stamps -> 2026-04-15, "4pm" / "4:00 PM" -> 16:00),
punctuation dropped, whitespace collapsed. Two findings:
- `answer_in_world`: one world string holds nearly every content word of a reference answer (its facts
  included), however it is punctuated, cased or its dates written, and the reference's calls never return that
  string (given their audit): a lookup's answer restating the record the work leads to (the note the reference
  opens, the article it reads) is the task, not a shortcut, as `_unread_answers` holds for answer checks;
- `reference_in_world`: one world string names a reference write's operation (`rollback_config`, "rollback
  config") together with every value of its arguments (the solution written out as text), or already holds a
  long text the reference writes (a ready-made draft of the reply, a scratch copy of the report).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from coworkenv.checks.results import AuditEntry
from coworkenv.spec import EnvSpec
from coworkenv.validate.entities import leaves
from coworkenv.validate.mutations import CONTENT_ARGS, is_write

_MONTHS = {m: i + 1 for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"])}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?")
_MDY = re.compile(rf"\b({_MONTH})\.? (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})\b")
_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)? ({_MONTH})\.?,? (\d{{4}})\b")
_SLASH = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))? ?([ap])\.?m\.?\b")
_PUNCT = re.compile(r"[^\w:\-@.]+|(?<!\w)[.\-]|[.\-](?!\w)|(?<!\d):|:(?!\d)")
_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "been", "by", "for", "from", "has", "have", "i", "in", "is", "it",
    "its", "me", "my", "of", "on", "or", "our", "so", "that", "the", "their", "them", "then", "there", "this",
    "to", "was", "we", "were", "will", "with", "you", "your", "he", "she", "they", "his", "her", "not", "no",
})
_RAW_WORD = re.compile(r"\w{2,}")
_MIN_ANSWER_WORDS = 6
_MIN_PLANTED_CHARS = 60  # a written text this long found whole in the world was planted there
_ANSWER_OVERLAP = 0.8
_MIN_VALUE_CHARS = 3


def normalize_loose(text: str) -> str:
    """Text with case, spacing, punctuation and date/time formats normalised (see the module docstring)."""
    out = unicodedata.normalize("NFKC", text).lower()
    out = _ISO.sub(lambda m: f"{m[1]}-{m[2]}-{m[3]}" + (f" {m[4]}:{m[5]}" if m[4] else ""), out)
    out = _MDY.sub(lambda m: f"{m[3]}-{_MONTHS[m[1]]:02d}-{int(m[2]):02d}", out)
    out = _DMY.sub(lambda m: f"{m[3]}-{_MONTHS[m[2]]:02d}-{int(m[1]):02d}", out)
    out = _SLASH.sub(lambda m: f"{m[3]}-{int(m[1]):02d}-{int(m[2]):02d}", out)
    out = _CLOCK.sub(lambda m: f"{(int(m[1]) % 12) + (12 if m[3] == 'p' else 0):02d}:{m[2] or '00'}", out)
    return " ".join(_PUNCT.sub(" ", out).split())


def _words(text: str) -> set[str]:
    return {w for w in text.split() if w not in _STOP and len(w) > 1}


def segments_with(world_text: str, word: str) -> list[str]:
    """The world strings (NUL-separated in `world_text`) that contain `word`, each once, found by searching the
    joined text: the cost grows with the word's occurrences, not with the number of strings."""
    out: dict[int, str] = {}
    at = world_text.find(word)
    while at != -1:
        start = world_text.rfind("\0", 0, at) + 1
        end = world_text.find("\0", at)
        end = len(world_text) if end == -1 else end
        out.setdefault(start, world_text[start:end])
        at = world_text.find(word, end)
    return list(out.values())


def _rarest(words: list[str], world_text: str) -> str | None:
    present = [w for w in words if w in world_text]
    return min(present, key=world_text.count) if present else None


def read_text(audit: list[AuditEntry]) -> str:
    """Every string the successful calls of `audit` returned, lower case, whitespace collapsed, NUL-separated."""
    return "\0".join(" ".join(s.lower().split()) for e in audit if e.ok for s in leaves(e.result) if isinstance(s, str))


def paraphrased_leaks(spec: EnvSpec, world_text: str,
                      audit: list[AuditEntry] | None = None) -> Iterator[tuple[str, str, str]]:
    """(code, path, message) for every reworded reference answer or reference call found in one world string.

    `world_text` is the world's strings in lower case, NUL-separated. Candidates are the strings holding the
    rarest of an answer's longest words (or the call's operation name); only they are normalised. Given the
    reference episode's `audit`, an answer is not looked for in the strings its calls returned.
    """
    read: list[str] = []

    def unread(text: str) -> bool:
        if audit is None:
            return True
        if not read:
            read.append(read_text(audit))
        return " ".join(text.split()) not in read[0]

    for t, turn in enumerate(spec.reference):
        for s, step in enumerate(turn.steps):
            path = f"reference[{t}].steps[{s}]"
            if step.say is not None:
                wanted = _words(normalize_loose(step.say))
                if len(wanted) < _MIN_ANSWER_WORDS or not _may_occur(step.say, world_text):
                    continue
                raw = set(_RAW_WORD.findall(step.say.lower()))
                longest = sorted((w for w in raw if w.isalpha()), key=len, reverse=True)[:3]
                rarest = _rarest(longest, world_text)
                candidates = segments_with(world_text, rarest) if rarest else []
                if any(len(raw & set(_RAW_WORD.findall(text))) >= _ANSWER_OVERLAP * len(raw) / 2
                       and len(wanted & set(normalize_loose(text).split())) >= _ANSWER_OVERLAP * len(wanted)
                       and unread(text) for text in candidates):
                    yield ("answer_in_world", f"{path}.say",
                           "a world record states the reference answer (reworded or reformatted)")
            elif step.call is not None and is_write(step.call.name, spec):
                if _call_in(step.call.name, step.call.arguments, world_text):
                    yield ("reference_in_world", f"{path}.call",
                           f"a world record spells out the reference call {step.call.name} with its arguments")
                for name, text in _content_planted(step.call.arguments, world_text):
                    yield ("reference_in_world", f"{path}.call.arguments.{name}",
                           f"a world record already holds the text the reference writes ({text[:40]!r}...)")


def _content_planted(arguments: dict[str, Any], world_text: str) -> Iterator[tuple[str, str]]:
    """(argument, text) for each long content argument that a world string already holds (normalised whole)."""
    for name, value in arguments.items():
        if name not in CONTENT_ARGS or not isinstance(value, str):
            continue
        wanted = normalize_loose(value)
        if len(wanted) < _MIN_PLANTED_CHARS:
            continue
        head = max(_RAW_WORD.findall(value.lower()), key=len, default="")
        if head and any(wanted in normalize_loose(text) for text in segments_with(world_text, head)):
            yield name, value


def _may_occur(say: str, world_text: str) -> bool:
    """Whether at least two of the answer's three longest words occur anywhere in the world."""
    longest = sorted({w for w in _RAW_WORD.findall(say.lower()) if w.isalpha()}, key=len, reverse=True)[:3]
    return sum(w in world_text for w in longest) >= min(2, len(longest))


def _call_in(tool: str, arguments: dict[str, Any], world_text: str) -> bool:
    operation = tool.split("_", 1)[1] if "_" in tool else tool
    head = operation.split("_", 1)[0]
    if head not in world_text:
        return False
    names = {normalize_loose(tool), normalize_loose(operation), normalize_loose(operation.replace("_", " "))}
    values = [normalize_loose(str(v)) for v in leaves(arguments)
              if isinstance(v, str | int | float) and not isinstance(v, bool)]
    values = [v for v in values if len(v) >= _MIN_VALUE_CHARS or v.isdigit()]
    if not values:
        return False
    for raw in segments_with(world_text, head):
        text = normalize_loose(raw)
        padded = f" {text} "
        if any(f" {n} " in padded for n in names) and all(v in text for v in values):
            return True
    return False

