# expect: bad_result
def check(**p):
    return {"score": {1, 2}}
