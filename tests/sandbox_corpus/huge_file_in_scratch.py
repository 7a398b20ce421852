# expect: output_limit
def check(**p):
    with open("big.bin", "wb") as fh:
        for _ in range(256):
            fh.write(b"x" * 2**16)
    return 1.0
