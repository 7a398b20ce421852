# expect: forbidden
# expect-kernel: exception
def check(**p):
    with open(p["secret_file"]) as fh:
        return fh.read()
