# expect: bad_result
# expect-kernel: bad_result
# error: holds one key twice
# `{1: ...}` and `{"1": ...}` are two keys in Python but one key twice in JSON, where parsers disagree on which
# wins (`"passed": false` first, `"passed": true` last): what the check meant is not known, so it is a bad result.
def check(**p):
    return {"passed": False, "reason": "fails", 1: "x", "1": "y"}
