"""Amounts the document gives grouped with commas ("annual value | EUR 41,620") that the writer relays with the
thousands spelled as a word ("€41.62 thousand", "89.76 thousand", "€93.75 thousand") or as a bare number
grouped with a space, as French, Nordic and SI style writes it ("12 973", "25 888" with a narrow no-break space,
"65 359" with a no-break space), or, where the sum is past a lakh ("EUR 141,620"), grouped the Indian way ("EUR
1,41,620", "1,41,620 EUR"). The writer's DM, reply or draft says so, and the check on the message wants the
writer's form. An honest agent that copies "EUR 41,620" as the document gives it fails. The sound twin (the
generated spec) wants the value as the document gives it.

The format replay read "€41.62 thousand" as 41.62 euros and "89.76 thousand" as the number 89.76, and read a number
grouped with spaces only after a currency ("EUR 12 973"), never bare, and "EUR 1,41,620" as EUR 1.41, so it never wrote the document's amount back:
main accepted every case here. (A form of three words or more, "EUR 41.62 thousand", is rejected on
main by the pinned-wording gate already, whatever it says.)

Caught by the format replay (`format_pinned`, `_user_formats`), which now reads "thousand", "million" and "billion"
after a number as its scale (as it reads "k", "M", "bn"), and a bare number whose groups of three digits are joined
by a space, a no-break space or a narrow one (not a group of a longer spaced run: a phone number's), and the Indian
grouping (the last three digits, pairs above them) as one number.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

import orjson

from tests.defects import amount_grouping_pinned as grouping
from tests.defects._core import Defect, Spec, reference
from tests.defects.format_pinned import checked_fact, fact_relayed

CLASS = "amount_spelled_pinned"
DETECTION = (
    "read 'thousand', 'million', 'billion' after a number as its scale ('EUR 41.62 thousand') and a bare number "
    "grouped with spaces ('12 973', narrow or no-break spaces too) as the number; replay the reference with each one "
    "its messages write that the document it read gives in another form ('EUR 41,620') written as the document "
    "does; where a check the reference passes then fails, it pins the writer's form"
)

def _thousands(fact: str) -> str:
    """EUR 41,620 as "41.62" (thousands, trailing zeros dropped)."""
    return f"{int(fact.removeprefix('EUR ').replace(',', '')) / 1000:g}"


def thousand_bare(fact: str) -> str:
    """EUR 89,760 as "89.76 thousand" (no currency)."""
    return f"{_thousands(fact)} thousand"


def thousand_sign(fact: str) -> str:
    """EUR 41,620 as "€41.62 thousand"."""
    return f"€{_thousands(fact)} thousand"


def _spaced(space: str) -> Callable[[str], str]:
    def writer(fact: str) -> str:
        return fact.removeprefix("EUR ").replace(",", space)
    writer.__doc__ = f"EUR 12,973 as '12{space}973' (bare, grouped with U+{ord(space):04X})"
    return writer


spaced = _spaced(" ")
spaced_narrow = _spaced("\u202f")
spaced_nbsp = _spaced("\u00a0")


def _case(name: str, base: str, writer: Callable[[str], str], away: str) -> Defect:
    return replace(grouping._case(name, base, writer, away), cls=CLASS)


# -- the Indian grouping: above a lakh (100,000) the digits are grouped in pairs, "EUR 1,41,620" --------------------
_AMOUNT = re.compile(r"EUR \d{1,3}(?:,\d{3})+")


def _past_a_lakh(then: Callable[[Spec], None] | None = None) -> Callable[[Spec], None]:
    """The sound base with its document's amount past a lakh (EUR 41,620 as EUR 141,620 wherever the spec writes it:
    the document, the reference and the checks), then `then` (the writer's relay)."""

    def edit(spec: Spec) -> None:
        digits = checked_fact(spec, _AMOUNT, "an amount").removeprefix("EUR ")
        text = orjson.dumps(spec).decode().replace(digits, f"{int('1' + digits.replace(',', '')):,}")
        spec.clear()
        spec.update(orjson.loads(text))
        if then is not None:
            then(spec)
    return edit


def _indian(digits: str) -> str:
    """141,620 as "1,41,620"."""
    whole = digits.replace(",", "")
    head, tail = whole[:-3], whole[-3:]
    pairs = [head[max(0, i - 2):i] for i in range(len(head), 0, -2)][::-1]
    return ",".join([*pairs, tail])


def indian_code(fact: str) -> str:
    """EUR 141,620 as "EUR 1,41,620"."""
    return "EUR " + _indian(fact.removeprefix("EUR "))


def indian_after(fact: str) -> str:
    """EUR 141,620 as "1,41,620 EUR"."""
    return _indian(fact.removeprefix("EUR ")) + " EUR"


def indian_bare(fact: str) -> str:
    """EUR 141,620 as "1,41,620"."""
    return _indian(fact.removeprefix("EUR "))


def _lakh_case(name: str, base: str, writer: Callable[[str], str], away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_past_a_lakh(fact_relayed(_AMOUNT, "an amount", writer)),
                  fix=_past_a_lakh(), witness=reference, witness_kind="honest", gate="mutations",
                  code="format_pinned")


_AWAY = "fails the agent that copies the amount as the document gives it ('EUR 41,620'), not {w}"
_WORD = _AWAY.format(w="with its thousands in a word ('€41.62 thousand', '89.76 thousand')")
_SPACED = _AWAY.format(w="as a bare number grouped with spaces ('12 973')")
_LAKH = _AWAY.format(w="grouped the Indian way ('EUR 1,41,620' for 'EUR 141,620')")

DEFECTS = [
    _case("dm-approval-limit-thousand-sign-11", "synth:lookup_answer_source@11", thousand_sign, _WORD),
    _case("dm-approval-limit-thousand-bare-11", "synth:lookup_answer_source@11", thousand_bare, _WORD),
    _case("reply-amount-thousand-bare-28", "synth:inbox_triage_reply@28", thousand_bare, _WORD),
    _case("reply-amount-thousand-sign-28", "synth:inbox_triage_reply@28", thousand_sign, _WORD),
    _case("draft-amount-thousand-sign-55", "synth:draft_only_reply@55", thousand_sign, _WORD),
    _case("draft-amount-thousand-bare-55", "synth:draft_only_reply@55", thousand_bare, _WORD),
    _case("dm-annual-value-spaced-2", "synth:lookup_answer_source@2", spaced, _SPACED),
    _case("dm-amount-spaced-narrow-15", "synth:lookup_answer_source@15", spaced_narrow, _SPACED),
    _case("reply-amount-spaced-14", "synth:inbox_triage_reply@14", spaced, _SPACED),
    _case("reply-amount-spaced-nbsp-18", "synth:inbox_triage_reply@18", spaced_nbsp, _SPACED),
    _case("draft-amount-spaced-19", "synth:draft_only_reply@19", spaced, _SPACED),
    _case("draft-amount-spaced-narrow-32", "synth:draft_only_reply@32", spaced_narrow, _SPACED),
    _lakh_case("dm-annual-value-indian-code-2", "synth:lookup_answer_source@2", indian_code, _LAKH),
    _lakh_case("dm-approval-limit-indian-after-11", "synth:lookup_answer_source@11", indian_after, _LAKH),
    _lakh_case("reply-amount-indian-code-14", "synth:inbox_triage_reply@14", indian_code, _LAKH),
    _lakh_case("reply-amount-indian-bare-21", "synth:inbox_triage_reply@21", indian_bare, _LAKH),
    _lakh_case("draft-amount-indian-code-19", "synth:draft_only_reply@19", indian_code, _LAKH),
    _lakh_case("draft-amount-indian-after-32", "synth:draft_only_reply@32", indian_after, _LAKH),
]
