# expect: forbidden
# expect-kernel: ok
# value: 1
# Raw with the hook off, the host's capability bounding set, which fork and exec pass on and the uid and capability
# drops leave in place: PR_CAPBSET_READ answers it cap by cap (no audit event, no /proc), and what it lacks is the
# host's container configuration (the test machine's runtime drops CAP_SYS_RESOURCE; Docker's default set lacks
# fourteen; a privileged container lacks none), in every set where the child has no user namespace of its own. It
# must read empty (or full: a user namespace's own set, the same on every host).
import ctypes

PR_CAPBSET_READ = 23


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    bounding = []
    while (held := libc.prctl(PR_CAPBSET_READ, len(bounding), 0, 0, 0)) >= 0:
        bounding.append(held)
    if any(bounding) and not all(bounding):
        return "SANDBOX-ESCAPED the host's capability bounding set lacks " + str(
            [cap for cap, held in enumerate(bounding) if not held])
    return 1
