"""Reply near misses: the last answer of each turn whose answer is task content left out or stated wrongly (see
`mutations`; the lenient-answer kinds are in `_lenient_answers`).

One kind is here: an instant the answer states whole (`last run 2026-11-15T01:39:12Z`) that a `reply_states` check
reads with `format: time` or `date` only, restated with the part the check does not read wrong (the day before,
`2026-11-14T01:39`, or an hour later, `02:39`). The user asked when; the answer says it, and a wrong day passes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from coworkenv.spec import EnvSpec, FieldRef, ReferenceStep, ReplyStatesRule
from coworkenv.validate import _lenient_answers as lenient
from coworkenv.validate._admitted_numbers import admitted_alternatives, admitted_numbers
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._mutation_core import Mutation, content_replies, replaced, without
from coworkenv.validate.entities import EntityIndex


def reply_mutations(spec: EnvSpec, index: EntityIndex,
                    values: Callable[[FieldRef], Any] | None = None) -> list[Mutation]:
    """Drop or alter the last reply of each turn whose reply is task content (see `reply_is_content`); `values`
    gives a checked field's value at the reference's end (for the instants a reply check reads in part)."""
    out: list[Mutation] = []
    for t, s, text in content_replies(spec):
        where = f"reference[{t}].steps[{s}].say"
        out.append(Mutation("text_drop", where, f"turn {t}: no answer", without(spec.reference, t, s),
                            code="content_unchecked"))
        altered = index.alter_facts(text)
        if altered is not None:
            out.append(Mutation("text_alter", where, f"turn {t}: the answer states the checked facts wrongly",
                                replaced(spec.reference, t, s, ReferenceStep(say=altered)), code="content_unchecked"))
        for new, what in [*lenient.off_by_one_counts(spec, t, text), *lenient.half_of_the_items(spec, t, text),
                          *lenient.names_without_facts(spec, t, text, index.is_entity),
                          *lenient.one_of_distinct_facts(spec, t, text, index.holders),
                          *lenient.compliance_claims(spec, t, text), *unread_instant_parts(spec, t, text, values),
                          *admitted_numbers(spec, t, text, values), *admitted_alternatives(spec, t, text)]:
            out.append(Mutation("text_alter", where, f"turn {t}: {what}",
                                replaced(spec.reference, t, s, ReferenceStep(say=new)), code="content_unchecked"))
        if t < len(spec.turns) and spec.turns[t].content.strip():
            # An answer that only repeats the request names the ticket, flag or person it was asked about:
            # a check it passes does not judge the answer ("ENG-376: declined" for "ENG-376: accepted").
            echo = spec.turns[t].content
            out.append(Mutation("text_alter", where, f"turn {t}: the answer only repeats the request",
                                replaced(spec.reference, t, s, ReferenceStep(say=echo)), code="content_unchecked"))
    return out


_INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


def unread_instant_parts(spec: EnvSpec, turn: int, text: str,
                         values: Callable[[FieldRef], Any] | None) -> list[tuple[str, str]]:
    """(the answer, how) for each instant a `reply_states` check of `turn` reads only the time (or only the date) of,
    where the answer states it whole (date and time together): that instant with the unread part wrong."""
    out: list[tuple[str, str]] = []
    if values is None:
        return out
    for _, _, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if not isinstance(rule, ReplyStatesRule) or rule.turn not in (None, turn) or rule.format == "raw":
            continue
        value = values(rule.source)
        if not isinstance(value, str) or not _INSTANT.match(value):
            continue
        day, clock = value[:10], value[11:16]
        stated = re.search(re.escape(day) + r"[T ]" + re.escape(clock), text)
        if stated is None:
            continue
        a = stated.start()
        if rule.format == "time":  # the day before, the time of day as it was
            wrong = text[:a] + (date.fromisoformat(day) - timedelta(days=1)).isoformat() + text[a + 10:]
            what = f"the {rule.source.field} it states with the day wrong (a check reads only its time)"
        else:  # an hour later, the day as it was
            hour = (int(clock[:2]) + 1) % 24
            wrong = text[:a + 11] + f"{hour:02d}" + text[a + 13:]
            what = f"the {rule.source.field} it states with the time wrong (a check reads only its date)"
        out.append((wrong, what))
    return out
