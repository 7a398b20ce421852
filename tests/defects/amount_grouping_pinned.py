"""Amounts the writer relays with the digits grouped, or the sum closed, the way another locale writes them: the
contract or cost-centre file says "annual value | EUR 12,973", and the writer's DM, reply or draft says "EUR 12'973"
or "12’973 EUR" (Swiss grouping, with an apostrophe or a typographic one), "12'973" bare, or closes the whole sum with
a dash, "EUR 12,973.–", "12.973,- €" (German and Swiss price notation), with the check on the message wanting the
writer's form. An honest agent that copies "EUR 12,973" as the document gives it fails: it holds neither "12'973" nor
"12,973.–". The sound twin (the generated spec) wants the value as the document gives it.

The format replay read a sum grouped with commas, dots or spaces: it read "12'973 EUR" as 973 euros and "EUR 12'973"
as 12 euros, and took "EUR 12,973.–" for the document's "EUR 12,973" itself (nothing to write back, while the check
wants the dash), so main accepted every case here.

Caught by the format replay (`format_pinned`, `_user_formats`), which now reads groups of three digits joined by an
apostrophe (`'`, `’`) and a whole sum closed by `.-`, `.–`, `,-` or `,–` as part of the amount.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tests.defects._core import Defect, reference
from tests.defects.format_pinned import fact_relayed

CLASS = "amount_grouping_pinned"
DETECTION = (
    "read a sum grouped with apostrophes ('12'973', '12’973') and one closed with a dash ('12,973.–', '12.973,-') as "
    "the amount; replay the reference with each one its messages write that the document it read gives in another "
    "form ('EUR 12,973') written as the document does; where a check the reference passes then fails, it pins the "
    "writer's grouping"
)

_AMOUNT = re.compile(r"\bEUR (\d{1,3}(?:,\d{3})+)\b")


def _digits(fact: str) -> str:
    return fact.removeprefix("EUR ")


def swiss_code(fact: str) -> str:
    """EUR 12,973 as "EUR 12'973"."""
    return "EUR " + _digits(fact).replace(",", "'")


def swiss_after(fact: str) -> str:
    """EUR 12,973 as "12’973 EUR" (a typographic apostrophe)."""
    return _digits(fact).replace(",", "\u2019") + " EUR"


def swiss_sign(fact: str) -> str:
    """EUR 12,973 as "€12'973"."""
    return "€" + _digits(fact).replace(",", "'")


def swiss_bare(fact: str) -> str:
    """EUR 12,973 as "12'973" (no currency)."""
    return _digits(fact).replace(",", "'")


def dash_closed(fact: str) -> str:
    """EUR 12,973 as "EUR 12,973.–" (the whole sum closed with a dash)."""
    return f"{fact}.\u2013"


def dash_closed_german(fact: str) -> str:
    """EUR 12,973 as "12.973,- €"."""
    return _digits(fact).replace(",", ".") + ",- €"


def _case(name: str, base: str, writer: Callable[[str], str], away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=fact_relayed(_AMOUNT, "an amount", writer), witness=reference,
                  witness_kind="honest", gate="mutations", code="format_pinned")


_AWAY = "fails the agent that copies the amount as the document gives it ('EUR 12,973'), not {w}"
_SWISS = _AWAY.format(w="grouped with apostrophes ('EUR 12'973', '12’973 EUR', '12'973')")
_DASH = _AWAY.format(w="closed with a dash ('EUR 12,973.–', '12.973,- €')")

DEFECTS = [
    _case("dm-annual-value-swiss-code-2", "synth:lookup_answer_source@2", swiss_code, _SWISS),
    _case("dm-approval-limit-swiss-after-11", "synth:lookup_answer_source@11", swiss_after, _SWISS),
    _case("dm-amount-swiss-bare-15", "synth:lookup_answer_source@15", swiss_bare, _SWISS),
    _case("dm-amount-dash-closed-47", "synth:lookup_answer_source@47", dash_closed, _DASH),
    _case("reply-amount-swiss-sign-14", "synth:inbox_triage_reply@14", swiss_sign, _SWISS),
    _case("reply-amount-swiss-code-18", "synth:inbox_triage_reply@18", swiss_code, _SWISS),
    _case("reply-amount-dash-closed-21", "synth:inbox_triage_reply@21", dash_closed, _DASH),
    _case("reply-amount-dash-german-28", "synth:inbox_triage_reply@28", dash_closed_german, _DASH),
    _case("draft-amount-swiss-after-19", "synth:draft_only_reply@19", swiss_after, _SWISS),
    _case("draft-amount-swiss-bare-32", "synth:draft_only_reply@32", swiss_bare, _SWISS),
    _case("draft-amount-dash-closed-55", "synth:draft_only_reply@55", dash_closed, _DASH),
    _case("draft-amount-dash-german-128", "synth:draft_only_reply@128", dash_closed_german, _DASH),
]
