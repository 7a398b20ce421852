"""A number a Python check's tolerance admits beside the right one: another value the world offers, stated instead.

The Python counterpart of `_admitted_numbers` (text checks, whose tolerance is declared): a check written in code
(`abs(float(x) - 42) <= 5`, `41 <= n <= 44`, `round(v) == 13`) hides its bounds, so the reference's reply is replayed
with each number it states swapped for the nearest number the world holds (a distractor total, an outdated copy's
figure, another row's count); where that passes every required check while a far number fails a Python check on the
replies, the check reads the number and its tolerance admits the other value (`content_unchecked`).
"""

from __future__ import annotations

import re

from coworkenv.checks.text import _DATE_OR_TIME, _NUMBER, _SCALES, number_readings
from coworkenv.spec import EnvSpec, ReferenceStep, ReferenceTurn
from coworkenv.validate._admitted_numbers import _offered, _written
from coworkenv.validate._check_reads import parts_read, python_rules
from coworkenv.validate._episodes import SpecEpisodes
from coworkenv.validate._mutation_core import content_replies, replaced
from coworkenv.validate.gates import GateError

_PY_REACH = 0.5  # a Python check's tolerance is not told: the world's numbers within half the stated value are tried
_PY_MAX_PER_REPLY = 4  # numbers of one reply tried (each the nearest number the world offers)


def python_admitted_numbers(spec: EnvSpec, episodes: SpecEpisodes) -> list[GateError]:
    """`content_unchecked` for each number a reply states that a Python check reading the replies takes within a
    tolerance wide enough for another number the world offers (`abs(float(x) - 42) <= 5`, `41 <= n <= 44`,
    `round(v) == 13`): the check's bounds are in code, so the reply is replayed instead. Each number the reply writes in
    digits is replaced by the nearest number the world offers (within half its value, the same sign), in its style;
    where that passes every required check, it is replaced by a far one (the value times 3.7, plus 11): where that
    fails a Python check on the replies the near one passed, the check reads the number and admits the other one."""
    readers = {c.id for c in spec.checks
               if any("messages" in parts_read(r.code, r.entrypoint) for r in python_rules(c.rule))}
    if not readers:
        return []
    offered: set[float] | None = None
    errors = []
    for t, s, text in content_replies(spec):
        clocks = [m.span() for m in _DATE_OR_TIME.finditer(text)]
        tried = 0
        for m in _NUMBER.finditer(text):
            if m.group(1) or any(a <= m.start(2) < b for a, b in clocks) or tried >= _PY_MAX_PER_REPLY:
                continue
            scale = _SCALES.get(m.group(3) or m.group(4), 1.0)
            stated = _reading(m.group(2))
            if not stated:
                continue
            value = stated * scale
            if offered is None:
                offered = _offered(spec)
            near = [w for w in offered if 1e-9 * max(1.0, value) < abs(w - value) <= _PY_REACH * value and w > 0]
            if not near:
                continue
            tried += 1
            other = min(near, key=lambda w: (abs(w - value), w))
            admitted = episodes.mutant(_stating(spec, t, s, m, other, value, scale), lazy=True)  # read where it passes
            if admitted.result is None or not admitted.passed:
                continue
            far = episodes.mutant(_stating(spec, t, s, m, round(value * 3.7 + 11), value, scale))
            before, after = admitted.check_passed(), far.check_passed()
            reading = sorted(c for c in readers if before.get(c) and after.get(c) is False)
            if far.result is None or not reading:
                continue  # the number is not what the checks read
            errors.append(GateError(
                "mutations", "content_unchecked", f"reference[{t}].steps[{s}].say",
                f"turn {t}: the answer stating {other:g}, another number the world offers, for {value:g} passes "
                f"every required check, while a far number fails {', '.join(reading)}: the Python check's tolerance "
                "admits the other value; compare the number exactly (or within what rounding needs)"))
    return errors


def _reading(digits: str) -> float | None:
    """The value `digits` writes: with '.' as the decimal mark (1,234.5) where it reads so, else the other way."""
    try:
        return float(re.sub(r"[ ,'\u00a0\u202f]", "", digits))
    except ValueError:  # 1.234,5
        return min(number_readings(digits), default=None)


def _stating(spec: EnvSpec, t: int, s: int, m: re.Match[str], number: float, value: float,
             scale: float) -> list[ReferenceTurn]:
    """The reference with its reply at turn `t`, step `s` stating `number` where `m` states `value`, in its style."""
    text = spec.reference[t].steps[s].say or ""
    new = text[:m.start(2)] + _written(number, m.group(2), value, scale) + text[m.end(2):]
    return replaced(spec.reference, t, s, ReferenceStep(say=new))
