# expect: forbidden
# expect-kernel: exception
import os


def check(**p):
    os.symlink(os.path.dirname(p["tmp_target"]), "outside")
    with open(os.path.join("outside", os.path.basename(p["tmp_target"])), "w") as fh:
        fh.write("escaped")
    return 1.0
