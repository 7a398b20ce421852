# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# os.sysconf("SC_PHYS_PAGES") is glibc's get_phys_pages: sysinfo(2) into a stack buffer whose result it does not check.
# seccomp refuses sysinfo (the machine's load, memory and process count), so the buffer kept whatever the stack held:
# the answer was leftover words of the child's own (3.2e18 "pages", or negative), a different one each run, in every
# set, no audit event. It must be a fixed answer: the memory the run may use (its address-space limit, in pages).
import os
import resource


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    pages, page = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if pages * page != limit:
        return leak(f"SC_PHYS_PAGES answered {pages} pages under a {limit}-byte memory limit")
    return 1
