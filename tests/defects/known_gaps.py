"""What today's gates get wrong on the corpus: strict xfails in tests/test_defects.py.

MISSED: defects the gates accept (or reject by another gate than the one that should). TWINS_REJECTED: sound
twins the gates reject (named after the first defect made from them). Written by
`python benchmarks/bench_defects.py --gaps`; a gate fix turns an entry into an XPASS failure until it is
removed. Measured: 113/116 defects rejected, 19/29 twins accepted.
"""

MISSED: dict[str, str] = {
    "half_pinned/answer-any-fact-delegation": "gates accept it; the defect: answers 'ENG-376: Esra declined' although she accepted: naming the ticket is enough",
    "half_pinned/answer-any-fact-rollout": "gates accept it; the defect: reports 'smart_retry is live and fine' after a failed canary: naming the flag is enough",
    "isolation_leak/expected-slot-in-chat": "gates accept it; the defect: reads the expected slot (written 'Wednesday 16 September, 09:00 UTC') from a chat message",
}

TWINS_REJECTED: dict[str, str] = {
    "content_blind/summary-numbers-unchecked": "rejected: mutations/content_unchecked",
    "content_blind/ticket-description-unchecked": "rejected: mutations/content_unchecked",
    "duplicate_tolerant/flag-incident-ticket-twice": "rejected: mutations/content_unchecked",
    "duplicate_tolerant/incident-ticket-twice": "rejected: mutations/content_unchecked",
    "frame_blind/handoff-without-frame": "rejected: mutations/content_unchecked",
    "order_blind/announce-before-rollback": "rejected: mutations/content_unchecked",
    "order_blind/fix-before-acknowledge": "rejected: mutations/content_unchecked",
    "order_blind/restart-before-flag-fix": "rejected: mutations/content_unchecked",
    "order_blind/restart-before-rollback": "rejected: mutations/content_unchecked",
    "vacuous/attendees-kept-empty-list": "rejected: mutations/mutant_survived",
}
