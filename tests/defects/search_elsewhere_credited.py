"""A check that the agent searched the right place, met by a search or list over another scope.

A task says where to look ("find the Zenith thread", "list the tickets assigned to Kiran", "check the logs of the
failing service", "look at the calendar that week") and the writer checks that the agent looked with a call matcher
on the searching tool that does not pin the scope: no arguments at all, or a condition every scope meets (a query
that is not empty, a service whose id starts with `svc-`). An agent that searches for other words, lists another
person's or another status's tickets, reads another service's logs or another week's calendar (the search succeeds,
it finds other records or none) and acts from memory passes: the check counts a search, not the scope. The sound
twin's matcher names the scope in `args`. A Python grader finding any successful call of the tool in the audit is
the same mistake (held by tests/test_validate_read_moves.py: sandboxed cases cost seconds each).
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import Defect

# `_refused` gives the one call matching `pinned` the changes (here a move the tool carries out: the read succeeds).
from tests.defects.attempt_credited import _refused
from tests.defects.read_elsewhere_credited import _consulted

CLASS = "search_elsewhere_credited"
GATE, CODE = "mutations", "read_elsewhere_credited"
DETECTION = ("replay the reference with each search or list a check needs (its drop fails a check) moved onto "
             "another scope a loose call matcher still takes (other words, another record it filters by, another "
             "of its fixed values, its window a week later): a verifier that passes it credits a search anywhere")


def _defect(name: str, base: str, tool: str, pinned: dict[str, Any], changes: dict[str, Any],
            loose: dict[str, Any], then: dict[str, Any] | None = None, scope: dict[str, Any] | None = None) -> Defect:
    """`scope`: what the twin's matcher pins (default `pinned`; a time is not pinned as a string)."""
    return Defect(CLASS, name, base, f"calls {tool} with {changes} instead of {pinned} (another scope, the search "
                  "succeeds) and acts from memory, and passes: the check that the agent searched the right place "
                  f"matches any {tool} call ({loose or 'no arguments'})",
                  breaks=_consulted({"tool": tool, **loose}, then), fix=_consulted({"tool": tool, "args": scope or pinned}, then),
                  witness=_refused(tool, pinned, **changes), witness_kind="cheat", gate=GATE, code=CODE)


_SOME_WORDS = {"where": [{"field": "query", "op": "not_equals", "value": ""}]}
DEFECTS = [
    _defect("thread-any-query", "synth:mail_ticket_chat_coordination@1", "mail_search", {"query": "Zenith"},
            {"query": "lunch"}, {}),
    _defect("request-mail-any-words", "synth:access_request_approval@1", "mail_search",
            {"query": "Access for Hamza Osei"}, {"query": "invoice"}, _SOME_WORDS),
    _defect("policy-article-any-query", "synth:inventory_restock_policy@1", "kb_search",
            {"query": "restocking policy"}, {"query": "holiday schedule"}, {}),
    _defect("contact-any-query", "synth:contact_phone_update@1", "contacts_search", {"query": "Rowan Marine"},
            {"query": "Acme"}, _SOME_WORDS),
    _defect("handoff-tickets-any-assignee", "synth:oncall_handoff@1", "tickets_search", {"assignee": "u-kiran"},
            {"assignee": "u-aisha"}, {}),
    _defect("triage-tickets-any-status", "synth:ticket_triage_update@1", "tickets_search", {"status": "open"},
            {"status": "closed"}, {}),
    _defect("meeting-any-find", "synth:reschedule_conflict@1", "calendar_find_events",
            {"query": "Review Rosa / Sanna"}, {"query": "All-hands"}, {},
            then={"tool": "calendar_update_event"}),
    _defect("incident-logs-any-service", "synth:incident_investigate_fix@1", "logs_search",
            {"service": "svc-kyc", "since": "2026-05-20T06:27:00Z"}, {"service": "svc-chatbot"},
            {"where": [{"field": "service", "op": "matches", "value": "^svc-"}]}, scope={"service": "svc-kyc"}),
]
