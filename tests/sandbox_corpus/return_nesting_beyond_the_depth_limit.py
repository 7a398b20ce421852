# expect: bad_result
# expect-kernel: bad_result
# error: nests deeper than 100 levels
# A value 400 levels deep: the JSON parser (which recurses up to the recursion limit) takes it, but whoever takes
# the value on (the verifier, json.dumps, copy.deepcopy, a dataset writer) recurses once per level from wherever it
# stands, and would raise RecursionError there. The host refuses values deeper than 100 levels.
def check(**p):
    value = {"passed": True}
    for _ in range(200):
        value = {"reason": [value]}
    return value
