# expect: bad_result
def check(**p):
    return float("nan")
