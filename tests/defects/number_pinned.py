"""Amounts the reference writes as a bare number, or with the digits grouped otherwise, than the document it copies
them from: the contract file says "annual value | EUR 12,973", and the writer's DM, reply or draft says "12973",
"12,973 euros" or "€12.973" (the European grouping), with the check on the message wanting the writer's number. An
honest agent copies "EUR 12,973" as the document gives it and fails: "EUR 12,973" holds neither "12973" nor
"12,973 euros" (`number_pinned`). The sound twin (the generated spec) wants the value as the document gives it.

Only the looked-up facts (lookup_answer_source, inbox_triage_reply, draft_only_reply) put an amount in a document
the reference relays; the seeds below are those whose fact is an amount.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tests.defects._core import Defect, reference
from tests.defects.format_pinned import fact_relayed

CLASS = "number_pinned"
DETECTION = (
    "read numbers however they are grouped ('12973', '12,973', '12.973') and amounts with their currency as a word "
    "('12,973 euros'); replay the reference with each one its messages write that the document it read gives in "
    "another form ('EUR 12,973') written as the document does; where a check the reference passes then fails, it "
    "pins the writer's number"
)

_AMOUNT = re.compile(r"\bEUR (\d{1,3}(?:,\d{3})+)\b")


def bare(fact: str) -> str:
    """EUR 12,973 as "12973"."""
    return fact.removeprefix("EUR ").replace(",", "")


def euros(fact: str) -> str:
    """EUR 12,973 as "12,973 euros"."""
    return f"{fact.removeprefix('EUR ')} euros"


def dotted(fact: str) -> str:
    """EUR 12,973 as "€12.973" (grouped the European way)."""
    return "€" + fact.removeprefix("EUR ").replace(",", ".")


def dotted_after(fact: str) -> str:
    """EUR 12,973 as "12.973 EUR"."""
    return fact.removeprefix("EUR ").replace(",", ".") + " EUR"


def dotted_bare(fact: str) -> str:
    """EUR 12,973 as "12.973" (no currency, grouped the European way)."""
    return fact.removeprefix("EUR ").replace(",", ".")


def abbreviated(fact: str, currency: str = "€{n}") -> str:
    """EUR 41,620 as "€41.62k", EUR 12,973 as "€12.973k" (thousands abbreviated, the value exact)."""
    thousands = int(fact.removeprefix("EUR ").replace(",", ""))
    return currency.format(n=f"{thousands / 1000:.3f}".rstrip("0").rstrip(".") + "k")


def abbreviated_after(fact: str) -> str:
    """EUR 89,760 as "89.76k EUR"."""
    return abbreviated(fact, "{n} EUR")


def abbreviated_code(fact: str) -> str:
    """EUR 93,750 as "EUR 93.75k"."""
    return abbreviated(fact, "EUR {n}")


def abbreviated_bare(fact: str) -> str:
    """EUR 25,888 as "25.888k" (no currency)."""
    return abbreviated(fact, "{n}")


def _case(name: str, base: str, writer: Callable[[str], str], away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=fact_relayed(_AMOUNT, "an amount", writer), witness=reference,
                  witness_kind="honest", gate="mutations", code="format_pinned")


_AWAY = "fails the agent that copies the amount as the document gives it ('EUR 12,973'), not {w}"
_BARE = _AWAY.format(w="bare and ungrouped ('12973')")
_WORD = _AWAY.format(w="with the currency as a word ('12,973 euros')")
_DOTS = _AWAY.format(w="grouped with dots ('€12.973', '12.973 EUR', '12.973')")

DEFECTS = [
    _case("dm-annual-value-bare-2", "synth:lookup_answer_source@2", bare, _BARE),
    _case("dm-approval-limit-euros-11", "synth:lookup_answer_source@11", euros, _WORD),
    _case("dm-amount-dotted-15", "synth:lookup_answer_source@15", dotted, _DOTS),
    _case("reply-amount-bare-14", "synth:inbox_triage_reply@14", bare, _BARE),
    _case("reply-amount-euros-18", "synth:inbox_triage_reply@18", euros, _WORD),
    _case("reply-amount-dotted-after-21", "synth:inbox_triage_reply@21", dotted_after, _DOTS),
    _case("draft-amount-bare-19", "synth:draft_only_reply@19", bare, _BARE),
    _case("dm-amount-bare-47", "synth:lookup_answer_source@47", bare, _BARE),
    _case("reply-amount-dotted-bare-28", "synth:inbox_triage_reply@28", dotted_bare, _DOTS),
    _case("draft-amount-dotted-bare-32", "synth:draft_only_reply@32", dotted_bare, _DOTS),
    _case("draft-amount-euros-55", "synth:draft_only_reply@55", euros, _WORD),
]

# Thousands abbreviated ("€41.62k", "89.76k EUR"), the value exact, which the format replay did not read as a number.
_ABBR = _AWAY.format(w="with its thousands abbreviated ('€41.62k', '89.76k EUR', '12.973k')")
DEFECTS += [
    _case("dm-approval-limit-abbreviated-11", "synth:lookup_answer_source@11", abbreviated, _ABBR),
    _case("dm-amount-abbreviated-bare-15", "synth:lookup_answer_source@15", abbreviated_bare, _ABBR),
    _case("reply-amount-abbreviated-after-28", "synth:inbox_triage_reply@28", abbreviated_after, _ABBR),
    _case("reply-amount-abbreviated-62", "synth:inbox_triage_reply@62", abbreviated, _ABBR),
    _case("reply-amount-abbreviated-code-141", "synth:inbox_triage_reply@141", abbreviated_code, _ABBR),
    _case("draft-amount-abbreviated-code-55", "synth:draft_only_reply@55", abbreviated_code, _ABBR),
    _case("draft-amount-abbreviated-128", "synth:draft_only_reply@128", abbreviated, _ABBR),
]
# Regression guards (main rejected them, by misreading "12.973k" as 12,973 grouped the European way and writing
# "EUR 12,973k" back): the abbreviation is read as thousands, and the document's "EUR 12,973" written back.
DEFECTS += [
    _case("dm-annual-value-abbreviated-2", "synth:lookup_answer_source@2", abbreviated, _ABBR),
    _case("reply-amount-abbreviated-code-18", "synth:inbox_triage_reply@18", abbreviated_code, _ABBR),
    _case("draft-amount-abbreviated-19", "synth:draft_only_reply@19", abbreviated, _ABBR),
]
