"""Facts of one list that the checks read all but some of: the reference's text states several like facts side by
side (the two P1 tickets that breached, `SUP-2204 and SUP-2209`; a CSV's rows per priority, `p1,4,3,2` ... `p4,2,1,1`)
and a check on that text reads one of them whole while another stands unread. The task asked for the list (a check
reads its first item), so an answer with an unread item wrong or missing is a near miss the checks must fail: the
mutant restates the unread items with their digits moved by one. A check that reads every item, or none of them
(the text is not what the task asks for), makes no mutant.

Items are like when they have one shape (digits aside): tokens with a digit and something else (`SUP-2204`, `v2.3.1`,
`2026-04-05`) joined only by list separators (`,`, `and`, `or`, `/`, bullets, a parenthesis of detail), or whole
lines (a file's rows). A check reads an item when one of its matches covers the item whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from coworkenv.checks import MISSING, render_value
from coworkenv.spec import EnvSpec, FieldRef, ReplyStatesRule, ToolCallSpec
from coworkenv.spec_regex import PatternTimeout
from coworkenv.spec_regex import spans as pattern_spans
from coworkenv.tools import ToolDef
from coworkenv.validate._check_reads import python_rules, spec_rules
from coworkenv.validate._mutation_core import Mutation
from coworkenv.validate._partial_facts import _FACT, _compiled, content_mutations

_DETAIL = re.compile(r"\([^()]*\)")  # a parenthesis of detail after an item: `SUP-2204 (Okapi, 47 min) and ...`
# Between two items of a list: a list mark, within one sentence, and no word that makes them a before and an after
# (`from 14:00 to 15:00`, `v2.3.1 instead of v2.3.0`) or a comparison: those are one fact's two values, not a list.
_LIST_MARK = re.compile(r"[,;/&\n\u2022]|\b(?:and|or|plus)\b", re.IGNORECASE)
_NOT_A_LIST = re.compile(r"[.!?](?:\s|$)|->|\u2192|\b(?:to|from|instead|was|were|now|until|till|before|after|than|vs|"
                         r"then|into|replac\w*|becomes?|over|under|of)\b", re.IGNORECASE)
_MAX_BETWEEN = 60
_CLAUSE = re.compile(r"[^,;\n.!?]*?\b(?:is|are|was|were|has|have|had|got|gets)\b", re.IGNORECASE)
_SEGMENT_END = re.compile(r"[,;]|\n|[.!?](?:\s|$)")
_LINE = re.compile(r"[^\r\n]+")
# A person's or a thing's name: capitalised words (`Lucas Kowalski`, `Okapi`), not the first word of a sentence or a
# line (`Done`, `Hi Hamza`: any sentence's), so that names side by side make a list only mid-sentence or bulleted.
_NAME = re.compile(r"(?<![\w.@#'’-])[A-Z][a-z][\w'’-]*(?:[ \t]+[A-Z][a-z][\w'’-]*){0,3}(?![\w@#-])")
# a sentence's start (not a colon's: `two people named Lucas: Lucas Lopez (...) and Lucas Kowalski` lists both)
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n[ \t]*)$")
# Between two names of one list: separators only (`, ` `and` `or` a bullet's line break), nothing else (`Asia/Berlin`
# and `Review Rosa / Sanna` are one name).
_NAME_JOIN = re.compile(r"\s*(?:,|;|&|\n[ \t]*(?:[-*\u2022]|\d+[.)])?)?\s*(?:\b(?:and|or)\b)?\s*")
_DETAIL = re.compile(r"[ \t]*\([^()]*\)")
_GREETING = re.compile(r"\b(?:hi|hello|hey|dear|thanks|thank you)[ \t]+$", re.IGNORECASE)
_MAX_PROBED = 8  # items probed per list: a list's first ones (each probe is one more episode)


def sibling_fact_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]], tools: Mapping[str, ToolDef],
                           content_args: frozenset[str],
                           value_of: Callable[[FieldRef], Any] | None = None) -> Iterator[Mutation]:
    """For each content argument of a write and each turn's last answer: the text with the like items its checks
    leave unread, beside one they read, stated wrongly or left out (see the module docstring)."""
    def alter(text: str, patterns: list[Any]) -> list[tuple[str, str]]:
        return [(f"with the items of a list its checks read only some of {how}", wrong)
                for how, wrong in unread_siblings(text, patterns)]
    return content_mutations(spec, writes, tools, content_args, alter, "sibling_unchecked",
                             lambda turn: _stated(spec, turn, value_of))


def unread_siblings(text: str, patterns: list[Any]) -> list[tuple[str, str]]:
    """The near misses of `text` for the items no pattern's match reads but that stand in a list beside a like item
    one does read: (how, text) with those items' digits moved by one (`stated wrongly`), and with those items left
    out (`left out`); none when there is no such item."""
    if not patterns:
        return []
    try:
        spans = [span for p in patterns for span in pattern_spans(p, text)]
    except PatternTimeout:  # a spec pattern too slow on its own reference: this gate cannot tell
        return []
    if not spans:
        return []

    def whole(a: int, b: int) -> bool:
        return any(s <= a and e >= b for s, e in spans)

    def named(a: int, b: int) -> bool:  # a match inside the part reads a word of it (a name, not a number)
        return any(s < b and e > a and any(ch.isalpha() for ch in text[max(s, a):min(e, b)]) for s, e in spans)

    unread: list[tuple[int, int]] = []
    for items, adjacent in ((_tokens(text), True), (_lines(text), False)):
        for run in _runs(text, items, adjacent):
            flags = [whole(a, b) for a, b in run]
            if any(flags) and not all(flags):
                unread += [span for span, f in zip(run, flags, strict=True) if not f]
    out: list[tuple[str, str]] = []
    shifted = list(text)
    for a, b in unread:
        for i in range(a, b):
            if text[i].isdigit():
                shifted[i] = str((int(text[i]) + 1) % 10)
    if unread and "".join(shifted) != text:
        out.append(("stated wrongly", "".join(shifted)))
    left_out: list[tuple[int, int]] = []
    parts = [(a, b) for a, b in _segments(text) if re.fullmatch(r"a [^ ]*#.*", _shape(text[a:b]))]
    for run in _runs(text, parts, False):
        flags = [named(a, b) for a, b in run]
        if any(flags) and not all(flags):
            left_out += [span for span, f in zip(run, flags, strict=True) if not f]
    for run in _name_runs(text):
        flags = [named(a, b) for a, b in run]
        if any(flags) and not all(flags):
            left_out += [_with_join(text, run, i) for i, f in enumerate(flags) if not f]
    if left_out:
        left_out = _merged(left_out)
        kept, at = [], 0
        for a, b in sorted(left_out):
            kept.append(text[at:a])
            at = b
        out.append(("left out", "".join(kept) + text[at:]))
    return out


def item_probes(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]], tools: Mapping[str, ToolDef],
                content_args: frozenset[str]) -> list[Mutation]:
    """Where a Python check grades the work (its code may read any part of a text; no scan tells which): for each
    list of like items in a content argument or a turn's answer (`list_items`), one mutant per item with that item
    left out, grouped by list. The mutation gate judges a group: an item whose mutant passes every check while
    another item's fails is unchecked (the grader reads the list, so the task asked for it whole)."""
    if not any(python_rules(c.rule) for c in spec.checks):
        return []

    def alter(text: str, patterns: list[Any]) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for k, run in enumerate(list_items(text)):
            for i in range(min(len(run), _MAX_PROBED)):
                a, b = _with_join(text, run, i)
                item, rest = text[run[i][0]:run[i][1]].strip(), text[:a] + text[b:]
                if item.casefold() in rest.casefold():  # stated elsewhere too (`Marcus's pipeline`): no probe of it
                    continue
                out.append((f"with {item!r} left out of a list (list {k})", rest))
        return out
    probes = content_mutations(spec, writes, tools, content_args, alter, "sibling_unchecked")
    return [replace(m, kind="text_drop", group=f"{m.path} {_LIST_KEY.search(m.description).group()}")  # type: ignore[union-attr]
            for m in probes]


_LIST_KEY = re.compile(r"\(list \d+\)$")


def list_items(text: str) -> list[list[tuple[int, int]]]:
    """The lists of like items in `text` (each of two items or more): tokens with a digit joined by list marks, a
    text's lines of one shape with a digit, names joined by separators alone (`Lucas Lopez and Lucas Kowalski`)."""
    return [*_runs(text, _tokens(text), True), *_runs(text, _lines(text), False), *_name_runs(text)]


def _name_runs(text: str) -> list[list[tuple[int, int]]]:
    """Names of as many words each, side by side with only separators between (not a sentence's first word)."""
    names: list[tuple[int, int]] = []
    inside = [m.span() for m in _DETAIL.finditer(text)]
    for m in _NAME.finditer(text):
        a, b = m.span()
        if any(x < a < y for x, y in inside):  # a name in a parenthesis is a detail of the item before it
            continue
        if _SENTENCE_START.search(text[:a]):  # a sentence's first word is capitalised anyway: the name is after it
            rest = re.search(r"[ \t]+", m.group())
            if rest is None:
                continue
            a += rest.end()
        if _GREETING.search(text[:a]):  # `Hi Elena, Marcus asked ...`: the one addressed, no item of a list
            continue
        names.append((a, b))
    runs: list[list[tuple[int, int]]] = []
    run: list[tuple[int, int]] = []
    for a, b in names:
        prev = run[-1] if run else None
        between = _DETAIL.sub("", text[prev[1]:a], count=1) if prev is not None else ""  # `Lucas Lopez (Payments) and`
        if (prev is not None and _NAME_JOIN.fullmatch(between) and between.strip()
                and len(text[a:b].split()) == len(text[prev[0]:prev[1]].split())):
            run.append((a, b))
            continue
        if len(run) > 1:
            runs.append(run)
        run = [(a, b)]
    if len(run) > 1:
        runs.append(run)
    return runs


def _with_join(text: str, run: list[tuple[int, int]], i: int) -> tuple[int, int]:
    """The span that leaving item `i` of `run` out removes: the item, a parenthesis of detail after it, and the
    separator before it (after it, for the first), so the other items read as listed."""
    a, b = run[i]
    detail = re.match(r"[ \t]*\([^()]*\)", text[b:])
    if detail:
        b += detail.end()
    if i > 0:
        return run[i - 1][1] + (len(m.group()) if (m := re.match(r"[ \t]*\([^()]*\)", text[run[i - 1][1]:])) else 0), b
    if len(run) > 1:
        return a, run[1][0]
    return a, b


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(b, out[-1][1]))
        else:
            out.append((a, b))
    return out


def _shape(item: str) -> str:
    """An item's form, its words and numbers aside (`vendor shortlist due 2026-06-04` is `a #-#-#`)."""
    words = re.sub(r"[^\W\d_]+(?:\s+[^\W\d_]+)*", "a", re.sub(r"\d+", "#", item.strip(" ,;\n")))
    return re.sub(r"\([^()]*\)", "()", words)


def _listed(between: str) -> bool:
    """Whether the text between two like items makes them items of one list."""
    between = _DETAIL.sub("", between)
    return (len(between) <= _MAX_BETWEEN and _LIST_MARK.search(between) is not None
            and _NOT_A_LIST.search(between) is None)


def _tokens(text: str) -> list[tuple[int, int]]:
    """Facts with a digit and something else (a bare number is too common a shape to make a list of), each the item
    of a list, not the subject of a clause of its own (`svc-pricing@4 was rolled back`: an aside, not an answer)."""
    return [m.span() for m in _FACT.finditer(text) if _shape(m.group()) != "#" and len(m.group()) >= 3
            and not _CLAUSE.match(text, m.end())]


def _segments(text: str) -> list[tuple[int, int]]:
    """The parts of a list: a sentence split at `;`, `,` or a line break outside parentheses, each with the mark
    before it (so leaving one out leaves the others as they were listed). Only parts of a name, then a number, make
    a list (`vendor shortlist due 2026-06-04`): parts of words alone (`Hi Hamza`, `access granted`) are any
    sentence's, and a file's cells (`p2`, `5`) are its rows' (`_lines`)."""
    masked = re.sub(r"\([^()]*\)", lambda m: " " * len(m.group()), text)
    out: list[tuple[int, int]] = []
    start = 0
    for m in _SEGMENT_END.finditer(masked):
        if m.start() > start:
            out.append((start, m.start()))
        start = m.start() if m.group().strip() in ",;" else m.end()
    if start < len(text):
        out.append((start, len(text)))
    return [(a, b) for a, b in out if text[a:b].strip(" ,;\n")]


def _lines(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _LINE.finditer(text) if any(ch.isdigit() for ch in m.group())]


def _runs(text: str, items: list[tuple[int, int]], adjacent: bool) -> Iterator[list[tuple[int, int]]]:
    """Groups of like items: of one shape and, for tokens, each joined to the one before by a list's separator."""
    groups: dict[str, list[tuple[int, int]]] = {}
    for a, b in items:
        groups.setdefault(_shape(text[a:b]), []).append((a, b))
    for group in groups.values():
        if not adjacent:  # lines: every line of a shape is one list (a file's rows)
            if len(group) > 1:
                yield group
            continue
        run = group[:1]
        for a, b in group[1:]:
            if _listed(text[run[-1][1]:a]):
                run.append((a, b))
                continue
            if len(run) > 1:
                yield run
            run = [(a, b)]
        if len(run) > 1:
            yield run


def _stated(spec: EnvSpec, turn: int, value_of: Callable[[FieldRef], Any] | None) -> list[Any]:
    """What `reply_states` checks on the answer to `turn` want stated: the field's value at the reference's end
    (`value_of`), or without it the record's id where that is the field (the rule names it)."""
    out: list[Any] = []
    for _, _, _, rule in spec_rules(spec.checks):
        if not isinstance(rule, ReplyStatesRule) or rule.turn not in (None, turn):
            continue
        value = value_of(rule.source) if value_of is not None else MISSING
        if value is MISSING and rule.source.field == "id":
            value = rule.source.id
        if value is not MISSING:
            out += [p for v in render_value(value, rule.format) for p in _compiled("contains", v)]
    return out
