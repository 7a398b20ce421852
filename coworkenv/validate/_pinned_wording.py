"""Checks that pin the spec writer's own wording: a free-text field (a title, a subject, a message) compared
with `equals` to a text of several words that no user turn, the context or any world record states.

An agent that does the right thing in other words ("Contract renewal memo" for "contract renewal memo
(msg-224)") fails such a check: it judges the reference's phrasing, not the work -> `wording_pinned`. A value
the task or the workspace states (a title to copy, a person's name) may be pinned; one-word values (a status, a
folder) are enumerations, not wording.

A phrase is pinned the same way: `contains` on a free-text field, or a term of a text check on the replies
(`all_of`, or every term of `any_of`; a term of alternatives when each of them is), of three words or more that
nothing the agent reads states ("Triaged 3 tickets", "Here are the quarterly planning notes"). Two-word terms
("rolled back") are how a check names a fact, and are left alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from coworkenv.spec import EnvSpec, FieldRule, RecordsRule, TextRule
from coworkenv.validate._check_reads import spec_rules

# Fields that hold free text an agent words itself (config values and ids are data, not wording).
FREE_TEXT = frozenset({"title", "subject", "body", "text", "content", "description", "notes", "note", "summary",
                       "reason", "message", "comment"})
_MIN_WORDS = 2
_MIN_PHRASE_WORDS = 3  # a phrase a `contains` or a text term wants


def _conditions(rule: Any) -> list[tuple[str, str, Any]]:
    if isinstance(rule, RecordsRule):
        return [(c.field, c.op, c.value) for c in rule.where]
    if isinstance(rule, FieldRule):
        return [(rule.target.field, rule.op, rule.value)]
    return []


def pinned_wording(spec: EnvSpec, told: Callable[[], str]) -> Iterator[tuple[int, str, str]]:
    """(check index, what it reads, value) for each `equals` (two words or more) or `contains` (three or more) on a
    free-text field, and each phrase a text check wants, whose value is stated nowhere the agent can read; `told` gives the turns, the context and the world's strings, lower case and
    whitespace-collapsed (built only when a candidate is found)."""
    text: list[str] = []

    def untold(value: str, least: int) -> bool:
        norm = " ".join(value.lower().split())
        if len(norm.split()) < least:
            return False
        if not text:
            text.append(told())
        return norm not in text[0]

    for i, check, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if check.role == "guard":
            continue
        for field, op, value in _conditions(rule):
            if op not in ("equals", "contains") or not isinstance(value, str) or \
                    field.rsplit(".", 1)[-1] not in FREE_TEXT:
                continue
            if untold(value, _MIN_WORDS if op == "equals" else _MIN_PHRASE_WORDS):
                yield i, f"{field} ({op})", value
        if isinstance(rule, TextRule):
            terms = [*rule.all_of, *(rule.any_of if all(_phrases(t) for t in rule.any_of) else [])]
            for term in terms:
                alternatives = _phrases(term)
                if alternatives and all(untold(a, _MIN_PHRASE_WORDS) for a in alternatives):
                    yield i, "the reply (a text term)", " | ".join(alternatives)


def _phrases(term: Any) -> list[str]:
    """A text term's alternatives when every one is a phrase of several words (empty otherwise)."""
    alternatives = [term] if isinstance(term, str) else list(term)
    return alternatives if all(len(a.split()) >= _MIN_PHRASE_WORDS for a in alternatives) else []
