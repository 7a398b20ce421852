# expect: forbidden
# expect-kernel: ok
# value: 1
# Raw with the hook off, whether the host offered all its memory to the kernel's same-page merging (KSM):
# PR_SET_MEMORY_MERGE is kept across fork and exec, so under a host that set it (the test host does; a VM host's
# tuning) every page of the run was offered too (PR_GET_MEMORY_MERGE answered 1), and the run could offer its own
# (PR_SET_MEMORY_MERGE answered 0; `mmap.madvise(MADV_MERGEABLE)` likewise, with the hook on). Where ksmd runs, a page
# merged with another process's tells by a write's timing (a copy on write) that the other holds the same contents:
# a side channel on the host's memory (KSM is off on the test machine: the channel itself was not observed). The run
# must start unmerged and may not opt in.
import ctypes

PR_SET_MEMORY_MERGE, PR_GET_MEMORY_MERGE = 67, 68


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_GET_MEMORY_MERGE, 0, 0, 0, 0) == 1:
        return "SANDBOX-ESCAPED the host's memory merging passed on to the run"
    if libc.prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0) == 0:
        return "SANDBOX-ESCAPED the run offered its memory to same-page merging"
    return 1
