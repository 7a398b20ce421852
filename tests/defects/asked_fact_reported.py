"""`asked_fact_unread` asked in other words: the user asks for the fact with "confirm which service caused it",
"report when each one last ran", "send me a short report with the value", "give me a quick summary with the value",
"send me a short status report: how many pages failed and which ones", and the check on the answer reads its other
facts (the request traced, the job names, the setting's name and config id, the status) but not the asked one. An
answer with the asked fact wrong passes. defects95 read these forms as asking for an answer (the answer must be
checked), but the asked-facts reader (`_asked_facts._ASK`) still knew only "tell me", "let me know", "report back",
"list what" and questions: no fact was asked, so none was probed (the same specs asking with "tell me" were
rejected). The twin's check reads the asked fact too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check
from tests.defects.asked_fact_unread import _answer_with

CLASS = "asked_fact_reported"
DETECTION = (
    "read 'confirm/report which|what|when ...' and 'send/give me a (short) report/summary ...' as sentences that ask "
    "for an answer: the facts they name are probed as asked_fact_unread's are (each left out of the answer; where no "
    "answer fails a check but that answer passes every one, the asked fact is unchecked)"
)
GATE, CODE = "mutations", "asked_unchecked"


def _reads(said: str, asked: str, check_id: str, drop: tuple[str, ...], terms: tuple[str, ...]) -> Callable[[Spec], None]:
    """The first turn's asking sentence `said` reworded as `asked`; the answer's checks `drop` removed and `check_id`
    made a text check on the first turn's answer wanting `terms` (a count it reads kept)."""
    def edit(spec: Spec) -> None:
        turn = spec["turns"][0]
        if said not in turn["content"]:
            raise CorpusError(f"{spec['capability']}: the request has no {said!r}")
        turn["content"] = turn["content"].replace(said, asked)
        spec["checks"] = [c for c in spec["checks"] if c["id"] not in drop]
        rule = check(spec, check_id)["rule"]
        number = rule.get("number") if rule["kind"] == "text" else None
        check(spec, check_id)["rule"] = {"kind": "text", "scope": "final", "turn": 0, "all_of": list(terms),
                                         **({"number": number} if number else {})}
    return edit


def _defect(name: str, base: str, what: str, said: str, asked: str, check_id: str, drop: tuple[str, ...],
            read: tuple[str, ...], facts: tuple[str, ...], witness: Any) -> Defect:
    return Defect(CLASS, name, base, what, breaks=_reads(said, asked, check_id, drop, read),
                  fix=_reads(said, asked, check_id, drop, read + facts), witness=witness, gate=GATE, code=CODE)


DEFECTS = [
    _defect("incident-service-confirm", "synth:incident_investigate_fix@1",
            "names another service as the cause (its check reads the traced request and the ticket only)",
            "Tell me which service caused it.", "Confirm which service caused it.",
            "root-cause-stated", (), ("req-267a82", "INC-299"), ("svc-kyc",), _answer_with(r"svc-kyc", "svc-feeds")),
    _defect("incident-service-report-3", "synth:incident_investigate_fix@3",
            "names another service as the cause (its check reads the two releases only)",
            "Tell me which service was at fault.", "Report which service was at fault.",
            "root-cause-stated", (), ("3.18.0", "3.17.1"), ("svc-webhooks",),
            _answer_with(r"svc-webhooks", "svc-orders")),
    _defect("jobs-last-runs-report", "synth:scheduler_pause_failing_jobs@1",
            "gives the paused jobs' last runs wrong (its check reads the job names only)",
            "Tell me when each one last ran.", "Report when each one last ran.",
            "last-run-job-842", ("last-run-job-843",), ("payments-log-rotate", "payments-nightly-export"),
            ("2026-11-15T01:39:12Z", "2026-11-15T19:21:30Z"), _answer_with(r"2026-11-15T", "2026-11-14T")),
    _defect("jobs-last-runs-confirm-4", "synth:scheduler_pause_failing_jobs@4",
            "gives the paused jobs' last runs wrong (its check reads the job names only)",
            "Tell me when each of them last ran.", "Please confirm when each of them last ran.",
            "last-run-job-643", ("last-run-job-644",), ("audit-email-bounce-scan", "audit-report-digest"),
            ("2026-08-19T05:38:59Z", "2026-08-18T14:05:52Z"), _answer_with(r"2026-08-1", "2026-07-1")),
    _defect("lookup-value-report", "synth:lookup_answer_source@1",
            "states the setting's value wrong (its check reads the setting's name and the config id only)",
            "Tell me the value as well.", "Send me a short report with the value as well.",
            "value-stated", ("source-stated",), ("cache_ttl_s", "svc-pricing@3"), ("900",),
            _answer_with(r"\b900\b", "300")),
    _defect("lookup-value-summary-9", "synth:lookup_answer_source@9",
            "states the setting's value wrong (its check reads the setting's name and the config id only)",
            "Tell me the value as well.", "Give me a quick summary with the value as well.",
            "value-stated", ("source-stated",), ("timeout_ms", "svc-geo@4"), ("600",),
            _answer_with(r"\b600\b", "450")),
    _defect("pages-which-report", "synth:web_page_audit@7",
            "names other pages as broken (its check reads the status and the count only)",
            "Tell me how many pages failed and which ones.",
            "Send me a short status report: how many pages failed and which ones.",
            "reply-count", (), ("502",), ("docs.wavecrest.test/changelog", "shop.wavecrest.test/support/contact"),
            _answer_with(r"https://[a-z./]+", "https://docs.wavecrest.test/pricing")),
]
