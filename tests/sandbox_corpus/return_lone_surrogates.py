# expect: bad_result
# expect-kernel: bad_result
# Text that is not Unicode: lone surrogates in a returned key and value (and the same forged on the channel as
# JSON escapes). Python strings carry them, but no UTF-8 writer downstream (datasets, logs, the network) accepts
# them, so the value must come back as a bad result, never as ok.
def check(**p):
    return {"score\udc80": ["\ud800", 1.0]}
