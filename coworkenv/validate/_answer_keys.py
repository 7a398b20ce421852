"""Isolation: the answer the checks expect, readable before the agent works it out.

- Derived rows in the prompt: lines of content the reference writes (report rows, a corrected roster line)
  that the initial world does not contain, i.e. the agent must compute them, found in the context or a user
  turn ("it should come out as: svc-a,1; svc-b,0") -> `reference_in_prompt`.
- Expected values in the context: a value a check expects (a time, a number, a derived string) that no user turn
  states but the context or a notification does ("hint: the first free slot is 14:00Z") -> `verifier_in_prompt`.
- Expected date-times in the world: a time a check expects, with its date in any common form, in a free-text
  record ("the slot that works is Wednesday 16 September, 09:00 UTC") -> `verifier_in_world`.
- Answer keys in the world: one record pairs two or more records the checks judge with the values they expect
  (whole words), ids resolved to names ("PLAT-113 -> Clara Zhang; PLAT-113 -> p1") -> `answer_in_world`.
All comparisons run on `normalize_loose` text (case, punctuation, date formats).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from coworkenv.spec import EnvSpec, FieldRule
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._paraphrased_leaks import normalize_loose, segments_with
from coworkenv.validate.mutations import CONTENT_ARGS, write_steps

_MIN_ROW_TOKENS = 2
_ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}t\d{2}:\d{2}")
_MIN_VALUE_CHARS = 4
_MIN_KEY_CHARS = 20  # "OPS-1 -> Jon; OPS-2 -> p2": shorter strings cannot pair two records with values


def answer_key_leaks(spec: EnvSpec, world_text: str, prompts: list[tuple[str, str]],
                     initial_world: str) -> Iterator[tuple[str, str, str]]:
    """(code, path, message) for each leaked expected answer; `world_text` is every world string in lower case,
    NUL-separated, `initial_world` the initial records' strings joined.

    The prompts are searched first; the world (large) is normalised only when something was found there.
    """
    world_norm: list[str] = []

    def in_world(text: str) -> bool:
        if not world_norm:
            world_norm.append(normalize_loose(initial_world))
        return text in world_norm[0]

    # The system prompt is the context plus fixed text: the context itself is scanned.
    normalized = [(where, normalize_loose(text)) for where, text in prompts if where != "the system prompt"]
    turns = [text for where, text in normalized if where.endswith(".content")]  # what the user asks
    told = [(where, text) for where, text in normalized if not where.endswith(".content")]  # context, notices
    yield from _derived_rows(spec, in_world, normalized)
    yield from _expected_in_context(spec, in_world, turns, told)
    yield from _answer_keys(spec, world_text)
    yield from _expected_times_in_world(spec, world_text)


def _derived_rows(spec: EnvSpec, in_world: Callable[[str], bool],
                  prompts: list[tuple[str, str]]) -> Iterator[tuple[str, str, str]]:
    for t, s, call in write_steps(spec.reference, spec):  # a declared write's rows too
        for name, value in call.arguments.items():
            if name not in CONTENT_ARGS or not isinstance(value, str) or "\n" not in value.strip():
                continue
            rows = [r for r in (normalize_loose(line) for line in value.splitlines())
                    if len(r.split()) >= _MIN_ROW_TOKENS]
            for where, text in prompts:
                found = [r for r in rows if r in text]
                derived = [r for r in found if not in_world(r)] if len(found) >= 2 else []
                if len(derived) >= 2:
                    yield ("reference_in_prompt", f"reference[{t}].steps[{s}].call.arguments.{name}",
                           f"{len(derived)} lines the reference computes for {call.name} (not in the world) are "
                           f"written out in {where}")
                    break


def _expected_in_context(spec: EnvSpec, in_world: Callable[[str], bool], turns: list[str],
                         told: list[tuple[str, str]]) -> Iterator[tuple[str, str, str]]:
    for i, check, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if check.role == "guard":
            continue
        for value in _expected(rule):
            norm = normalize_loose(value)
            if len(norm) < _MIN_VALUE_CHARS or any(norm in t for t in turns):
                continue
            where = next((w for w, text in told if norm in text), None)
            timed = _ISO_TIME.match(value.lower()) is not None
            if where is not None and (timed or not in_world(norm)):  # a value the world states is to be found
                yield ("verifier_in_prompt", f"checks[{i}]",
                       f"the value check {check.id!r} expects ({value}) is stated in {where}")
                break


def _expected(rule: Any) -> list[str]:
    if isinstance(rule, FieldRule):
        return [str(rule.value)] if isinstance(rule.value, str | int | float) and not isinstance(
            rule.value, bool) else []
    if rule.kind == "records":
        return [str(c.value) for c in rule.where if c.op == "equals" and isinstance(c.value, str | int)
                and not isinstance(c.value, bool)]
    return []


def _answer_keys(spec: EnvSpec, world_text: str) -> Iterator[tuple[str, str, str]]:
    people = {p.id: [p.name, p.email] for p in spec.world.apps.directory.people}
    pairs: list[tuple[int, str, list[str]]] = []  # check index, record id, ways to write the expected value
    for i, check, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if check.role == "guard" or not isinstance(rule, FieldRule) or not isinstance(rule.value, str | int):
            continue
        value = str(rule.value)
        names = [normalize_loose(v) for v in [value, *people.get(value, [])] if v]
        pairs.append((i, normalize_loose(rule.target.id), names))
    if len({record for _, record, _ in pairs}) < 2:
        return
    seen: set[str] = set()
    for _, record, _ in pairs:
        for text in segments_with(world_text, record.split()[0]) if record else []:
            if len(text) < _MIN_KEY_CHARS or text in seen:
                continue
            seen.add(text)
            padded = f" {normalize_loose(text)} "
            hits = [(i, rec) for i, rec, names in pairs
                    if f" {rec} " in padded and any(f" {n} " in padded for n in names)]
            if len({rec for _, rec in hits}) >= 2:  # a key covers several records, not one record's facts
                yield ("answer_in_world", f"checks[{hits[0][0]}]",
                       f"one world record pairs the records of {len(hits)} checks with the values they expect")
                return


def _expected_times_in_world(spec: EnvSpec, world_text: str) -> Iterator[tuple[str, str, str]]:
    """A date-time a check expects, written out in a free-text world record ("the slot that works is Wednesday
    16 September, 09:00 UTC"): its date in any common form together with its clock time."""
    for i, check, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if check.role == "guard":
            continue
        for value in _expected(rule):
            when = _parse_time(value)
            if when is None:
                continue
            clock = f"{when:%H:%M}"
            for text in segments_with(world_text, clock):
                if " " in text and any(form in text for form in _date_forms(when)):
                    yield ("verifier_in_world", f"checks[{i}]",
                           f"the date and time check {check.id!r} expects ({value}) are written in a world record")
                    return


def _parse_time(value: str) -> datetime | None:
    if not _ISO_TIME.match(value.lower()):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _date_forms(when: datetime) -> list[str]:
    """How a text may write the date of `when` (lower case): ISO, day month, month day, numeric."""
    day, month, short = when.day, f"{when:%B}".lower(), f"{when:%b}".lower()
    return [f"{when:%Y-%m-%d}", f"{day} {month}", f"{month} {day}", f"{day} {short}", f"{short} {day}",
            f"{day:02d} {month}", f"{when.month}/{day}/", f"{day}/{when.month}/", f"{day}.{when.month}."]
