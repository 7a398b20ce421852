"""What today's gates get wrong on the corpus: strict xfails in tests/test_defects.py.

MISSED: defects the gates accept (or reject by another gate than the one that should). TWINS_REJECTED: sound
twins the gates reject (named after the first defect made from them). Written by
`python benchmarks/bench_defects.py --gaps`; a gate fix turns an entry into an XPASS failure until it is
removed. Measured: 122/123 defects rejected, 29/29 twins accepted.
"""

MISSED: dict[str, str] = {
    "half_pinned/answer-any-fact-delegation": "gates accept it; the defect: answers 'no word from Esra on ENG-376' although she accepted: naming the ticket is enough",
}

TWINS_REJECTED: dict[str, str] = {}
