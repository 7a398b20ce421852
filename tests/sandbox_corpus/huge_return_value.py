# expect: output_limit
def check(**p):
    return "x" * 10**6
