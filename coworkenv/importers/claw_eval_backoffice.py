"""Claw-Eval's back-office services as coworkenv apps: finance (transactions, expense reports), config
(third-party integrations), scheduler (jobs and their run history) and rss (news articles, newsletters)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from coworkenv.bindings import Case, ResultShape
from coworkenv.importers.claw_eval_adapter import ServiceAdapter, ToolMap, number_of, recorded
from coworkenv.importers.claw_eval_adapter import rename as _rename
from coworkenv.importers.claw_eval_adapter import written as _written
from coworkenv.importers.claw_eval_records import Derived, RecordMap, as_text, tags_of, text_of
from coworkenv.world import format_time, parse_time

BACKOFFICE: dict[str, ServiceAdapter] = {}

_TRANSACTION_FIELDS = ("date", "currency", "type", "status", "category", "description", "merchant", "supplier",
                       "customer_id", "customer_name", "department", "reference", "approved_by", "notes")
_TRANSACTION = ResultShape(fields={"transaction_id": "id", "amount": "amount",
                                   **{name: name for name in _TRANSACTION_FIELDS}})
_REPORT = recorded("report", "submitted", "title", "transactions", "total_amount")
# A transaction keeps its fields by name; receipt urls, related items, cancel reasons and the like become lines of
# its notes. Claw-Eval's submit records any ids and total as given, and so does the app.
BACKOFFICE["finance"] = ServiceAdapter("finance", "finance", "FINANCE_FIXTURES", RecordMap(
    "transactions", "transactions", {"id": text_of("transaction_id"), "amount": number_of("amount"),
                                     **{name: text_of(name) for name in _TRANSACTION_FIELDS}},
    fold_into="notes"), {
    "finance_list_transactions": ToolMap("finance_list_transactions", {
        "start_date": _rename("start_date", blank=True), "end_date": _rename("end_date", blank=True)},
        defaults={"limit": 200, "stored_order": True},  # the service lists its ledger in the fixture's order
        result=ResultShape(fields=_TRANSACTION.fields, wrap="transactions", count="total"), stored=True),
    "finance_get_transaction": ToolMap("finance_get_transaction", {"transaction_id": _rename("transaction_id")},
                                       result=_TRANSACTION, stored=True),
    # the service answers the report it records, as the call gives it (it keeps no id)
    "finance_submit_report": ToolMap("finance_submit_report", {
        "title": _rename("title"), "transactions": _rename("transactions"), "total_amount": _rename("total_amount")},
        result=_REPORT),
    # The same endpoint under another name, whose schema takes a report's text and no transaction ids: the service
    # reads only the title, ids and total, so a call fails there unless it gives the ids undeclared.
    "finance_report_submit": ToolMap("finance_submit_report", {
        "title": _rename("title"), "transactions": _rename("transactions"), "total_amount": _rename("total_amount")},
        result=_REPORT),
}, key="transaction_id", not_found="Transaction {transaction_id} not found")


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
    "config_list_integrations": ToolMap("config_list_integrations", {"status": _rename("status", blank=True)},
                                        result=ResultShape(fields={k: v for k, v in _INTEGRATION.fields.items()
                                                                   if k != "notes"}, wrap="integrations", count="total")),
    "config_get_integration": ToolMap("config_get_integration", {"integration_id": _rename("integration_id")},
                                      result=_INTEGRATION, stored=True),
    "config_update_integration": ToolMap("config_update_integration", {
        "integration_id": _rename("integration_id"), "status": _rename("status", blank=True),
        "notes": _rename("notes", blank=True)},  # (an empty one changes nothing: `if req.status: ...`)
        result=_written(_INTEGRATION, "integration", "updated"), stored=True),
    # "Send a notification email to a team member" (an address, a subject, a body): a mail the user sends.
    "config_send_notification": ToolMap("mail_send", {
        "to": _rename("to", "split"), "subject": _rename("subject"), "body": _rename("body")},
        defaults={"any_recipient": True},  # recorded to any `to` as given, as there
        result=recorded("notification", "sent", "to", "subject", "body")),
}, key="integration_id", not_found="Integration {integration_id} not found")


RUN_STATUS = {"success": "ok", "succeeded": "ok", "ok": "ok", "failed": "failed", "failure": "failed",
              "error": "failed", "stopped": "stopped", "never": "never"}
# A job list's filter compares the last status's text exactly, as the service does: only the words its jobs hold
# name an app status (the checkout's fixtures' words: no call of the service writes a job's last status, so these
# are all its jobs can hold); `error`, `Failed` or `never` lists none, as there (T147).
RUN_STATUS_FILTER = {"success": "ok", "failed": "failed", "stopped": "stopped", "": None}


def _run_status(value: Any) -> str:
    """A Claw-Eval run status as the app's; one it has no counterpart for fails the record check by name."""
    return RUN_STATUS.get(str(value).lower(), str(value)) if value is not None else "never"


def _utc_or_none(value: Any) -> str | None:
    return format_time(parse_time(str(value))) if value else None


@dataclass(frozen=True)
class JobsWithRuns(RecordMap):
    """Jobs as `jobs` rows, and each job's `execution_history` entries as `runs` rows."""

    def held(self) -> set[str]:
        return {*super().held(), "execution_history"}

    def __call__(self, data: Any) -> dict[str, list[dict[str, Any]]]:
        tables = super().__call__(data)
        runs = []
        for n, job in enumerate(self.rows(data)):
            for i, run in enumerate(job.get("execution_history") or []):
                when = run.get("run_time") or run.get("run_at")
                if not when:
                    raise ValueError(f"record {n}: execution_history[{i}] has no run_time or run_at")
                output = "\n".join(as_text(run[k]) for k in ("error", "notes") if run.get(k))
                runs.append({"id": f"{job['job_id']}#{i + 1}", "job": str(job["job_id"]), "at": _utc_or_none(when),
                             "status": _run_status(run.get("status")), "output": output,
                             "duration_seconds": next((run[k] for k in ("duration_seconds", "duration_s")
                                                       if run.get(k) is not None), None)})
        return {**tables, "runs": runs}


def _history_entries(job: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """A held job's execution history entries by the ids of the runs the import makes of them (`JOB-001#1`...)."""
    history = job.get("execution_history") or []
    return {f"{job['job_id']}#{n + 1}": run for n, run in enumerate(history) if isinstance(run, Mapping)}


_JOB_SUMMARY = {"job_id": "id", "name": "name", "cron_expression": "schedule", "enabled": "enabled",
                "last_status": "last_status", "last_run": "last_run", "next_run": "next_run", "tags": "tags"}
# A job's execution history is the service's own (held: no call of the service changes it), not the app's runs.
# a job's id as shown: the one the service numbered it by, where a delete made the count hand out a held one again
_JOB_ID = {"job_id": [Case(path="shown_id"), Case(path="id")]}
_JOB = ResultShape(fields={**_JOB_SUMMARY, "action": "command", "created_by": "owner", "notes": "notes"},
                   cases=_JOB_ID, values={"last_status": {"never": None}},  # a job not yet run: no last status
                   kept="added")  # a job a call made: the fields the service made it with
# the service answers the job asked for and its history's first `limit` entries (the count is of those here, of the
# whole history there: the same unless a job has run more than `limit` times)
_RUNS = ResultShape(fields={"run_time": "at", "status": "status", "duration_seconds": "duration_seconds",
                            "error": "output"}, wrap="history", count="total", echo={"job_id": "job_id"})
# A job's cron expression is its schedule, its action its command, its creator its owner; statuses success ->
# ok; the execution history becomes runs (UTC times); description, dependencies, failure counts, why it was
# disabled and the like become lines of its notes.
BACKOFFICE["scheduler"] = ServiceAdapter("scheduler", "scheduler", "SCHEDULER_FIXTURES", JobsWithRuns(
    "jobs", "jobs", {
        "id": text_of("job_id"), "name": text_of("name"), "schedule": text_of("cron_expression"),
        "command": text_of("action"), "owner": text_of("created_by"), "enabled": "enabled",
        "last_run": Derived(("last_run",), lambda r: _utc_or_none(r.get("last_run"))),
        "next_run": Derived(("next_run",), lambda r: _utc_or_none(r.get("next_run"))),
        "last_status": Derived(("last_status",), lambda r: _run_status(r.get("last_status"))),
        "tags": tags_of("tags"), "notes": text_of("notes")},
    fold_into="notes"), {
    "scheduler_list_jobs": ToolMap("scheduler_list_jobs", {
        # the service compares a status's text (an empty one does not filter): one no job holds lists none
        "status": _rename("last_status", values=RUN_STATUS_FILTER, closed=True),
        "enabled": _rename("enabled"),
        "tag": _rename("tag", blank=True)},
        defaults={"limit": 200, "stored_order": True, "whole": True},  # in the fixture's order, as there
        # a job as the service lists it: a held one as held, one a call made with its next run and tags, and no
        # last status (null) until it runs
        result=ResultShape(fields=_JOB_SUMMARY, wrap="jobs", count="total", cases=_JOB_ID,
                           values={"last_status": {"never": None}}, kept="shown"), stored=True,
        listed=("job_id", "name", "cron_expression", "enabled", "last_status", "last_run", "next_run", "tags")),
    "scheduler_get_job": ToolMap("scheduler_get_job", {"job_id": _rename("job_id")}, result=_JOB, stored=True),
    # the service answers its job's own history entries as held (no call of it changes them), in their order
    "scheduler_job_history": ToolMap("scheduler_job_history", {"job_id": _rename("job_id"), "limit": _rename("limit")},
                                     defaults={"stored_order": True, "with_id": True}, result=_RUNS, stored=True,
                                     held_items=_history_entries, cut="limit", cut_total=True),
    "scheduler_create_job": ToolMap("scheduler_create_job", {
        "name": _rename("name"), "cron_expression": _rename("schedule"), "action": _rename("command"),
        "enabled": _rename("enabled"), "tags": _rename("tags")},
        # the service keeps any cron text and duplicate names, numbers the job by the count held, and answers the
        # job it makes: the request's fields, its creator as given (none unless given), not yet run, no history
        # (kept: a later answer showing the job shows those fields, its stamp and creator as made)
        defaults={"as_written": True, "id_prefix": "JOB-"}, kept_stamp="created_at", kept_fresh=True,
        result=_written(ResultShape(
            fields={k: v for k, v in _JOB.fields.items() if k not in ("last_status", "last_run", "next_run",
                                                                     "created_by", "notes")},
            given={"created_by": "created_by"}, stamp="created_at", stamp_style="isoformat",
            const={"last_run": None, "next_run": None, "last_status": None, "execution_history": []},
            cases=_JOB_ID, kept="added"), "job", "created")),
    "scheduler_update_job": ToolMap("scheduler_update_job", {
        "job_id": _rename("job_id"), "enabled": _rename("enabled"), "cron_expression": _rename("schedule"),
        "name": _rename("name"), "action": _rename("command"), "tags": _rename("tags")},
        # (the service answers the job whole)
        defaults={"as_written": True, "whole": True}, result=_written(_JOB, "job", "updated"), stored=True),
    # the service answers the job it removed
    "scheduler_delete_job": ToolMap("scheduler_delete_job", {"job_id": _rename("job_id")}, defaults={"with_job": True},
                                    result=_written(_JOB, "job", "deleted", under="job"), stored=True),
}, key="job_id", not_found="Job {job_id} not found")


_ARTICLE_SUMMARY = {"article_id": "id", "title": "title", "source": "source", "category": "category",
                    "published_at": "published_at", "summary": "summary", "word_count": "word_count"}
# An article keeps its fields; relevance tags join its tags. Feeds are derived from the articles' sources, as
# Claw-Eval's service derives them.
BACKOFFICE["rss"] = ServiceAdapter("rss", "news", "RSS_FIXTURES", RecordMap(
    "articles", "articles", {
        "id": text_of("article_id"), "title": text_of("title"), "source": text_of("source"),
        "category": text_of("category"), "published_at": text_of("published_at"), "summary": text_of("summary"),
        "content": text_of("content"), "word_count": number_of("word_count"),
        "tags": tags_of("tags", "relevance_tags"), "url": text_of("url")}), {
    "rss_list_feeds": ToolMap("news_list_feeds", {"category": _rename("category", blank=True)},
                              result=ResultShape(wrap="feeds", count="total")),
    # the service keeps its fixture's order and takes the first `max_results` of it
    "rss_list_articles": ToolMap("news_list_articles", {
        "source": _rename("source", blank=True), "category": _rename("category", blank=True),
        "max_results": _rename("limit")},
        defaults={"stored_order": True}, result=ResultShape(fields=_ARTICLE_SUMMARY, wrap="articles", count="total"),
        cut="max_results"),
    "rss_get_article": ToolMap("news_get_article", {"article_id": _rename("article_id")}, result=ResultShape(fields={
        **_ARTICLE_SUMMARY, "content": "content", "tags": "tags", "url": "url"}), stored=True),
    "rss_publish": ToolMap("news_publish", {
        "title": _rename("title"), "content": _rename("content"), "recipients": _rename("recipients")},
        result=recorded("record", "published", "title", "content", "recipients")),  # the newsletter as recorded
}, no_op={"rss_get_feed": "Claw-Eval's rss service has no endpoint for it (its /rss/feeds/get call fails there)"},
    key="article_id", not_found="Article {article_id} not found")
