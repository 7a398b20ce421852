"""Regular expressions that a spec carries (a text rule's `regex`, the `matches` operator), compiled and run
under bounds.

A pattern is data from an untrusted spec, and the text it is searched in is the agent's: Python's `re`
backtracks without a time bound, so `(a+)+$` against a long reply, or `.{0,65535}x` against a long field,
would hold the verifier (and with it validation, a rollout, a pipeline step) for hours. Here:

- at load (`pattern_problem`, called by the spec's validators): a pattern must compile with Python's `re`
  (the syntax the spec language documents), be at most `MAX_PATTERN_CHARS` characters long and nest counted
  repetitions (`{m,n}`) to at most `MAX_REPEAT_WEIGHT` in all (the engine below expands them when it compiles:
  `a{10000000}` takes 10 s, `a{4294967294}` all memory); anything else is refused with what to change;
- at match time (`search`): the `regex` package runs the pattern (the same syntax and results as `re` for the
  patterns `re` accepts) with a timeout of `MATCH_TIMEOUT_S` per search, within a budget per check
  (`regex_budget`); past it `PatternTimeout` is raised, which the verifier scores as a failed check that could
  not run, never as "no match" (a guard's `forbidden` call must not pass because its argument was long).
"""

from __future__ import annotations

import re
import re._parser as _sre  # the parse tree of `re` (stable from 3.11): the repetition counts and their nesting
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

MAX_PATTERN_CHARS = 1000  # the shipped specs' longest is 81
MAX_REPEAT_WEIGHT = 10_000  # the sum, over counted repetitions, of the product of the counts enclosing each
MATCH_TIMEOUT_S = 1.0  # one search; the shipped patterns take microseconds on replies of 100 KiB
CHECK_BUDGET_S = 2.0  # every search of one check together

_deadline: ContextVar[float | None] = ContextVar("regex_deadline", default=None)


class PatternTimeout(Exception):
    """A search ran past its time bound: the answer is unknown (not "no match")."""


class PatternRefused(ValueError):
    """A pattern refused by `pattern_problem`; the message says what and what to do."""


def pattern_problem(pattern: str) -> str | None:
    """Why a spec may not carry `pattern` (what is wrong and what to do), or None when it may."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return (f"is {len(pattern)} characters long, more than {MAX_PATTERN_CHARS}; match a shorter pattern "
                "(several checks, or terms: all_of/any_of) instead")
    try:
        tree = _sre.parse(pattern)
        re.compile(pattern)
    except re.error as exc:
        return f"does not compile: {exc} (write it in Python's re syntax)"
    except RecursionError:
        return "nests groups too deeply to compile; flatten the pattern"
    except (OverflowError, ValueError, TypeError) as exc:
        return f"does not compile: {exc}; use smaller repetition counts"
    weight = _repeat_weight(tree, 1)
    if weight > MAX_REPEAT_WEIGHT:
        return (f"repeats {weight} times in all through its counted repetitions ({{m,n}}, nested ones multiply), "
                f"more than {MAX_REPEAT_WEIGHT}; use smaller counts, or + and * for 'any number'")
    return None


_REPEATS = {_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT}


def _repeat_weight(sub: Any, factor: int) -> int:
    """The sum, over the counted repetitions in the parsed pattern `sub`, of the product of each one's count with
    the counts of those enclosing it (`factor`); an unbounded repetition counts its minimum."""
    total = 0
    for op, av in sub.data:
        if op in _REPEATS:
            low, high, inner = av
            count = max(low if high == _sre.MAXREPEAT else high, 1)
            total += factor * count if count > 1 else 0
            total += _repeat_weight(inner, factor * count)
        else:
            total += sum(_repeat_weight(part, factor) for part in _parts(av))
        if total > MAX_REPEAT_WEIGHT:  # enough to refuse
            break
    return total


def _parts(av: Any) -> Iterator[Any]:
    """The sub-patterns inside an opcode's argument (groups, branches, assertions, conditionals)."""
    if isinstance(av, _sre.SubPattern):
        yield av
    elif isinstance(av, tuple | list):
        for x in av:
            yield from _parts(x)


@lru_cache(maxsize=4096)
def compiled(pattern: str, ignorecase: bool = False) -> Any:
    """`pattern` compiled for `search` (raises PatternRefused with `pattern_problem`'s reason)."""
    problem = pattern_problem(pattern)
    if problem is not None:
        raise PatternRefused(f"regex {_shown(pattern)} {problem}")
    import regex  # only where a pattern is run: loading a spec does not need it

    return regex.compile(pattern, regex.IGNORECASE if ignorecase else 0)


def search(pattern: str | Any, text: str, ignorecase: bool = False) -> Any:
    """The first match of a spec pattern in `text` (a `regex` match object) or None; raises PatternTimeout past
    `MATCH_TIMEOUT_S` or the rest of the check's budget, PatternRefused for a pattern `pattern_problem` refuses."""
    compiled_pattern = compiled(pattern, ignorecase) if isinstance(pattern, str) else pattern
    timeout = MATCH_TIMEOUT_S
    deadline = _deadline.get()
    if deadline is not None:
        timeout = min(timeout, deadline - time.monotonic())
        if timeout <= 0:
            raise PatternTimeout(f"the regex budget of {CHECK_BUDGET_S:g} s of this check is spent")
    try:
        return compiled_pattern.search(text, timeout=timeout, concurrent=True)
    except TimeoutError:
        raise PatternTimeout(f"regex {_shown(compiled_pattern.pattern)} took longer than {timeout:.2g} s on "
                             f"{len(text)} characters") from None


@contextmanager
def regex_budget(seconds: float = CHECK_BUDGET_S) -> Iterator[None]:
    """Bound every `search` inside (one check's) to `seconds` in all."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def _shown(pattern: str) -> str:
    return repr(pattern) if len(pattern) <= 80 else f"{pattern[:77]!r}..."


def spans(pattern: Any, text: str) -> list[tuple[int, int]]:
    """The spans of the non-empty matches of a pattern (`compiled`, or a stdlib one of escaped literals) in
    `text`; raises PatternTimeout past `MATCH_TIMEOUT_S` for all of them."""
    if isinstance(pattern, re.Pattern):
        return [m.span() for m in pattern.finditer(text) if m.end() > m.start()]
    try:
        return [m.span() for m in pattern.finditer(text, timeout=MATCH_TIMEOUT_S, concurrent=True)
                if m.end() > m.start()]
    except TimeoutError:
        raise PatternTimeout(f"regex {_shown(pattern.pattern)} took longer than {MATCH_TIMEOUT_S:g} s on "
                             f"{len(text)} characters") from None


# A character each category of a class stands for, when a string the pattern matches is built (`example`).
_CATEGORY_CHARS = {"CATEGORY_DIGIT": "0", "CATEGORY_NOT_DIGIT": "a", "CATEGORY_SPACE": " ", "CATEGORY_NOT_SPACE": "a",
                   "CATEGORY_WORD": "a", "CATEGORY_NOT_WORD": "-"}


def example(pattern: str) -> str | None:
    """A short string `pattern` matches (each repetition its least count, each alternative its first), or None
    where that guess does not match (a backreference, a lookaround, a class that excludes the guess) or the check
    runs past its time bound."""
    if pattern_problem(pattern) is not None:
        return None
    try:
        text = _example(_sre.parse(pattern))
    except (KeyError, ValueError, TypeError):
        return None
    try:
        return text if text is not None and search(pattern, text) is not None else None
    except PatternTimeout:  # no answer in time: no guess
        return None


def _example(sub: Any) -> str | None:
    out = []
    for op, av in sub:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(av))
        elif name in ("ANY", "NOT_LITERAL"):
            out.append("a" if name == "ANY" or av != ord("a") else "b")
        elif name == "IN":
            first = av[0]
            kind, value = str(first[0]), first[1]
            out.append(chr(value) if kind == "LITERAL" else chr(value[0]) if kind == "RANGE"
                       else _CATEGORY_CHARS[str(value)] if kind == "CATEGORY" else "a")
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            lo, _hi, item = av
            part = _example(item)
            if part is None:
                return None
            out.append(part * lo)
        elif name in ("SUBPATTERN", "ATOMIC_GROUP"):
            part = _example(av[-1])
            if part is None:
                return None
            out.append(part)
        elif name == "BRANCH":
            part = _example(av[1][0])
            if part is None:
                return None
            out.append(part)
        elif name == "AT":
            continue
        else:  # a backreference, a lookaround, a conditional: no guess
            return None
    return "".join(out)
