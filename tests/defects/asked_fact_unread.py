"""A Python grader of the answer that reads some of its facts but not the one the request asks for: the user asks
"tell me which service caused it", "tell me when each one last ran", "tell me the value as well", "which pages
failed", and the grader, written in code where no scan sees which facts it reads, checks the answer's other facts
(the request traced, the ticket opened, the job names, the config id) but not the asked one. An answer with the
asked fact wrong or missing passes. Built as an outside tester does: a shipped spec's reply checks rewritten as one
Python grader, with the asked fact's term left out; the twin is the same grader with that term kept.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, base_spec, with_say
from tests.defects.sibling_unchecked import _python_reads, _reply_reads

CLASS = "asked_fact_unread"
DETECTION = (
    "near miss per asked fact: where a Python check reads the answer, leave out each fact of it that the request "
    "asks for (the request's asking sentence names the field that holds it, or the table of the record it is the "
    "id of); if no answer at all fails a check but that answer passes every one, the asked fact is unchecked"
)
GATE, CODE = "mutations", "asked_unchecked"


def _grader(reply_checks: list[str], *facts: str):  # type: ignore[no-untyped-def]
    """The answer's checks `reply_checks` replaced by one Python grader reading `facts` (the first is the grader's
    check: the others are removed)."""
    return _python_reads(reply_checks[1:], reply_checks[0], _reply_reads(*facts))


def _replies_grader(reply_checks: list[str], *facts: str):  # type: ignore[no-untyped-def]
    """As `_grader`, over the answer of each turn (a multi-turn spec): a fact `N:text` is read in turn N's answer,
    any other in turn 0's."""
    items = [(int(f.split(":", 1)[0]), f.split(":", 1)[1]) if f[:1].isdigit() and f[1:2] == ":" else (0, f)
             for f in facts]
    code = ("def check(state, audit, messages):\n"
            "    said = {}\n"
            "    for m in messages:\n"
            "        said[m['turn']] = said.get(m['turn'], '') + ' ' + m['text'].lower()\n"
            f"    return all(item.lower() in said.get(turn, '') for turn, item in {items!r})\n")
    return _python_reads(reply_checks[1:], reply_checks[0], code)


def _answer_with(pattern: str, wrong: str):  # type: ignore[no-untyped-def]
    """Witness: the reference's answer with every `pattern` match stated as `wrong` (the asked fact wrong)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        said = [s["say"] for s in spec["reference"][0]["steps"] if s.get("say")][-1]
        cut = re.sub(pattern, wrong, said)
        if cut == said:
            raise CorpusError(f"{spec['capability']}: the answer has no {pattern!r}")
        return with_say(spec, cut, 0)
    return witness


def _defect(name: str, base: str, what: str, checks: list[str], read: tuple[str, ...], asked: tuple[str, ...],
            witness: Any, grader: Any = _grader) -> Defect:
    return Defect(CLASS, name, base, what, breaks=grader(checks, *read), fix=grader(checks, *read, *asked),
                  witness=witness, gate=GATE, code=CODE)


DEFECTS = [
    # "Tell me which failing request you traced": one sentence of several facts, the grader reads the cause and the
    # fix (and the second turn's new version), not the request traced.
    _defect("rollback-request-unread", "example:incident_rollback",
            "names another request as the one traced (its grader reads the service, cause, rollback, v5 and ticket)",
            ["traced-request", "reply-explains-cause"], ("svc-payments", "db pool", "rolled", "v3", "1:v5", "1:OPS-102"),
            ("req-7f3a91",),
            _answer_with(r"req-7f3a91", "req-0c41d2"), _replies_grader),
    # "Tell me which service caused it": the grader reads the request traced and the ticket opened.
    _defect("incident-service-unread", "synth:incident_investigate_fix@1",
            "names another service as the cause (its grader reads the traced request and the ticket only)",
            ["root-cause-stated"], ("req-267a82", "INC-299"), ("svc-kyc",), _answer_with(r"svc-kyc", "svc-feeds")),
    _defect("incident-service-unread-3", "synth:incident_investigate_fix@3",
            "names another service as the cause (its grader reads the two releases only)",
            ["root-cause-stated"], ("3.18.0", "3.17.1"), ("svc-webhooks",),
            _answer_with(r"svc-webhooks", "svc-orders")),
    # "Tell me when each one last ran": the grader reads the names of the jobs paused, as the config now lists them.
    _defect("jobs-last-runs-unread", "synth:scheduler_pause_failing_jobs@1",
            "gives the paused jobs' last runs wrong (its grader reads the job names only)",
            ["last-run-job-842", "last-run-job-843"], ("payments-log-rotate,payments-nightly-export",),
            ("2026-11-15T01:39:12Z", "2026-11-15T19:21:30Z"), _answer_with(r"2026-11-15T", "2026-11-14T")),
    _defect("jobs-last-runs-unread-4", "synth:scheduler_pause_failing_jobs@4",
            "gives the paused jobs' last runs wrong (its grader reads the job names only)",
            ["last-run-job-643", "last-run-job-644"], ("audit-email-bounce-scan,audit-report-digest",),
            ("2026-08-19T05:38:59Z", "2026-08-18T14:05:52Z"), _answer_with(r"2026-08-1", "2026-07-1")),
    # "Tell me the value as well": the grader reads the setting's name and the config version.
    _defect("lookup-value-unread", "synth:lookup_answer_source@1",
            "states the setting's value wrong (its grader reads the setting's name and the config id only)",
            ["value-stated", "source-stated"], ("cache_ttl_s", "svc-pricing@3"), ("900",),
            _answer_with(r"\b900\b", "300")),
    _defect("lookup-value-unread-9", "synth:lookup_answer_source@9",
            "states the setting's value wrong (its grader reads the setting's name and the config id only)",
            ["value-stated", "source-stated"], ("timeout_ms", "svc-geo@4"), ("600",),
            _answer_with(r"\b600\b", "450")),
    # "Tell me how many pages failed and which ones": the grader reads the status only.
    _defect("pages-which-unread", "synth:web_page_audit@7",
            "names other pages as broken (its grader reads the status only)",
            ["reply-count"], ("broken", "502"), ("docs.wavecrest.test/changelog", "shop.wavecrest.test/support/contact"),
            _answer_with(r"https://[a-z./]+", "https://docs.wavecrest.test/pricing")),
]


# -- the time asked by a generic word (defects68): "Tell me the time you picked" names no field, so the facts asked
# were not told and the grader reading the meeting's title and date, not its time, was never probed: the answer with
# another time passes. The twin's grader reads the time too (the UTC clock the answer states beside the user's).
def _booked_answer(seed: int) -> tuple[str, str, str]:
    """(title, date, UTC clock time) of the meeting schedule_meeting_timezones@seed books."""
    spec = base_spec(f"synth:schedule_meeting_timezones@{seed}")
    args = next(st["call"]["arguments"] for turn in spec["reference"] for st in turn["steps"]
                if st.get("call") and st["call"]["name"] == "calendar_create_event")
    start = datetime.fromisoformat(args["start"]).astimezone(UTC)
    return args["title"], start.strftime("%Y-%m-%d"), start.strftime("%H:%M")


DEFECTS += [
    _defect(f"booking-time-unread-{seed}", f"synth:schedule_meeting_timezones@{seed}",
            "gives another time for the meeting booked (its grader reads the meeting's title and date only)",
            ["reply-states-time"], (title, day), (clock,), _answer_with(r"T\d\d:\d\d", "T11:11"))
    for seed in (1,) for title, day, clock in (_booked_answer(seed),)
]
