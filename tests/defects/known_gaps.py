"""What today's gates get wrong on the corpus: strict xfails in tests/test_defects.py.

MISSED: defects the gates accept (or reject by another gate than the one that should). TWINS_REJECTED: sound
twins the gates reject (named after the first defect made from them). Written by
`python benchmarks/bench_defects.py --gaps`; a gate fix turns an entry into an XPASS failure until it is
removed. Measured: 172/173 defects rejected, 39/39 twins accepted.
"""

MISSED: dict[str, str] = {
    "content_blind/restock-reply-numbers-only": "gates accept it; the defect: reports the unit counts without saying which items moved: the reply check keeps only the numbers",
}

TWINS_REJECTED: dict[str, str] = {}
