"""What today's gates get wrong on the corpus: strict xfails in tests/test_defects.py.

MISSED: defects the gates accept (or reject by another gate than the one that should). TWINS_REJECTED: sound
twins the gates reject (named after the first defect made from them). Written by
`python benchmarks/bench_defects.py --gaps`; a gate fix turns an entry into an XPASS failure until it is
removed. Measured: 110/114 defects rejected, 29/29 twins accepted.
"""

MISSED: dict[str, str] = {
    "content_blind/reply-body-loose-regex": "gates accept it; the defect: answers 'I will escalate this' without the escalation code: the body regex is just 'esc'",
    "half_pinned/mailed-time-or-hour-off": "gates accept it; the defect: mails the attendees a start time an hour off",
    "isolation_leak/expected-slot-in-chat": "gates accept it; the defect: reads the expected slot (written 'Wednesday 16 September, 09:00 UTC') from a chat message",
    "order_blind/announce-before-rollback": "gates accept it; the defect: announces the incident as fixed before rolling the config back",
}

TWINS_REJECTED: dict[str, str] = {}
