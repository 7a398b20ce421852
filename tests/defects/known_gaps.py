"""What today's gates get wrong on the corpus: strict xfails in tests/test_defects.py.

MISSED: defects the gates accept (or reject by another gate than the one that should). TWINS_REJECTED: sound
twins the gates reject (named after the first defect made from them). Both are regenerated from
`benchmarks/bench_defects.py` figures; a gate fix turns an entry into an XPASS failure until it is removed.
Measured: 108/109 defects rejected, 29/29 twins accepted.
"""

MISSED: dict[str, str] = {
    "order_blind/announce-before-rollback": "gates accept it; the defect: announces the incident as fixed before rolling the config back",
}

TWINS_REJECTED: dict[str, str] = {}
