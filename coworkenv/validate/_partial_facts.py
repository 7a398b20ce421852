"""Answers a check reads only in part: a fact of the reference's text (a date, a code, a version) that a check on
that text matches only the first digits of (`202` of `2027-04-19`, `ESC-44` of `ESC-4471`, `9-04-1` of the date),
restated with its other digits wrong. A check that cuts a number reads part of an answer, and accepts that wrong
answer too; one that reads the fact whole, or a whole part of it (the time of a date-time), makes no mutant.

Also answers a check reads by a digit class: a number of the reference's text that a pattern matches with `\\d` or
`[0-9]` where it means that number (`\\b(?:\\d|six) breaches` for "6 breaches", `^p\\d,\\d,3,2$` for the row `p1,4,3,2`),
restated with those digits one up. A digit another pattern on the same text reads literally is left alone (that
check catches it), and so is one the pattern reads with any character (`.{0,12}`: it is not the check's fact) and the
number of a counted id (`SUP-2217`: a new record's id belongs to the run, `\\d+` is how a check must read it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import date
from typing import Any

from coworkenv.spec import EnvSpec, FieldRule, RecordsRule, ReferenceStep, TextRule, ToolCallSpec
from coworkenv.spec_regex import PatternRefused, PatternTimeout, compiled
from coworkenv.spec_regex import spans as pattern_spans
from coworkenv.tools import ToolDef
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._clock_readings import same_clocks, same_dates
from coworkenv.validate._declared_calls import op_params
from coworkenv.validate._mutation_core import Mutation, replaced, reply_is_content

_FACT = re.compile(r"[\w.@#+/-]*\d[\w.@#:+/-]*")  # a token with a digit: a date, a code, a version, a path
_PATTERN_OPS = frozenset({"matches"})
_LITERAL_OPS = frozenset({"equals", "contains", "in"})
# One character ("2") is a count that a longer number may hold by chance; two ("20" of "2027") is already a prefix.
_MIN_LITERAL = 2


def partial_fact_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]], tools: Mapping[str, ToolDef],
                           content_args: frozenset[str]) -> Iterator[Mutation]:
    """For each content argument of a write and each turn's last answer: the text with the digits of every fact a
    check on it reads only in part moved by one outside that part (see the module docstring)."""
    same, same_day = same_clocks(spec), same_dates(spec)

    def alter(text: str, patterns: list[Any]) -> list[tuple[str, str]]:
        out = []
        wrong = beyond_checked_part(text, patterns)
        if wrong is not None:
            out.append(("with the facts its checks read in part stated wrongly", wrong))
        loose = classed_digits_wrong(text, patterns, same, same_day)
        if loose is not None:
            out.append(("with the digits its checks read by a digit class stated wrongly", loose))
        return out
    return content_mutations(spec, writes, tools, content_args, alter, "content_unchecked")


Alter = Callable[[str, list[Any]], Iterable[tuple[str, str]]]


def content_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]], tools: Mapping[str, ToolDef],
                      content_args: frozenset[str], alter: Alter, code: str,
                      reply_reads: Callable[[int], list[Any]] = lambda turn: []) -> Iterator[Mutation]:
    """A text near miss of each content argument of a write and of each turn's last answer (where the task asks for
    one): a mutant per (how, altered text) that `alter` makes of the text and the patterns its checks read it with
    (for an answer, also `reply_reads(turn)`), reported under `code`."""
    for t, s, call in writes:
        tool = tools.get(call.name)
        params = op_params(tool) if tool is not None else {}  # a declared argument by the op parameter it fills
        for name, value in call.arguments.items():
            param = params.get(name, name)
            if param not in content_args or not isinstance(value, str):
                continue
            for how, wrong in alter(value, _field_patterns(spec, tool.app if tool else None, param)):
                step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={**call.arguments, name: wrong}))
                yield Mutation("text_alter", f"reference[{t}].steps[{s}].call.arguments.{name}",
                               f"{call.name}: {name} {how}", replaced(spec.reference, t, s, step), code=code)
    for t, turn in enumerate(spec.reference):
        says = [s for s, step in enumerate(turn.steps) if step.say]
        if not says or not reply_is_content(spec, t):
            continue
        for how, wrong in alter(turn.steps[says[-1]].say or "", [*_reply_patterns(spec, t), *reply_reads(t)]):
            yield Mutation("text_alter", f"reference[{t}].steps[{says[-1]}].say", f"turn {t}: the answer {how}",
                           replaced(spec.reference, t, says[-1], ReferenceStep(say=wrong)), code=code)


def beyond_checked_part(text: str, patterns: list[Any]) -> str | None:
    """`text` with each digit of a fact whose number some pattern's match cuts, outside every match, moved by one
    (`2027-04-19` -> `2038-15-20` under `202`); None when no match cuts a number. A match that ends where a number
    does (`14:00` of `14:00-15:00`, `13:30` of `2026-05-26T13:30:00`) reads a whole part: nothing is altered."""
    try:
        spans = [span for p in patterns for span in pattern_spans(p, text)]
    except PatternTimeout:  # a spec pattern too slow on its own reference: this gate cannot tell
        return None
    cuts = [i for s, e in spans for i in (s, e) if 0 < i < len(text) and text[i - 1].isdigit() and text[i].isdigit()]
    cuts += _dates_cut(text, spans)
    if not cuts:
        return None
    out = list(text)
    for fact in _FACT.finditer(text):
        a, b = fact.span()
        if not any(a < i < b for i in cuts):
            continue
        covered = {i for s, e in spans if s < b and e > a for i in range(max(s, a), min(e, b))}
        for i in range(a, b):
            if i not in covered and text[i].isdigit():
                out[i] = str((int(text[i]) + 1) % 10)
    altered = "".join(out)
    return altered if altered != text else None


_ISO_DATE = re.compile(r"(?<!\d)\d{4}-\d\d-\d\d(?!\d)")


def _dates_cut(text: str, spans: list[tuple[int, int]]) -> list[int]:
    """A cut inside each ISO date of `text` whose digits the matches read only some of: its year (`2027-` of
    `2027-05-06`), its year and month (`2027-05`), its month and day (`05-06`). The parts of a date are no whole
    parts of the fact (defects92: a draft's `body contains 2027-05` passed the day wrong); a match reading the whole
    date, or the date of a date-time, or none of it, cuts nothing."""
    out = []
    for m in _ISO_DATE.finditer(text):
        digits = [i for i in range(*m.span()) if text[i].isdigit()]
        read = sum(1 for i in digits if any(s <= i < e for s, e in spans))
        if 0 < read < len(digits):
            out.append(m.start() + 1)
    return out


_COUNTED_ID = re.compile(r"\b[A-Za-z]+-\d+\b")  # a new record's id (`World.new_id`: SUP-2217, task-17)
_MAX_CLASS_SPAN = 400  # characters: a match this long reads a passage, not a number
_MAX_CLASS_PROBES = 400  # digits probed per text (two searches each)


_SPELLED_OTHERWISE = re.compile(r"\b\d{4}-\d\d-\d\d|\b\d{1,2}[:./]\d{1,2}\b")  # a date, a clock time, a day/month


def classed_digits_wrong(text: str, patterns: list[Any],
                         same: Callable[[tuple[int, int]], set[tuple[int, int]] | None] | None = None,
                         same_day: Callable[[date], set[date]] | None = None) -> str | None:
    """`text` with each digit moved that some pattern's match reads by a digit class (the digit moved, the pattern
    still matches the same span; a letter there, it does not) and no pattern whose match covers it reads literally; None
    when there is none. The digit goes one up, or where the pattern admits not that but another digit (a class of a
    few, `[56] breaches` for 6, or an alternation, `(?:5|6)`) to the nearest such one above it (defects75); not inside
    a date or a clock time (`1[45]:00` may name one instant in two zones, `[34]/[34]` a day in either order: the
    checks' zone and date readings judge those), unless `same` (`_clock_readings.same_clocks`) says which clocks name
    the instant a clock time names: then any digit is tried, and a clock it makes is kept where it is a time of day and
    not one of those (`1[05]:30` for 15:30 admits 10:30; `1[45]:00` for 14:00 UTC = 15:00 London admits no other),
    one digit per clock (defects82). Likewise an ISO date's digits where `same_day` (`_clock_readings.same_dates`)
    says which dates name its day: any digit is tried, and a date it makes is kept where it is a calendar date and not
    one of those (`2027-05-0[56]` for the 6th admits the 5th; `2026-06-0[67]` for an instant on the 6th in UTC and the
    7th in Tokyo admits no other), one digit per date (defects95). Digits of counted ids (`SUP-2217`) are left alone. A literal (a
    stdlib pattern of escaped text) reads every digit of its match; a match longer than `_MAX_CLASS_SPAN` (a pattern
    reading the whole text) is not probed, and at most `_MAX_CLASS_PROBES` digits are, so a long file costs a
    bounded number of searches."""
    ids = {i for m in _COUNTED_ID.finditer(text) for i in range(*m.span())}
    spelled = {i for m in _SPELLED_OTHERWISE.finditer(text) for i in range(*m.span())}
    # A clock time's digits -> its span, where `same` knows the other clocks naming its instant.
    clocks: dict[int, tuple[int, int]] = {}
    if same is not None:
        for m in _CLOCK.finditer(text):
            if same((int(m.group(1)), int(m.group(2)))) is not None:
                clocks.update((i, m.span()) for i in range(*m.span()))
    if same_day is not None:
        for m in _ISO_DATE.finditer(text):
            if _calendar(m.group(0)) is not None:
                clocks.update((i, m.span()) for i in range(*m.span()))
        for m in _NUMERIC_DATE.finditer(text):
            if _numeric_days(m.group(0)):
                clocks.update((i, m.span()) for i in range(*m.span()))
    loose: dict[int, str] = {}
    pinned: set[int] = set()
    probes = 0
    try:
        for p in patterns:
            for s, e in pattern_spans(p, text):
                digits = [i for i in range(s, e) if text[i].isdigit() and i not in ids]
                if isinstance(p, re.Pattern):  # escaped literal text: every digit it matches is its own
                    pinned.update(digits)
                    continue
                if e - s > _MAX_CLASS_SPAN:
                    continue
                # A pattern without a class or an alternation admits a digit's neighbour or none of its digits.
                tries = range(1, 10) if "[" in p.pattern or "|" in p.pattern else range(1, 2)
                for i in digits:
                    probes += 1
                    if probes > _MAX_CLASS_PROBES:
                        break
                    admitted = None
                    for k in tries if i not in spelled or i in clocks else range(1, 2):
                        digit = str((int(text[i]) + k) % 10)
                        if i in clocks and not _other_clock(text, clocks[i], i, digit, same, same_day):
                            continue
                        if (s, e) in pattern_spans(p, text[:i] + digit + text[i + 1:]):
                            admitted = digit
                            break
                    if admitted is None:
                        pinned.add(i)
                    elif (s, e) not in pattern_spans(p, text[:i] + "x" + text[i + 1:]):
                        loose.setdefault(i, admitted)
    except PatternTimeout:  # a spec pattern too slow on its own reference: this gate cannot tell
        return None
    chosen = {i: d for i, d in loose.items() if i not in pinned}
    moved: set[tuple[int, int]] = set()  # one digit per clock: two moved at once may make the same instant again
    for i in sorted(chosen):
        if i in clocks:
            if clocks[i] in moved:
                del chosen[i]
            moved.add(clocks[i])
    if not chosen:
        return None
    return "".join(chosen.get(i, c) for i, c in enumerate(text))


_CLOCK = re.compile(r"\b(\d{1,2}):(\d\d)\b")


def _calendar(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


# A date in a numeric notation other than ISO: day and month (either way round) and a year, joined by dots, dashes or
# slashes (`06/05/2027`, `6.5.2027`, `06-05-2027`); year first with dots or slashes (`2027/05/06`); day and month
# with slashes, no year (`06/05`; a dotted pair is a clock or a decimal as often).
_NUMERIC_DATE = re.compile(r"(?<![\d./-])(?:\d{1,2}([./-])\d{1,2}\1\d{4}|\d{4}([./])\d{1,2}\2\d{1,2}|\d{1,2}/\d{1,2})"
                           r"(?![\d]|[./-]\d)")
_YEARLESS = range(2024, 2032)  # the years a day and month without a year is read in (2028: the 29th of February)


def _numeric_days(text: str) -> set[date]:
    """The calendar dates a numeric date may name: day first and month first where both are dates (`06/05/2027` is
    the 6th of May or the 5th of June: the notation is the writer's locale), year first as year, month, day; a day
    and month without a year, in each year of `_YEARLESS`. Empty where no reading is a date (`14.30`, `3/45`)."""
    parts = [int(p) for p in re.split(r"[./-]", text)]
    if len(parts) == 2:
        orders = [(y, parts[1], parts[0]) for y in _YEARLESS] + [(y, parts[0], parts[1]) for y in _YEARLESS]
    elif parts[0] > 999:
        orders = [(parts[0], parts[1], parts[2])]
    else:
        orders = [(parts[2], parts[1], parts[0]), (parts[2], parts[0], parts[1])]
    out = set()
    for y, m, d in orders:
        try:
            out.add(date(y, m, d))
        except ValueError:
            continue
    return out


def _other_clock(text: str, span: tuple[int, int], i: int, digit: str,
                 same: Callable[[tuple[int, int]], set[tuple[int, int]] | None] | None,
                 same_day: Callable[[date], set[date]] | None = None) -> bool:
    """Whether the clock time (or ISO date) at `span` with `digit` at `i` is a time of day (a calendar date) naming
    another instant (day) than it did."""
    if _ISO_DATE.fullmatch(text[span[0]:span[1]]):
        was_day = _calendar(text[span[0]:span[1]])
        now_day = _calendar(text[span[0]:i] + digit + text[i + 1:span[1]])
        return (same_day is not None and was_day is not None and now_day is not None
                and now_day not in same_day(was_day))
    if _NUMERIC_DATE.fullmatch(text[span[0]:span[1]]):
        # a wrong date: every day the new text may name is none that the old one names (in any zone the spec knows)
        was_days, now_days = _numeric_days(text[span[0]:span[1]]), _numeric_days(text[span[0]:i] + digit + text[i + 1:span[1]])
        return (same_day is not None and bool(now_days)
                and not now_days & {d for was in was_days for d in same_day(was)})
    was = _CLOCK.fullmatch(text[span[0]:span[1]])
    now = _CLOCK.fullmatch(text[span[0]:i] + digit + text[i + 1:span[1]])
    if was is None or now is None or same is None:
        return False
    clock = (int(now.group(1)), int(now.group(2)))
    same_instant = same((int(was.group(1)), int(was.group(2))))
    return clock[0] < 24 and clock[1] < 60 and same_instant is not None and clock not in same_instant


def _field_patterns(spec: EnvSpec, app: str | None, field: str) -> list[Any]:
    """What the checks want of a record field named `field` (in `app` when known), as patterns."""
    out: list[Any] = []
    for _, _, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if isinstance(rule, RecordsRule) and app in (None, rule.app):
            out += [p for c in rule.where if c.field == field for p in _compiled(c.op, c.value)]
        elif isinstance(rule, FieldRule) and rule.target.field == field and app in (None, rule.target.app):
            out += _compiled(rule.op, rule.value)
    return out


def _reply_patterns(spec: EnvSpec, turn: int) -> list[Any]:
    """What the text checks want of the answer to `turn`, as patterns."""
    out: list[Any] = []
    for _, _, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if not isinstance(rule, TextRule) or rule.turn not in (None, turn):
            continue
        for term in [*rule.all_of, *rule.any_of]:
            for alt in [term] if isinstance(term, str) else term:
                out += _compiled("contains", alt)
        if rule.regex:
            out += _compiled("matches", rule.regex)
    return out


def _compiled(op: str, value: object) -> list[Any]:
    values = value if op == "in" and isinstance(value, list) else [value]
    out: list[Any] = []
    for v in values:
        if not isinstance(v, str):
            continue
        if op in _PATTERN_OPS:
            try:
                out.append(compiled(v, ignorecase=True))
            except PatternRefused:
                continue
        elif op in _LITERAL_OPS and len(v) >= _MIN_LITERAL:
            out.append(re.compile(re.escape(v), re.IGNORECASE))
    return out
