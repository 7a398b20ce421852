"""Isolation: every fact one check expects, together in a world record the reference never reads.

A lookup task is sound when its answer sits in the record the work leads to (the config the reference reads,
the policy article it opens). A free-text record that states all the facts of one answer check (the value and
its source, the broken page and its status) and that the reference solution never reads is a shortcut: an
agent copies the answer without doing the task -> `answer_in_world`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from coworkenv.checks.results import AuditEntry
from coworkenv.spec import EnvSpec, RecordsRule, TextRule
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._paraphrased_leaks import read_text, segments_with

_MIN_FACTS = 2  # one fact alone is what a lookup reads from its source
_MIN_FACT_CHARS = 2
_MIN_RECORD_CHARS = 12


def _terms(rule: Any) -> list[list[str]]:
    """The facts an answer check expects, each as its alternatives (lower case)."""
    out: list[list[str]] = []
    if isinstance(rule, TextRule):
        out += [[t.lower()] if isinstance(t, str) else [a.lower() for a in t] for t in rule.all_of]
        if rule.number is not None and rule.number.value is not None and rule.number.value == int(rule.number.value):
            out.append([str(int(rule.number.value))])
    elif isinstance(rule, RecordsRule):
        out += [[c.value.lower()] for c in rule.where if c.op == "contains" and isinstance(c.value, str)]
    return [alts for alts in out if all(len(a) >= _MIN_FACT_CHARS for a in alts)]


def _states(text: str, alts: list[str]) -> bool:
    return any(re.search(rf"(?<!\w){re.escape(a)}(?!\w)", text) for a in alts)


def unread_answer_leaks(spec: EnvSpec, world_text: str, initial: str,
                        audit: list[AuditEntry]) -> Iterator[tuple[str, str, str]]:
    """(code, path, message) per answer check whose facts one initial world string states together, where that
    string is nowhere in what the reference's calls returned. `world_text`: the world's strings in lower case,
    NUL-separated; `initial`: the same for the initial records only."""
    read: list[str] = []
    for i, check, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if check.role == "guard":
            continue
        terms = _terms(rule)
        if len(terms) < _MIN_FACTS or not all(any(a in world_text for a in alts) for alts in terms):
            continue
        candidates = {text for alt in terms[0] for text in segments_with(initial, alt)}
        for text in sorted(candidates):
            if len(text) < _MIN_RECORD_CHARS or not all(_states(text, alts) for alts in terms):
                continue
            if not read:
                read.append(read_text(audit))
            if " ".join(text.split()) not in read[0]:
                yield ("answer_in_world", f"checks[{i}]",
                       f"a world record the reference never reads states every fact check {check.id!r} expects "
                       f"({'; '.join(alts[0] for alts in terms)}): an agent can copy the answer without the work")
                break
