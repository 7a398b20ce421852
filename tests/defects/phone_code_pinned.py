"""Phone numbers the writer gives with its country code where the source gave none, or without it where the source
gave one: the hotline file says "+31 284 9988" and the writer's DM, reply or draft (and the check) say "0284 9988",
as the number is dialled at home; the customer's mail says "+44 639 195 367" and the writer saves "0639 195 367" on
the contact card; or the file says "0284 9988" and the writer adds the country code, "+31 284 9988". Either way the
check wants the writer's form, so the honest agent that copies the number as the source wrote it fails
(`phone_code_pinned`). The sound twin checks the number as the source gives it.

Caught by the format replay (`format_pinned`, `_user_formats`): a number with its country code and one dialled
from a trunk 0 are the same number where the one's digits end with the other's after the 0 (some countries keep the
0 after the code: +39 06 ... and 06 ...) and the code is one to three digits.
"""

from __future__ import annotations

from collections.abc import Callable

import orjson

from tests.defects._core import Defect, Spec, reference
from tests.defects.format_pinned import (
    _PHONE,
    _at_home,
    _card_and_mail,
    _confirmed_in,
    _mailed_number,
    checked_fact,
    fact_relayed,
    national,
    phone_compact,
    phone_dashes,
)

CLASS = "phone_code_pinned"
DETECTION = (
    "replay the reference with each phone number its messages, replies and phone arguments write with (or without) "
    "a country code that the user or a source read wrote without (or with) it, written as the source did; where a "
    "check the reference passes then fails, it pins the writer's form"
)


def national_dashes(number: str) -> str:
    """+31 284 9988 as "0284-9988"."""
    return phone_dashes(national(number))


def _dropped(writer: Callable[[str], str]) -> Callable[[Spec], None]:
    """The document gives the number with its country code; the writer's messages and the checks give it without."""
    return fact_relayed(_PHONE, "a phone number", writer)


def _source_only(spec: Spec, old: str, new: str) -> None:
    """`old` written as `new` everywhere but in the reference and the checks (the world: the file, the mail)."""
    for key in [k for k in spec if k not in ("reference", "checks")]:
        spec[key] = orjson.loads(orjson.dumps(spec[key]).decode().replace(old, new))


def _added(writer: Callable[[str], str]) -> Callable[[Spec], None]:
    """The document gives the number without its country code; the writer's messages and the checks add it (in the
    writer's grouping)."""
    relay = fact_relayed(_PHONE, "a phone number", writer)

    def edit(spec: Spec) -> None:
        fact = checked_fact(spec, _PHONE, "a phone number")
        _source_only(spec, fact, national(fact))
        relay(spec)
    return edit


def _card_added(spec: Spec) -> None:
    """The customer mails the new number without its country code; the writer saves it on the card with the code,
    and the check on the card wants that."""
    number = _mailed_number(spec)
    _source_only(spec, number, national(number))


def _card_at_home(spec: Spec) -> None:
    """The twin: the customer's number without its country code everywhere (the card, the mail, the checks)."""
    number = _mailed_number(spec)
    spec.update(orjson.loads(orjson.dumps(spec).decode().replace(number, national(number))))
    for c in spec["checks"]:
        for cond in c["rule"].get("where") or []:
            if cond.get("field") == "body" and cond.get("op") == "matches":
                cond.update(op="contains", value=national(number))


def _case(name: str, base: str, edit: Callable[[Spec], None], away: str,
          fix: Callable[[Spec], None] | None = None) -> Defect:
    return Defect(CLASS, name, base, away, breaks=edit, fix=fix, witness=reference, witness_kind="honest",
                  gate="mutations", code="format_pinned")


_DROP = "fails the agent that copies the number as the document writes it, +31 284 9988, not as '{w}'"
_ADD = "fails the agent that copies the number as the document writes it, 0284 9988, not as '{w}'"
_CARD_DROP = "fails the agent that saves and confirms the number as the customer mailed it, +44 ..., not as 0...-..."
_MAIL_DROP = "fails the agent that confirms the number as the customer wrote it, with its country code"
_CARD_ADD = "fails the agent that saves the number as the customer mailed it, 0..., without a country code"

DEFECTS = [
    _case("dm-hotline-dropped-8", "synth:lookup_answer_source@8", _dropped(national), _DROP.format(w="0284 9988")),
    _case("dm-hotline-dropped-dashes-12", "synth:lookup_answer_source@12", _dropped(national_dashes),
          _DROP.format(w="0284-9988")),
    _case("reply-reception-dropped-12", "synth:inbox_triage_reply@12", _dropped(national), _DROP.format(w="0284 9988")),
    _case("reply-reception-dropped-dashes-16", "synth:inbox_triage_reply@16", _dropped(national_dashes),
          _DROP.format(w="0284-9988")),
    _case("draft-hotline-dropped-2", "synth:draft_only_reply@2", _dropped(national), _DROP.format(w="0284 9988")),
    _case("draft-reception-dropped-4", "synth:draft_only_reply@4", _dropped(national_dashes),
          _DROP.format(w="0284-9988")),
    _case("card-dropped-1", "synth:contact_phone_update@1", _card_and_mail(national_dashes), _CARD_DROP),
    _case("card-dropped-4", "synth:contact_phone_update@4", _card_and_mail(national_dashes), _CARD_DROP),
    _case("confirm-dropped-2", "synth:contact_phone_update@2", _confirmed_in(national_dashes), _MAIL_DROP),
    _case("confirm-dropped-5", "synth:contact_phone_update@5", _confirmed_in(national_dashes), _MAIL_DROP),
    _case("dm-hotline-added-8", "synth:lookup_answer_source@8", _added(phone_compact), _ADD.format(w="+312849988"),
          fix=_at_home),
    _case("reply-reception-added-12", "synth:inbox_triage_reply@12", _added(phone_dashes),
          _ADD.format(w="+31-284-9988"), fix=_at_home),
    _case("draft-hotline-added-2", "synth:draft_only_reply@2", _added(phone_compact), _ADD.format(w="+312849988"),
          fix=_at_home),
    _case("draft-reception-added-4", "synth:draft_only_reply@4", _added(phone_dashes), _ADD.format(w="+31-284-9988"),
          fix=_at_home),
    _case("card-added-1", "synth:contact_phone_update@1", _card_added, _CARD_ADD, fix=_card_at_home),
    _case("card-added-7", "synth:contact_phone_update@7", _card_added, _CARD_ADD, fix=_card_at_home),
]
