"""A mail the task wants sent, checked without its folder: the same mail saved as a draft passes.

`mail_save_draft` takes the arguments `mail_send` takes and puts the message in the same `messages` table, in the
`drafts` folder. A writer who finds the reply by its recipient, thread and words (`to` contains, `in_reply_to`,
`body` contains) and leaves out `folder` equals `sent` credits an agent that prepares the mail and never sends it:
the customer's question stays unanswered, the document never reaches the colleague, and the episode passes. The
sound twin is the base spec, whose check wants the mail in `sent`.
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, drop_cond, reference

CLASS = "draft_credited"
DETECTION = (
    "replay the reference with each needed mail_send (its drop fails a check) saved as a draft instead, the same "
    "arguments, where the agent is given mail_save_draft: a verifier that passes it credits a mail nobody received"
)
GATE, CODE = "mutations", "draft_credited"


def _sent_mail_check(spec: Spec) -> dict[str, Any]:
    """The first completion records check on mail the agent sends (`folder` equals `sent`, a recipient)."""
    return check(spec, kind="records", where=lambda c: c["role"] == "completion" and c["rule"]["app"] == "mail"
                 and any(w["field"] == "folder" and w["value"] == "sent" for w in c["rule"]["where"])
                 and any(w["field"] == "to" for w in c["rule"]["where"]))


def _unfoldered(spec: Spec) -> None:
    """The check on the mail the agent sends without its `folder` condition."""
    drop_cond(_sent_mail_check(spec), "folder")


def _drafted(spec: Spec) -> list[dict[str, Any]]:
    """The reference with every mail_send saved as a draft instead (the same arguments)."""
    ref = reference(spec)
    found = [st["call"] for turn in ref for st in turn["steps"] if st.get("call") and st["call"]["name"] == "mail_send"]
    if not found:
        raise CorpusError(f"{spec['capability']}: the reference sends no mail")
    for call in found:
        call["name"] = "mail_save_draft"
    return ref


def _defect(name: str, base: str, what: str) -> Defect:
    return Defect(CLASS, name, base, f"saves {what} as a draft and never sends it, and passes: the check on the "
                  "mail finds it by its recipient and words, not its folder",
                  breaks=_unfoldered, witness=_drafted, witness_kind="cheat", gate=GATE, code=CODE)


DEFECTS = [
    _defect("reply-drafted-1", "synth:inbox_triage_reply@1", "the answer to the customer"),
    _defect("reply-drafted-2", "synth:inbox_triage_reply@2", "the answer to the customer"),
    _defect("reply-drafted-3", "synth:inbox_triage_reply@3", "the answer to the customer"),
    _defect("document-drafted-1", "synth:clarify_ambiguous_request@1",
            "the mail with the document to the right namesake"),
    _defect("document-drafted-2", "synth:clarify_ambiguous_request@2",
            "the mail with the document to the right namesake"),
    _defect("document-drafted-3", "synth:clarify_ambiguous_request@3",
            "the mail with the document to the right namesake"),
]
