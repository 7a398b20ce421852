# expect: forbidden
# expect-kernel: exception
def check(**p):
    with open(p["repo_target"], "w") as fh:
        fh.write("escaped")
    return 1.0
