# expect: forbidden
# expect-kernel: exception
import os


def check(**p):
    try:
        with open(p["host_file"], "w") as fh:
            fh.write("hacked")
    except PermissionError:
        pass
    os.chmod(p["host_file"], 0o777)
    os.remove(p["host_file"])
    return 1.0
