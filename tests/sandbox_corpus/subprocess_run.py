# expect: forbidden
# expect-kernel: exception
import subprocess


def check(**p):
    return subprocess.run(["id"], capture_output=True, text=True).stdout
