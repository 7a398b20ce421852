"""What today's gates get wrong on the corpus: strict xfails in tests/test_defects.py.

MISSED: defects the gates accept (or reject by another gate than the one that should). TWINS_REJECTED: sound
twins the gates reject (named after the first defect made from them). Written by
`python benchmarks/bench_defects.py --gaps`; a gate fix turns an entry into an XPASS failure until it is
removed. Measured: 396/396 defects rejected, 199/199 twins accepted.
"""

MISSED: dict[str, str] = {}

TWINS_REJECTED: dict[str, str] = {}
