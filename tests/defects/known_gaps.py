"""What today's gates get wrong on the corpus: strict xfails in tests/test_defects.py.

MISSED: defects the gates accept (or reject by another gate than the one that should). TWINS_REJECTED: sound
twins the gates reject (named after the first defect made from them). Written by
`python benchmarks/bench_defects.py --gaps`; a gate fix turns an entry into an XPASS failure until it is
removed. Measured: 321/323 defects rejected, 145/145 twins accepted.
"""

MISSED: dict[str, str] = {
    "frame_blind/restock-quantity-on-every-item": "gates accept it; the defect: writes off stock of an item the policy never mentions: the frame allows quantity changes on every item",
    "content_blind/reply-body-loose-regex": "gates accept it since GENERATOR_VERSION 7 moved seed 1 from an escalation code to a date answer; the defect: answers with the date's first three characters ('202'): no mutant changes them",
}

TWINS_REJECTED: dict[str, str] = {}
