# expect: forbidden
# expect-kernel: memory_limit
# Raise this process's own limits back up (setrlimit and prlimit on itself, to the hard limit and to infinity),
# then use more memory than the sandbox grants: the hard limits must hold.
import contextlib
import resource


def check(**p):
    for which in (resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_NPROC, resource.RLIMIT_FSIZE,
                  resource.RLIMIT_NOFILE):
        _, hard = resource.getrlimit(which)
        for wanted in ((hard, hard), (resource.RLIM_INFINITY, resource.RLIM_INFINITY)):
            with contextlib.suppress(Exception):
                resource.setrlimit(which, wanted)
            with contextlib.suppress(Exception):
                resource.prlimit(0, which, wanted)
    hog = bytearray(600 * 2**20)
    return len(hog)
