# expect: forbidden
# expect-kernel: exception
def check(**p):
    with open("/etc/passwd") as fh:
        return fh.read()
