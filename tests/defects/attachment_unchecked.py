"""The attachment the request asks for, unchecked: "email both to Grace as attachments", "attach the document you
found the answer in", and the check on the mail (or draft) loses its `attachments` condition, so the mail with
another file attached passes. An attachment is a context link: a near miss linking another file was listed as
unchecked context, never failed (hunt70's `d65` witnesses on report_from_files, the third hunt's
`list_any_for_all`)."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec

CLASS = "attachment_unchecked"
DETECTION = (
    "a near miss linking another file as the attachment is a failure, not unchecked context, where the request "
    "(that turn's or an earlier one) asks for an attachment"
)


def _no_attachment_cond(spec: Spec) -> None:
    for c in spec["checks"]:
        where = c["rule"].get("where") or [] if c["rule"]["kind"] == "records" else []
        kept = [w for w in where if w["field"] != "attachments"]
        if len(kept) != len(where):
            c["rule"]["where"] = kept
            return
    raise CorpusError(f"{spec['capability']}: no check reads the attachments")


def _other_file(spec: Spec) -> list[dict[str, Any]]:
    """The reference, the mail's first attachment another file of the world."""
    files = [f["id"] for f in spec["world"]["apps"]["files"]["files"]]
    for turn in spec["reference"]:
        for step in turn["steps"]:
            args = (step.get("call") or {}).get("arguments") or {}
            if args.get("attachments"):
                args["attachments"][0] = next(f for f in files if f not in args["attachments"])
                return spec["reference"]  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: nothing attached")


DEFECTS = [
    Defect(CLASS, f"attachment-unread-{base.replace(':', '-').replace('@', '-')}", base,
           "attaches another file than the one asked for: no check reads the attachments",
           breaks=_no_attachment_cond, witness=_other_file, gate="mutations", code="asked_link_unchecked")
    for base in ("example:report_from_files", "synth:report_from_data@1", "synth:report_from_data@2",
                 "synth:clarify_ambiguous_request@1", "synth:clarify_ambiguous_request@2", "synth:draft_only_reply@1")
]
