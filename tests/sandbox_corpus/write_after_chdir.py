# expect: forbidden
# expect-kernel: exception
import os


def check(**p):
    folder, name = os.path.split(p["tmp_target"])
    os.chdir(folder)
    with open(name, "w") as fh:
        fh.write("escaped")
    return 1.0
