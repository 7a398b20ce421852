# expect: memory_limit
def check(**p):
    hog = bytearray(8 * 2**30)
    return len(hog)
