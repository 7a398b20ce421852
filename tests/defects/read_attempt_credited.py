"""A Python check that the agent consulted a source, crediting a read the tool refused.

A task often says where the answer lives ("follow the runbook", "read the customer's mail first") and a writer checks
that the agent looked by finding the read in the audit: a `files_read_file` of the runbook's path, a
`mail_read_message` of the message. The audit keeps refused calls too (`ok` false, an `error` in place of the
result), so a check that compares the path or id case-blind, or only the arguments it names, and never reads
`a["ok"]`, credits an agent whose read opened nothing: the runbook asked for in capitals (no such file), the note,
mail or service named in capitals, a read with an argument the tool does not take. The agent never saw the source,
and passes. The sound twin's check is the same but asks that the read succeeded.
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import Defect, Spec

# The gate and code are attempt_credited's; `_refused`: the reference with one call changed so the tool refuses it.
from tests.defects.attempt_credited import CODE, GATE, _refused

CLASS = "read_attempt_credited"
DETECTION = ("replay the reference with each read a check needs (its drop fails a check) refused by the tool (the "
             "same arguments, an error for a result): a verifier that passes it while it fails the read left out "
             "credits the attempt (a Python check finding the read in the audit but not asking `ok`)")
_GRADER = """\
def check(state, audit, messages):
    for a in audit:
        if a["tool"] == {tool!r} and {ok}all(str(a["args"].get(k)).lower() == str(v).lower() for k, v in {want!r}.items()):
            return True
    return False
"""


def _read_check(tool: str, want: dict[str, Any], *, asks_ok: bool):  # type: ignore[no-untyped-def]
    """A required check that a call of `tool` with the arguments `want` (compared case-blind) is in the audit,
    asking `ok` or not."""
    def edit(spec: Spec) -> None:
        code = _GRADER.format(tool=tool, want=want, ok='a["ok"] and ' if asks_ok else "")
        spec["checks"].append({
            "id": "source-consulted", "description": f"the agent consulted the source ({tool} {want})",
            "role": "completion", "weight": 1.0, "required": True, "safety": False, "pass_score": 1.0,
            "rule": {"kind": "python", "entrypoint": "check", "apps": [], "code": code}})
    return edit


def _defect(name: str, base: str, tool: str, want: dict[str, Any], why: str, **changes: Any) -> Defect:
    return Defect(CLASS, name, base, f"makes the {tool} read so that the tool refuses it ({why}) and opens nothing, "
                  "and passes: the check that the agent consulted the source finds the read in the audit and never "
                  "reads whether it succeeded", breaks=_read_check(tool, want, asks_ok=False),
                  fix=_read_check(tool, want, asks_ok=True), witness=_refused(tool, want, **changes),
                  witness_kind="cheat", gate=GATE, code=CODE)


DEFECTS = [
    _defect("runbook-in-capitals", "synth:feature_flag_rollout@1", "files_read_file",
            {"path": "runbooks/flag-rollout.md"}, "the runbook asked for in capitals, no such file",
            path="RUNBOOKS/FLAG-ROLLOUT.md"),
    _defect("contract-unknown-argument", "synth:inbox_triage_reply@1", "files_read_file",
            {"path": "legal/contracts-2026.md"}, "with an `encoding` argument the tool does not take",
            encoding="utf-8"),
    _defect("alert-mail-in-capitals", "synth:incident_investigate_fix@1", "mail_read_message",
            {"message_id": "msg-167"}, "the alert's message named MSG-167, which the mailbox does not know",
            message_id="MSG-167"),
    _defect("note-in-capitals", "synth:web_page_audit@1", "notes_read_note",
            {"note_id": "note-84"}, "the note named NOTE-84, which the notes app does not know", note_id="NOTE-84"),
    _defect("config-in-capitals", "synth:lookup_answer_source@1", "services_get_config",
            {"service": "svc-pricing"}, "the service named SVC-PRICING, which the registry does not know",
            service="SVC-PRICING"),
]
