"""Checks that pin the spec writer's own wording: a free-text field (a title, a subject, a message) compared
with `equals` to a text of several words that no user turn, the context or any world record states.

An agent that does the right thing in other words ("Contract renewal memo" for "contract renewal memo
(msg-224)") fails such a check: it judges the reference's phrasing, not the work -> `wording_pinned`. A value
the task or the workspace states (a title to copy, a person's name) may be pinned; one-word values (a status, a
folder) are enumerations, not wording.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from coworkenv.spec import EnvSpec, FieldRule, RecordsRule

# Fields that hold free text an agent words itself (config values and ids are data, not wording).
FREE_TEXT = frozenset({"title", "subject", "body", "text", "content", "description", "notes", "note", "summary",
                       "reason", "message", "comment"})
_MIN_WORDS = 2


def _conditions(rule: Any) -> list[tuple[str, str, Any]]:
    if isinstance(rule, RecordsRule):
        return [(c.field, c.op, c.value) for c in rule.where]
    if isinstance(rule, FieldRule):
        return [(rule.target.field, rule.op, rule.value)]
    return []


def pinned_wording(spec: EnvSpec, told: Callable[[], str]) -> Iterator[tuple[int, str, str]]:
    """(check index, field, value) for each `equals` on a free-text field whose value (several words) is stated
    nowhere the agent can read; `told` gives the turns, the context and the world's strings, lower case and
    whitespace-collapsed (built only when a candidate is found)."""
    text: list[str] = []
    for i, check in enumerate(spec.checks):
        if check.role == "guard":
            continue
        for field, op, value in _conditions(check.rule):
            if op != "equals" or not isinstance(value, str) or field.rsplit(".", 1)[-1] not in FREE_TEXT:
                continue
            norm = " ".join(value.lower().split())
            if len(norm.split()) < _MIN_WORDS:
                continue
            if not text:
                text.append(told())
            if norm not in text[0]:
                yield i, field, value
