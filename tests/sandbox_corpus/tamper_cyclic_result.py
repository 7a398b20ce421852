# expect: bad_result
# expect-kernel: bad_result
# A value that contains itself: encoding must stop with a bad result, not hang, crash or exhaust the host.
def check(**p):
    value = {"items": []}
    value["items"].append(value)
    return value
