"""Reply near misses: the last answer of each turn whose answer is task content left out or stated wrongly (see
`mutations`; the lenient-answer kinds are in `_lenient_answers`)."""

from __future__ import annotations

from coworkenv.spec import EnvSpec, ReferenceStep
from coworkenv.validate import _lenient_answers as lenient
from coworkenv.validate._mutation_core import Mutation, replaced, reply_is_content, without
from coworkenv.validate.entities import EntityIndex


def reply_mutations(spec: EnvSpec, index: EntityIndex) -> list[Mutation]:
    """Drop or alter the last reply of each turn whose reply is task content (see `reply_is_content`)."""
    out: list[Mutation] = []
    for t, turn in enumerate(spec.reference):
        says = [s for s, step in enumerate(turn.steps) if step.say]
        if not says or not reply_is_content(spec, t):
            continue
        s = says[-1]
        text = turn.steps[s].say or ""
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
                          *lenient.compliance_claims(spec, t, text)]:
            out.append(Mutation("text_alter", where, f"turn {t}: {what}",
                                replaced(spec.reference, t, s, ReferenceStep(say=new)), code="content_unchecked"))
        if t < len(spec.turns) and spec.turns[t].content.strip():
            # An answer that only repeats the request names the ticket, flag or person it was asked about:
            # a check it passes does not judge the answer ("ENG-376: declined" for "ENG-376: accepted").
            echo = spec.turns[t].content
            out.append(Mutation("text_alter", where, f"turn {t}: the answer only repeats the request",
                                replaced(spec.reference, t, s, ReferenceStep(say=echo)), code="content_unchecked"))
    return out
