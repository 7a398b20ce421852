"""Finance: the ledger of an organisation's transactions (expenses, payments, refunds) and the expense reports
submitted from them."""

from __future__ import annotations

from typing import Any

from coworkenv.apps._common import clamp, dump, dump_many
from coworkenv.tools import Toolkit, read, service_args, write
from coworkenv.world import AppDef, AppState, Order, Record


class Transaction(Record):
    """One booked transaction; a negative amount is money back (a refund)."""

    date: str  # YYYY-MM-DD (a date with a time sorts after its day)
    # int | float: a whole amount stays an int, so its JSON form is the same validated or not (record digests)
    amount: int | float
    currency: str = ""
    type: str = ""  # e.g. expense, income, payment, refund
    status: str = ""  # e.g. completed, pending, cancelled
    category: str = ""
    description: str = ""
    merchant: str = ""
    supplier: str = ""
    customer_id: str = ""
    customer_name: str = ""
    department: str = ""
    reference: str = ""
    approved_by: str = ""
    notes: str = ""


class ExpenseReport(Record):
    """A report submitted for a set of transactions, with the total its submitter stated."""

    title: str
    transactions: list[str] = []  # transaction ids, as submitted (duplicates and unknown ids kept)
    total_amount: int | float = 0
    by: str = ""
    at: str = ""


class FinanceState(AppState):
    transactions: list[Transaction] = []
    reports: list[ExpenseReport] = []


class FinanceTools(Toolkit):
    app = "finance"

    @read
    @service_args("stored_order")
    def list_transactions(self, start_date: str | None = None, end_date: str | None = None,
                          limit: int = 200, stored_order: bool = False) -> list[dict[str, Any]]:
        """List transactions by date, oldest first, optionally only those dated in [start_date, end_date].

        Args:
            start_date: Earliest date, YYYY-MM-DD (inclusive).
            end_date: Latest date, YYYY-MM-DD (inclusive: compared as text, so a dated time of that day is after it).
            limit: Maximum number of transactions.
            stored_order: In the order the ledger holds them (booked), not by date.
        """
        rows = self.world.table("finance", "transactions").select(None if stored_order else "date")
        # Compared as text, as booked dates are (YYYY-MM-DD sorts as it reads).
        picked = [t for t in rows if (not start_date or t.date >= start_date) and (not end_date or t.date <= end_date)]
        return dump_many(picked[:clamp(limit)])

    @read
    def get_transaction(self, transaction_id: str) -> dict[str, Any]:
        """Get one transaction.

        Args:
            transaction_id: Transaction id.
        """
        return dump(self.require("transactions", transaction_id, "transaction", "use finance_list_transactions"))

    @read
    def list_reports(self, limit: int = 50) -> list[dict[str, Any]]:
        """List submitted expense reports, newest first.

        Args:
            limit: Maximum number of reports.
        """
        return dump_many(self.world.table("finance", "reports").select("at", reverse=True, limit=clamp(limit)))

    @write
    def submit_report(self, title: str, transactions: list[str], total_amount: float) -> dict[str, Any]:
        """Submit an expense report of transactions with its total (recorded as given: the finance team checks it).

        Args:
            title: Report title.
            transactions: Ids of the transactions the report includes.
            total_amount: The report's total.
        """
        report = ExpenseReport(id=self.world.new_id("rep", "finance", "reports"), title=title,
                               transactions=list(transactions), total_amount=total_amount,
                               by=self.world.user or "", at=self.world.now_iso)
        self.put("reports", report)
        return {"status": "submitted", "report": {"id": report.id, "title": title, "transactions": report.transactions,
                                                  "total_amount": total_amount, "timestamp": report.at}}


APP = AppDef("finance", FinanceState, FinanceTools, "transactions ledger (expenses, payments, refunds), expense reports",
             indexes={
                 "transactions": {"date": Order(lambda t: (t.date, t.id))},
                 "reports": {"at": Order(lambda r: (r.at, r.id))},
             })
