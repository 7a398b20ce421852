"""What today's gates get wrong on the corpus: strict xfails in tests/test_defects.py.

MISSED: defects the gates accept (or reject by another gate than the one that should). TWINS_REJECTED: sound
twins the gates reject (named after the first defect made from them). Both are regenerated from
`benchmarks/bench_defects.py` figures; a gate fix turns an entry into an XPASS failure until it is removed.
Measured: 95/103 defects rejected, 27/27 twins accepted.
"""

MISSED: dict[str, str] = {
    "isolation_leak/answer-key-in-calendar": "gates accept it; the defect: reads every expected assignee and priority from a calendar event's description",
    "isolation_leak/expected-rows-in-prompt": "gates accept it; the defect: copies the expected CSV rows from the user's own message",
    "isolation_leak/expected-slot-in-context": "gates accept it; the defect: is told the answer slot in the workspace context",
    "order_blind/fix-before-acknowledge": "gates accept it; the defect: redeploys before acknowledging the alert ticket as the task demands",
    "order_blind/grant-before-approval": "gates accept it; the defect: grants access before the manager was even asked",
    "order_blind/post-before-ticket": "gates accept it; the defect: posts the ticket id in the team channel before the ticket exists",
    "order_blind/ticket-before-trying": "gates accept it; the defect: files the 'it fails in staging' ticket before ever trying the flag in staging",
    "python_fragile/crash-on-paraphrase": "gates accept it; the defect: a correct answer worded 'Root cause: svc-x' crashes the check",
}

TWINS_REJECTED: dict[str, str] = {}
