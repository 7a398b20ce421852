# expect: bad_result
# expect-kernel: bad_result
# A score no consumer can hold: an integer of 400 digits is valid JSON and within Python's digit limit, but
# float() of it overflows and no int64 column takes it.
def check(**p):
    return {"score": 10**400, "passed": True}
