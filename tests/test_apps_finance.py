"""The finance app: transactions listed by booked date within a date range, read one by one, and expense reports
recorded as submitted."""

from __future__ import annotations

from tests.test_apps_productivity import _box, _error, _ok

LEDGER = {"finance": {"transactions": [
    {"id": "tx-3", "date": "2026-03-04", "amount": 70.0, "merchant": "CityCab"},
    {"id": "tx-1", "date": "2026-02-27", "amount": 120, "category": "travel"},
    {"id": "tx-2", "date": "2026-03-04", "amount": -35.5, "type": "refund"},
    {"id": "tx-9", "date": "2026-03-31T18:00:00", "amount": 10},
]}}


def test_transactions_list_oldest_first_within_inclusive_text_dates() -> None:
    box = _box(**LEDGER)
    assert [t["id"] for t in _ok(box, "finance_list_transactions")] == ["tx-1", "tx-2", "tx-3", "tx-9"]
    march = _ok(box, "finance_list_transactions", start_date="2026-03-01", end_date="2026-03-31")
    # Dates compare as text, as Claw-Eval's service compares them: a time on the end day sorts after the day.
    assert [t["id"] for t in march] == ["tx-2", "tx-3"]
    assert [t["id"] for t in _ok(box, "finance_list_transactions", start_date="2026-03-04", limit=1)] == ["tx-2"]
    refund = _ok(box, "finance_get_transaction", transaction_id="tx-2")
    assert (refund["amount"], refund["type"], refund["merchant"]) == (-35.5, "refund", "")
    assert _ok(box, "finance_get_transaction", transaction_id="tx-1")["amount"] == 120  # a whole amount stays whole
    assert "tx-404" in _error(box, "finance_get_transaction", transaction_id="tx-404")


def test_a_report_is_recorded_as_submitted() -> None:
    box = _box(**LEDGER)
    # The total and ids are taken as given (a wrong total is the finance team's to catch, and the task's to check).
    out = _ok(box, "finance_submit_report", title="March", transactions=["tx-2", "tx-3", "tx-3"], total_amount=104.5)
    assert out["status"] == "submitted"
    assert (out["report"]["transactions"], out["report"]["total_amount"]) == (["tx-2", "tx-3", "tx-3"], 104.5)
    assert out["report"]["timestamp"].startswith("2026-03-02T09:")
    (report,) = _ok(box, "finance_list_reports")
    assert (report["id"], report["title"], report["by"]) == (out["report"]["id"], "March", "u-ana")
    assert box.world.table("finance", "reports").get(report["id"]) is not None
