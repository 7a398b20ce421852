"""A number a text check's tolerance admits beside the right one: another value the world offers, stated instead.

A `number` condition (`value` or `source`) with a tolerance accepts every number within it. A tolerance is sound
where nothing the agent can read lies in it but the right value (0.5 "for rounding" a count, 1% of an amount whose
neighbours are far); it is a hole where another number the world holds lies in it: the annual value of the next
contract in the same file (EUR 95,947 for EUR 87,936 under "10%"), the stock before the move for the stock after
it, the sum without one row. An agent that copies the wrong row passes. Counts below a thousand are tried one higher
already (`_lenient_answers.off_by_one_counts`); this is every other number: amounts, large counts, decimals, values
read from the state (`source`), a relative tolerance.

So for each text check with a `number` and a tolerance that reads the reply to a turn, the expected value (the
literal, or the source field's value at the reference's end) is found written in digits in the reply; the numbers the
world offers (numeric fields and the numbers written in the world's text: files, mails, messages, as the world starts
and as the dynamics and the turns' changes write them later; and the user's turns) that lie within the check's tolerance but differ from it are each written in its place, in the same style
(grouping, decimals, scale), as near misses (`content_unchecked`): each must fail a check.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from coworkenv.checks.text import _NUMBER, _SCALES, number_readings, numbers_in
from coworkenv.spec import EnvSpec, FieldRef, TextRule
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate.entities import held_leaves

_PERCENT = re.compile(r"\s?%")
_MAX_PER_CHECK = 2  # near misses per check: the nearest values the tolerance admits
_MAX_CHARS = 20_000  # the world's longer texts are read up to this many characters each


def _offered(spec: EnvSpec) -> set[float]:
    """The numbers the world holds at some moment (numeric fields; numbers written in its text: the initial world's
    and what the dynamics and the turns' changes write, `held_leaves`) and the user's turns write."""
    out: set[float] = set()
    for v in held_leaves(spec):
        if isinstance(v, bool):
            continue
        if isinstance(v, int | float):
            out.add(float(v))
        elif isinstance(v, str) and any(c.isdigit() for c in v):
            out |= numbers_in(v[:_MAX_CHARS])
    for turn in spec.turns:
        out |= numbers_in(turn.content[:_MAX_CHARS])
    return out


def _scales(m: re.Match[str], text: str) -> tuple[float, ...]:
    """What the number `m` matched in `text` may be written in: thousands (`12k`), millions; hundredths as well
    where a `%` follows (a share a check wants as its fraction: `37.5%` for 0.375, or as written)."""
    if not m.group(3) and not m.group(4) and _PERCENT.match(text, m.end()):
        return 1.0, 0.01
    return (_SCALES.get(m.group(3) or m.group(4), 1.0),)


def _written(value: float, digits: str, expected: float, scale: float) -> str:
    """`value` (not negative) written as `digits` writes `expected` (its grouping and decimal marks, its decimals)."""
    plain = re.sub(r"[ '\u00a0\u202f]", "", digits)
    group_space = next((c for c in digits if c in " '\u00a0\u202f"), None)
    try:
        dotted = abs(float(plain.replace(",", "")) * scale - expected) <= 1e-9 * max(1.0, abs(expected))
    except ValueError:  # 1.234,5 or 12.973.000: not a number with '.' as the decimal mark
        dotted = False
    group, mark = (",", ".") if dotted else (".", ",")  # the European way: 12.973, 1.234,5
    decimals = len(plain.split(mark, 1)[1]) if mark in plain else 0
    shown = value / scale
    needed = 0
    while needed < 4 and abs(round(shown, needed) - shown) > 1e-9 * max(1.0, abs(shown)):
        needed += 1
    decimals = max(decimals, needed)
    grouped = group in plain.replace(mark, "") or group_space is not None
    text = f"{abs(shown):,.{decimals}f}" if grouped else f"{abs(shown):.{decimals}f}"
    return text.replace(",", "\0").replace(".", mark).replace("\0", group_space or group)


def admitted_numbers(spec: EnvSpec, turn: int, text: str,
                     values: Callable[[FieldRef], Any] | None) -> Iterator[tuple[str, str]]:
    """(new text, what) for each number the world offers that a text check with a tolerance on the reply to `turn`
    accepts beside its expected value: the reply with that number in the expected one's place (see the module)."""
    offered: set[float] | None = None
    for _, check, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if not isinstance(rule, TextRule) or rule.number is None or rule.number.tolerance <= 0 \
                or rule.turn not in (None, turn):
            continue
        target = rule.number
        expected: Any = target.value if target.source is None else (values(target.source) if values else None)
        if isinstance(expected, bool):
            continue
        try:
            expected = float(expected)
        except (TypeError, ValueError):
            continue
        eps = 1e-9 * max(1.0, abs(expected))
        stated = [(m, scale) for m in _NUMBER.finditer(text) if not m.group(1)
                  for scale in _scales(m, text)
                  if any(abs(v * scale - expected) <= eps for v in number_readings(m.group(2)))]
        if not stated:
            continue
        slack = target.tolerance * abs(expected) if target.relative else target.tolerance
        if offered is None:
            offered = _offered(spec)
        near = sorted((w for w in offered if eps < abs(w - expected) <= slack + eps and (w < 0) == (expected < 0)),
                      key=lambda w: (abs(w - expected), w))
        for w in near[:_MAX_PER_CHECK]:
            wrong = text
            for m, scale in reversed(stated):
                new = _written(w, m.group(2), expected, scale)
                wrong = wrong[:m.start(2)] + new + wrong[m.end(2):]
            if wrong != text:
                yield wrong, f"the answer states {w:g}, another number the world offers, for {expected:g} " \
                             f"(within {check.id}'s tolerance)"



_PLAIN = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def admitted_alternatives(spec: EnvSpec, turn: int, text: str) -> Iterator[tuple[str, str]]:
    """(new text, what) for each term of a text check on the reply to `turn` whose alternatives are numbers of other
    values (`["57", "0"]`: the stock after the move or before it, the quantity moved or the warehouse's), where the
    reply states one in digits and the world offers the other: the reply with the other in its place (defects94).
    Alternatives of one value (`1,500` / `1500`) or one rounding of it (`12.5` / `13`) are the same answer; a number
    the world does not offer is no answer an agent could copy, so it is not tried."""
    offered: set[float] | None = None
    for _, check, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if not isinstance(rule, TextRule) or rule.turn not in (None, turn):
            continue
        for term in (*rule.all_of, *rule.any_of):
            nums = [(a.strip(), float(a.replace(",", ""))) for a in ([] if isinstance(term, str) else term)
                    if _PLAIN.fullmatch(a.strip())]
            stated = next(((a, v, m) for a, v in nums
                           if (m := re.search(rf"(?<![\d.,]){re.escape(a)}(?![\d]|[.,]\d)", text))), None)
            if stated is None:
                continue
            a, va, m = stated
            for b, vb in nums:
                if round(vb) == round(va) or int(vb) == int(va):
                    continue
                offered = _offered(spec) if offered is None else offered
                if vb in offered:
                    yield (text[:m.start()] + b + text[m.end():],
                           f"the answer states {b}, another number the world offers, for {a} (both alternatives of "
                           f"one term of {check.id})")
