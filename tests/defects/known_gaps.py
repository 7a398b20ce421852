"""What today's gates get wrong on the corpus: strict xfails in tests/test_defects.py.

MISSED: defects the gates accept (or reject by another gate than the one that should). TWINS_REJECTED: sound
twins the gates reject (named after the first defect made from them). Both are regenerated from
`benchmarks/bench_defects.py` figures; a gate fix turns an entry into an XPASS failure until it is removed.
Measured: 89/93 defects rejected, 12/25 twins accepted.
"""

MISSED: dict[str, str] = {
    "isolation_leak/answer-key-in-calendar": "gates accept it; the defect: reads every expected assignee and priority from a calendar event's description",
    "isolation_leak/expected-rows-in-prompt": "rejected, but not by isolation (got mutations)",
    "isolation_leak/expected-slot-in-context": "rejected, but not by isolation (got mutations)",
    "order_blind/fix-before-acknowledge": "gates accept it; the defect: redeploys before acknowledging the alert ticket as the task demands",
    "order_blind/ticket-before-trying": "gates accept it; the defect: files the 'it fails in staging' ticket before ever trying the flag in staging",
    "python_fragile/crash-on-paraphrase": "gates accept it; the defect: a correct answer worded 'Root cause: svc-x' crashes the check",
}

TWINS_REJECTED: dict[str, str] = {
    "content_blind/csv-rows-unchecked": "rejected: mutations/content_unchecked",
    "content_blind/summary-numbers-unchecked": "rejected: mutations/content_unchecked, mutations/guard_never_fires, mutations/harm_unguarded",
    "duplicate_tolerant/customer-ticket-twice": "rejected: mutations/content_unchecked, mutations/harm_unguarded",
    "duplicate_tolerant/flag-incident-ticket-twice": "rejected: mutations/harm_unguarded",
    "duplicate_tolerant/incident-ticket-twice": "rejected: mutations/content_unchecked, mutations/harm_unguarded",
    "duplicate_tolerant/meeting-booked-twice": "rejected: mutations/content_unchecked, mutations/harm_unguarded",
    "duplicate_tolerant/staging-ticket-twice": "rejected: mutations/harm_unguarded",
    "frame_blind/draft-only-but-sending-allowed": "rejected: mutations/guard_never_fires",
    "order_blind/announce-before-rollback": "rejected: mutations/content_unchecked, mutations/harm_unguarded",
    "order_blind/grant-before-approval": "rejected: mutations/content_unchecked",
    "order_blind/post-before-ticket": "rejected: mutations/content_unchecked",
    "python_fragile/regex-crash-on-wording": "rejected: mutations/content_unchecked",
    "vacuous/attendees-kept-empty-list": "rejected: mutations/content_unchecked, mutations/harm_unguarded, mutations/order_unchecked",
}
