"""A check that the agent consulted a source, met by a read of another record of the same kind.

A task says where the answer lives ("follow the triage policy", "read the alert's mail first") and the writer checks
that the agent looked with a call matcher (`called`, `order`) on the reading tool that does not pin the record: no
arguments at all, or a condition every record of the table meets (a path that `contains` `.md`). An agent that opens
another runbook, another message or another note (one that exists, so the read succeeds) and answers from memory
passes: the check counts a read, not the source. The sound twin's matcher names the record.
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, reference

CLASS = "read_elsewhere_credited"
GATE, CODE = "mutations", "read_elsewhere_credited"
DETECTION = ("replay the reference with each read a check needs (its drop fails a check) moved onto another record "
             "of the same table (the read succeeds): a verifier that passes it while a check reading the calls "
             "failed the read left out credits a read of any record")


def _consulted(matcher: dict[str, Any], then: dict[str, Any] | None = None):  # type: ignore[no-untyped-def]
    """A required check that a call matching `matcher` happened (before a call matching `then`, if given)."""
    def edit(spec: Spec) -> None:
        rule: dict[str, Any] = ({"kind": "called", "call": matcher} if then is None
                                else {"kind": "order", "first": matcher, "then": then})
        spec["checks"].append({
            "id": "source-consulted", "description": f"the agent consulted the source ({matcher['tool']})",
            "role": "completion", "weight": 1.0, "required": True, "safety": False, "pass_score": 1.0,
            "rule": rule})
    return edit


def _moved(tool: str, arg: str, value: str, other: str):  # type: ignore[no-untyped-def]
    """The reference with its read of `tool` on `value` moved onto the record `other` (which exists)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        hits = [st["call"] for turn in ref for st in turn["steps"] if st.get("call") and st["call"]["name"] == tool
                and st["call"]["arguments"].get(arg) == value]
        if len(hits) != 1:
            raise CorpusError(f"{spec['capability']}: {len(hits)} calls of {tool} on {value}")
        hits[0]["arguments"][arg] = other
        return ref
    return witness


def _defect(name: str, base: str, tool: str, arg: str, value: str, other: str, loose: dict[str, Any],
            then: dict[str, Any] | None = None) -> Defect:
    matcher = {"tool": tool, **loose}
    return Defect(CLASS, name, base, f"reads {other} instead of {value} (another record of the same kind, the read "
                  "succeeds) and answers from memory, and passes: the check that the agent consulted the source "
                  f"matches any {tool} call ({loose or 'no arguments'})",
                  breaks=_consulted(matcher, then), fix=_consulted({"tool": tool, "args": {arg: value}}, then),
                  witness=_moved(tool, arg, value, other), witness_kind="cheat", gate=GATE, code=CODE)


_SEARCH = {"where": [{"field": "service", "op": "contains", "value": "search"}]}
_MD = {"where": [{"field": "path", "op": "contains", "value": ".md"}]}
DEFECTS = [
    _defect("runbook-any-file", "synth:feature_flag_rollout@1", "files_read_file", "path",
            "runbooks/flag-rollout.md", "notes/data/OKR-review-07.md", {}),
    _defect("policy-any-markdown", "synth:ticket_triage_update@1", "files_read_file", "path",
            "support/triage-policy.md", "notes/billing/vendor-sync-03.md", _MD),
    _defect("contract-any-markdown", "synth:inbox_triage_reply@1", "files_read_file", "path",
            "legal/contracts-2026.md", "notes/devex/incident-retro-09.md", _MD),
    _defect("alert-mail-any-message-first", "synth:incident_investigate_fix@1", "mail_read_message", "message_id",
            "msg-167", "msg-161", {}, then={"tool": "services_set_flag", "args": {"service": "svc-kyc"}}),
    _defect("audit-note-any-note", "synth:web_page_audit@1", "notes_read_note", "note_id", "note-84", "note-85", {}),
    _defect("config-any-service", "synth:lookup_answer_source@1", "services_get_config", "service",
            "svc-pricing", "svc-fraud", {"where": [{"field": "service", "op": "matches", "value": "^svc-"}]}),
    # The matcher takes some other records, not the first by id: the move must find one it takes.
    _defect("staging-logs-any-search-service", "synth:feature_flag_rollout@1", "logs_tail", "service",
            "svc-search-staging", "svc-search", _SEARCH),
    _defect("staging-service-any-search-service", "synth:feature_flag_rollout@1", "services_get_service", "service",
            "svc-search-staging", "svc-search", _SEARCH),
    _defect("staging-logs-any-search-service-2", "synth:feature_flag_rollout@2", "logs_tail", "service",
            "svc-search-staging", "svc-search", _SEARCH),
]
