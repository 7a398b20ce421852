# expect: forbidden
def check(**p):
    with open(p["secret_file"]) as fh:
        return fh.read()
