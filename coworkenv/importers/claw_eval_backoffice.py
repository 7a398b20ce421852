"""Claw-Eval's back-office services as coworkenv apps: finance (transactions, expense reports) and config
(third-party integrations)."""

from __future__ import annotations

from coworkenv.bindings import ResultShape
from coworkenv.importers.claw_eval_adapter import ServiceAdapter, ToolMap, number_of
from coworkenv.importers.claw_eval_adapter import rename as _rename
from coworkenv.importers.claw_eval_records import RecordMap, text_of

BACKOFFICE: dict[str, ServiceAdapter] = {}

_TRANSACTION_FIELDS = ("date", "currency", "type", "status", "category", "description", "merchant", "supplier",
                       "customer_id", "customer_name", "department", "reference", "approved_by", "notes")
_TRANSACTION = ResultShape(fields={"transaction_id": "id", "amount": "amount",
                                   **{name: name for name in _TRANSACTION_FIELDS}})
# A transaction keeps its fields by name; receipt urls, related items, cancel reasons and the like become lines of
# its notes. Claw-Eval's submit records any ids and total as given, and so does the app.
BACKOFFICE["finance"] = ServiceAdapter("finance", "finance", "FINANCE_FIXTURES", RecordMap(
    "transactions", "transactions", {"id": text_of("transaction_id"), "amount": number_of("amount"),
                                     **{name: text_of(name) for name in _TRANSACTION_FIELDS}},
    fold_into="notes"), {
    "finance_list_transactions": ToolMap("finance_list_transactions", {
        "start_date": _rename("start_date"), "end_date": _rename("end_date")}, defaults={"limit": 200},
        result=ResultShape(fields=_TRANSACTION.fields, wrap="transactions")),
    "finance_get_transaction": ToolMap("finance_get_transaction", {"transaction_id": _rename("transaction_id")},
                                       result=_TRANSACTION),
    "finance_submit_report": ToolMap("finance_submit_report", {
        "title": _rename("title"), "transactions": _rename("transactions"), "total_amount": _rename("total_amount")}),
}, no_op={"finance_report_submit": "its schema takes a report's text content; Claw-Eval's service takes only "
                                   "transaction ids and a total (the call fails there)"})


_INTEGRATION = ResultShape(fields={"integration_id": "id", "name": "name", "service": "service", "status": "status",
                                   "last_verified": "last_verified", "monthly_calls": "monthly_calls",
                                   "error_rate": "error_rate", "notes": "notes"})
# An integration keeps its overview fields; display names, endpoints, credentials, settings and the like become lines
# of its notes, which only the get shows (Claw-Eval's list leaves them out as well).
BACKOFFICE["config"] = ServiceAdapter("config", "config", "CONFIG_FIXTURES", RecordMap(
    "integrations", "integrations", {
        "id": text_of("integration_id"), "name": text_of("name"), "service": text_of("service"),
        "status": text_of("status"), "last_verified": text_of("last_verified"),
        "monthly_calls": number_of("monthly_calls"), "error_rate": number_of("error_rate"), "notes": text_of("notes")},
    fold_into="notes"), {
    "config_list_integrations": ToolMap("config_list_integrations", {"status": _rename("status")},
                                        result=ResultShape(fields={k: v for k, v in _INTEGRATION.fields.items()
                                                                   if k != "notes"}, wrap="integrations")),
    "config_get_integration": ToolMap("config_get_integration", {"integration_id": _rename("integration_id")},
                                      result=_INTEGRATION),
    "config_update_integration": ToolMap("config_update_integration", {
        "integration_id": _rename("integration_id"), "status": _rename("status"), "notes": _rename("notes")},
        result=ResultShape(fields={"integration_id": "id", "status": "status", "notes": "notes"})),
    # "Send a notification email to a team member" (an address, a subject, a body): a mail the user sends.
    "config_send_notification": ToolMap("mail_send", {
        "to": _rename("to", "split"), "subject": _rename("subject"), "body": _rename("body")},
        result=ResultShape(fields={"message_id": "id", "status": "folder", "timestamp": "sent_at"})),
})
