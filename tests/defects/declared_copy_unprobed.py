"""A message's addressee read in `to` or in `cc`, the mail sent through the spec's own tool: no near miss moves them.

copied_not_addressed's defect (the check on the reply wants the asker in `to` or, as a second tier of full score, in
`cc`; the agent that addresses a colleague and only copies the asker passes) with the mail tools declared as the
service the task imports has them: `svc_mail_send` and `svc_mail_save_draft` taking the recipients as comma-separated
text (the binding splits it for `mail_send`), under the op's names (`to`, `cc`) or the service's own (`recipients`,
`copy_to`). The near miss that moves the addressee into the copies was written for the built-in tools' arguments: a
declared `to` got a list in `cc` (which the declared schema refuses, so the mutant failed for that and proved nothing),
and a declared `recipients` none at all, so the gates accepted the defect. The twin is the shipped spec (the addressee
in `to` alone), declared alike.
"""

from __future__ import annotations

from tests.defects import copied_not_addressed
from tests.defects._core import Defect, Edit, Spec
from tests.defects.guard_declared_route import declare_service

CLASS = "declared_copy_unprobed"
DETECTION = (
    "for each person a reference message is addressed to, whatever tool sends it (a declared one by the op parameter "
    "each argument fills, in the tool's own words: a comma list stays a comma list), replay the message addressed to "
    "another person with that one moved to its copies: a replay that passes lets the agent reply to the wrong person "
    "with the asker only copied"
)

_SERVICE_NAMES = {"to": "recipients", "cc": "copy_to"}


def _declared(edit: Edit | None, renames: dict[str, str] | None) -> Edit:
    def both(spec: Spec) -> None:
        if edit is not None:
            edit(spec)
        declare_service(spec, renames)
    return both


def _defect(base: str, renamed: bool) -> Defect:
    renames = _SERVICE_NAMES if renamed else None
    return Defect(CLASS, f"{'recipients' if renamed else 'comma-to'}-{base.split(':', 1)[1].replace('@', '-')}", base,
                  "addresses the reply to another person and only copies the one who asked (through svc_mail_send or "
                  "svc_mail_save_draft, recipients as comma-separated text)",
                  breaks=_declared(copied_not_addressed._either_field, renames), fix=_declared(None, renames),
                  gate="mutations", code="mutant_survived")


# mutations._copied_not_addressed: the addressee moved into `cc` for a tool whose arguments are named `to` and `cc`,
# the values written as built-in lists
DEFECTS = [_defect(b, True) for b in (
    "synth:draft_only_reply@1", "synth:draft_only_reply@2", "synth:inbox_triage_reply@1",
    "synth:mail_ticket_chat_coordination@1", "synth:clarify_ambiguous_request@1",
)]
