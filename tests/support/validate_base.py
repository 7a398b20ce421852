"""A small sound spec for the validation tests: it passes every strict gate, so one edit makes one defect.

Task: raise OPS-1 to p1, assign it to Jon, then announce it in #ops. Checks pin the priority, the assignee,
the announcement's channel and content and its order; a frame guard allows only what the task changes.
"""

from __future__ import annotations

import copy
from typing import Any

_BASE: dict[str, Any] = {
    "schema_version": "2",
    "capability": "ticket_triage_update",
    "user": "u-maya",
    "context": "You help Maya Chen (SRE) with tickets and chat.",
    "world": {
        "start": "2026-03-02T09:00:00Z",
        "apps": {
            "directory": {"people": [
                {"id": "u-maya", "name": "Maya Chen", "email": "maya.chen@acme.test", "team": "t-sre",
                 "role": "SRE", "chat_handle": "maya"},
                {"id": "u-jon", "name": "Jon Park", "email": "jon.park@acme.test", "team": "t-sre",
                 "role": "Engineer", "chat_handle": "jon"},
                {"id": "u-lena", "name": "Lena Ortiz", "email": "lena.ortiz@acme.test", "team": "t-sre",
                 "role": "Manager", "chat_handle": "lena"},
                {"id": "u-raj", "name": "Raj Iyer", "email": "raj.iyer@acme.test", "team": "t-sre",
                 "role": "Lead", "chat_handle": "raj"},
            ]},
            "tickets": {"tickets": [
                {"id": "OPS-1", "title": "Checkout latency spikes", "description": "p95 above 2s since 08:10.",
                 "status": "open", "priority": "p3", "assignee": "u-lena", "reporter": "u-lena"},
                {"id": "OPS-2", "title": "Rotate TLS certificates", "description": "Certs expire on 2026-03-20.",
                 "status": "open", "priority": "p3", "assignee": "u-raj", "reporter": "u-lena"},
            ]},
            "chat": {"channels": [
                {"id": "c-ops", "name": "#ops", "members": ["u-maya", "u-jon", "u-lena", "u-raj"]},
                {"id": "c-random", "name": "#random", "members": ["u-maya", "u-jon", "u-lena", "u-raj"]},
            ]},
        },
    },
    "tools": ["tickets_get", "tickets_update", "chat_post_message"],
    "turns": [{"content": "Raise OPS-1 to p1 and assign it to Jon, then post in #ops that OPS-1 is now p1 "
                          "with Jon on it."}],
    "checks": [
        {"id": "raised", "rule": {"kind": "field", "target": {
            "app": "tickets", "table": "tickets", "id": "OPS-1", "field": "priority"}, "value": "p1"}},
        {"id": "assigned", "rule": {"kind": "field", "target": {
            "app": "tickets", "table": "tickets", "id": "OPS-1", "field": "assignee"}, "value": "u-jon"}},
        {"id": "announced", "rule": {"kind": "records", "app": "chat", "table": "messages", "where": [
            {"field": "channel", "value": "c-ops"}, {"field": "sender", "value": "u-maya"},
            {"field": "text", "op": "contains", "value": "OPS-1"}]}},
        {"id": "announced-after", "rule": {"kind": "order",
                                           "first": {"tool": "tickets_update", "args": {"ticket_id": "OPS-1"}},
                                           "then": {"tool": "chat_post_message", "where": [
                                               {"field": "channel", "op": "in", "value": ["#ops", "c-ops", "ops"]}]}}},
        {"id": "nothing-else", "rule": {"kind": "frame", "allow": [
            # The fields the task changes: a frame allowing OPS-1 whole would let the agent close it too.
            {"app": "tickets", "table": "tickets", "id": "OPS-1", "fields": ["priority", "assignee", "updated_at"]},
            {"app": "chat", "table": "messages", "id": "chat-1"},
            {"app": "logs"}]}},
    ],
    "reference": [{"steps": [
        {"call": {"name": "tickets_get", "arguments": {"ticket_id": "OPS-1"}}},
        {"call": {"name": "tickets_update", "arguments": {"ticket_id": "OPS-1", "priority": "p1",
                                                          "assignee": "u-jon"}}},
        {"call": {"name": "chat_post_message", "arguments": {"channel": "#ops",
                                                             "text": "OPS-1 is now p1, Jon is on it."}}},
        {"say": "Done: OPS-1 is p1 and assigned to Jon, and #ops knows."},
    ]}],
}


def sound_spec() -> dict[str, Any]:
    """A fresh, editable copy of the sound base spec."""
    return copy.deepcopy(_BASE)


def check_of(spec: dict[str, Any], check_id: str) -> dict[str, Any]:
    return next(c for c in spec["checks"] if c["id"] == check_id)


def steps(spec: dict[str, Any], turn: int = 0) -> list[dict[str, Any]]:
    return spec["reference"][turn]["steps"]  # type: ignore[no-any-return]
