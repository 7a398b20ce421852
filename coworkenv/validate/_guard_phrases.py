"""Forbidden guards that match a phrase as written: `contains` with a value whose parts another separator joins.

A guard such as `chat_post_message` where `text contains "PLAT-108"` (never mention that ticket), or `mail_send`
where `body contains "+40 635 172 766"` (never mail that number), matches its phrase case-insensitively but with
its separators as written: the same ticket as `PLAT 108`, `PLAT108` or `PLAT‑108` (a non-breaking hyphen), the same
number as `+40-635-172-766` or with no-break spaces, says what the guard keeps out and matches no forbidden guard
(`spelling_pinned`). A guard that holds matches every separator (`matches` with a pattern such as
`(?i)plat[\\W_]*108`). Judged on the call alone: the guarded call with the phrase respelled, no episode.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.checks import call_matches
from coworkenv.spec import CallMatcher, EnvSpec, ForbiddenRule
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate.gates import GateError

# Where one part of a phrase ends and the next begins: a run of separators, or a letter next to a digit.
_SEPARATORS = re.compile(r"[\s\-_\u2010-\u2015\u00a0]+")
_LETTER_DIGIT = re.compile(r"(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])")
# The joins a writer (or a model) uses between the parts of one phrase: space, hyphen, none (between a code and its
# number, or digits), their typographic forms (no-break space, non-breaking hyphen, en dash), and a line break.
_JOINS = (" ", "-", "", "\u00a0", "\u2011", "\u2013", "\n")
# A path, an address, a file name or a decimal: its hyphens are part of the name, not a separator to respell.
_IDENTIFIER = re.compile(r"[/@]|\w\.\w")


def respelled_phrases(spec: EnvSpec) -> list[GateError]:
    """`spelling_pinned` errors of forbidden guards whose `contains` phrase a respelling evades."""
    forbidden = [(where, c, r) for _, c, where, r in spec_rules(spec.checks) if isinstance(r, ForbiddenRule)]
    matchers = [r.call for _, _, r in forbidden]
    errors = []
    for where, check, rule in forbidden:  # a tier's forbidden rule too
        matcher = rule.call
        for j, field, phrase, other, args in _respelled(matcher):
            if not any(call_matches(m, matcher.tool, args) for m in matchers):
                errors.append(GateError("mutations", "spelling_pinned", f"{where}.call.where[{j}]", (
                    f"forbidden guard {check.id!r} matches {field} containing {phrase!r} as written: {other!r} "
                    f"says the same and matches no forbidden guard; match every separator (`matches` with "
                    f"{_pattern(phrase)!r})")))
                break  # one respelling per phrase tells the author what to fix
    return errors


def _respelled(matcher: CallMatcher) -> Iterator[tuple[int, str, str, str, dict[str, Any]]]:
    """(condition index, field, phrase, respelled phrase, call arguments) for each `contains` phrase of a string
    argument, the call otherwise as the matcher wants it."""
    tool = TOOLS.get(matcher.tool)
    if tool is None:
        return
    fields = tool.params.model_fields
    base = _wanted(matcher)
    if base is None or not call_matches(matcher, matcher.tool, base):
        return  # a matcher this reading cannot meet (a `matches`, a bound) is judged elsewhere
    for j, cond in enumerate(matcher.where):
        if cond.op != "contains" or not isinstance(cond.value, str) or cond.field not in fields or \
                fields[cond.field].annotation is not str:
            continue
        for other in _respellings(cond.value):
            text = str(base[cond.field]).replace(cond.value, other)
            yield j, cond.field, cond.value, other, {**base, cond.field: text}


def _wanted(matcher: CallMatcher) -> dict[str, Any] | None:
    """The call's arguments as the matcher wants them: its arguments, `equals` values, the first value of an `in`,
    and each string field's `contains` phrases joined; None where another condition makes that guess moot."""
    args: dict[str, Any] = dict(matcher.args)
    phrases: dict[str, list[str]] = {}
    for c in matcher.where:
        if c.op == "equals":
            args.setdefault(c.field, c.value)
        elif c.op == "in" and isinstance(c.value, list) and c.value:
            args.setdefault(c.field, c.value[0])
        elif c.op == "contains" and isinstance(c.value, str):
            phrases.setdefault(c.field, []).append(c.value)
    for field, said in phrases.items():
        if field in args:
            return None
        args[field] = " ".join(said)
    return args


def _respellings(phrase: str) -> list[str]:
    """The phrase with its parts joined otherwise (see `_JOINS`); none for a phrase of one part or an identifier
    (a path, an address, a file name)."""
    if _IDENTIFIER.search(phrase):
        return []
    parts = [p for p in _SEPARATORS.split(_LETTER_DIGIT.sub(" ", phrase.strip())) if p]
    if len(parts) < 2:
        return []
    seen = {phrase.lower()}
    others = []
    words_meet = any(a[-1].isalpha() and b[0].isalpha() for a, b in pairwise(parts))
    for join in _JOINS:
        if join == "" and words_meet:
            continue  # two words run together are another word; a code and its number are not
        other = join.join(parts)
        if other.lower() not in seen:
            seen.add(other.lower())
            others.append(other)
    return others


def _pattern(phrase: str) -> str:
    """A pattern that matches `phrase` with any separator (or none) between its parts."""
    parts = [p for p in _SEPARATORS.split(_LETTER_DIGIT.sub(" ", phrase.strip())) if p]
    return "(?i)" + r"[\W_]*".join(re.escape(p) for p in parts)
