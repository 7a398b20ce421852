# expect: crashed
# expect-kernel: crashed
# error: exited with status 87 without returning
# The bootstrap's own exit status for "isolation failed before any code ran" (87), used by the code after a stderr
# line naming a Landlock failure: the host must not report a sandbox setup failure (an operator would read a
# machine without isolation) once the bootstrap has said its layers.
import os
import sys


def check(**p):
    sys.stderr.write("OSError: landlock_restrict_self failed (EPERM: Operation not permitted)\n")
    sys.stderr.flush()
    os._exit(87)
