"""What today's gates get wrong on the corpus: strict xfails in tests/test_defects.py.

MISSED: defects the gates accept (or reject by another gate than the one that should). TWINS_REJECTED: sound
twins the gates reject (named after the first defect made from them). Written by
`python benchmarks/bench_defects.py --gaps`; a gate fix turns an entry into an XPASS failure until it is
removed. Measured: 147/154 defects rejected, 39/39 twins accepted.
"""

MISSED: dict[str, str] = {
    "content_blind/broken-page-task-status-unchecked": "gates accept it; the defect: files the to-do with the URL but not the HTTP status the task asks for",
    "dead_guard/namesake-guard-on-chat": "gates accept it; the defect: mails the file to the other Lucas too: the guard watches chat DMs, the frame any sent mail",
    "half_pinned/answer-any-fact-delegation": "gates accept it; the defect: answers 'no word from Esra on ENG-376' although she accepted: naming the ticket is enough",
    "isolation_leak/broken-pages-in-kb": "gates accept it; the defect: reads the broken page and its status from a KB article instead of loading the pages",
    "isolation_leak/lookup-answer-in-note": "gates accept it; the defect: copies the value and version from a scratch note instead of reading the config",
    "order_blind/close-todo-before-transfer": "gates accept it; the defect: closes the restock to-do before moving any stock",
    "order_blind/confirm-before-phone-update": "gates accept it; the defect: tells the customer the number is updated before updating the card",
}

TWINS_REJECTED: dict[str, str] = {}
