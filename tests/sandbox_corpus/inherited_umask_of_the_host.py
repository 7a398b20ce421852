# expect: ok
# expect-kernel: ok
# value: 1
# The host's file-creation mask, inherited through fork and exec: os.umask (no audit event) answered whatever the
# host process had set (its service's or its user's configuration: 0o027 under the test host), in all four sets,
# and every file the code made took its modes from it. A run's mask must be the sandbox's own, 0o022, whatever the
# host's.
import os


def check(**p):
    mask = os.umask(0o022)
    return 1 if mask == 0o022 else f"SANDBOX-ESCAPED the host's umask {mask:#o}"
