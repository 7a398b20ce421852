"""Two probes of Python checks: lists a call passed, reversed in the state and the audit alike
(`argument_order_dependent`), and what a check's runs cost against the sandbox's limits (`cost_near_limit`).

The list reversal and the cost rule are judged on their own (no sandbox); one sandboxed run shows the CPU seconds the
sandbox now reports.
"""

from __future__ import annotations

from typing import Any

from coworkenv.checks.run_setup import setup
from coworkenv.sandbox import run_sandboxed
from coworkenv.validate.python_probes import _near_limit, _reversed_supplied_lists

_TO = ["ana@helix.test", "bo@helix.test", "cy@helix.test"]


def _payload(args: dict[str, Any], *, ok: bool = True) -> dict[str, Any]:
    sent = {"id": "m-1", "folder": "sent", "to": list(_TO), "labels": ["a", "b"], "body": "hi"}
    other = {"id": "m-0", "folder": "inbox", "to": ["me@helix.test", "ana@helix.test"], "labels": []}
    return {"state": {"clock": "2026-01-01T00:00:00Z", "apps": {"mail": {"messages": [other, sent]}}},
            "audit": [{"index": 0, "tool": "mail_send", "ok": ok, "args": args, "result": {"to": list(_TO)}}],
            "messages": [{"turn": 0, "text": "Sent to ana, bo and cy."}]}


def test_a_list_a_call_passed_is_reversed_in_the_records_and_the_audit_alike() -> None:
    out = _reversed_supplied_lists(_payload({"to": list(_TO), "subject": "x", "body": "hi"}))
    assert out is not None
    sent = out["state"]["apps"]["mail"]["messages"][1]
    assert sent["to"] == _TO[::-1]
    assert out["audit"][0]["args"]["to"] == _TO[::-1] and out["audit"][0]["result"]["to"] == _TO[::-1]
    # what no call passed keeps its order: another list, a record's labels, the table's records, the replies
    assert out["state"]["apps"]["mail"]["messages"][0]["to"] == ["me@helix.test", "ana@helix.test"]
    assert sent["labels"] == ["a", "b"] and out["state"]["apps"]["mail"]["messages"][0]["id"] == "m-0"
    assert out["messages"] == [{"turn": 0, "text": "Sent to ana, bo and cy."}]


def test_lists_of_one_item_repeated_items_or_refused_calls_are_no_order_to_probe() -> None:
    assert _reversed_supplied_lists(_payload({"to": ["ana@helix.test"]})) is None
    assert _reversed_supplied_lists(_payload({"to": ["ana@helix.test", "ana@helix.test"]})) is None
    assert _reversed_supplied_lists(_payload({"to": list(_TO)}, ok=False)) is None
    assert _reversed_supplied_lists(_payload({"flags": [True, False]})) is None


def test_a_list_deep_in_a_calls_arguments_counts() -> None:
    out = _reversed_supplied_lists(_payload({"meta": {"to": list(_TO)}}))
    assert out is not None and out["state"]["apps"]["mail"]["messages"][1]["to"] == _TO[::-1]


def test_a_check_is_costly_only_where_its_cheapest_of_two_runs_nears_a_limit() -> None:
    assert _near_limit([(0.04, 0.2), (0.05, 0.3)], judged=False) is None
    assert _near_limit([(0.6, 1.0)], judged=False) is None  # one run says too little
    assert "CPU" in (_near_limit([(0.6, 1.0), (0.5, 0.9)], judged=False) or "")
    assert _near_limit([(0.6, 1.0), (0.1, 0.9)], judged=False) is None  # the cheapest run counts
    assert "wall-clock" in (_near_limit([(0.05, 2.8), (0.05, 2.9)], judged=False) or "")
    assert _near_limit([(0.05, 2.8), (0.05, 2.9)], judged=True) is None  # a judge's answers hold the wall clock


def test_the_sandbox_reports_the_cpu_seconds_a_run_spent() -> None:
    code = "def check(state, audit, messages):\n    return sum(range(3 * 10**6)) > 0\n"
    result = run_sandboxed(code, "check", {"state": {}, "audit": [], "messages": []}, prelude=setup())
    assert result.ok and result.value is True
    assert result.cpu_s > 0.0 and result.cpu_s <= result.duration_s + 0.05
