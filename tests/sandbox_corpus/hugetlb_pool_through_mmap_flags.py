# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# mmap with MAP_HUGETLB (Python's mmap passes flags through, no audit event for an anonymous mapping) draws reserved
# huge pages from the machine's pool (vm.nr_hugepages), which no memory cgroup here counts; whether it answers
# ENOMEM (empty) or succeeds tells what the host reserves. Refused before the pool: ENOSYS, as on a kernel without
# hugetlbfs.
import errno
import mmap

MAP_HUGETLB = 0x40000


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    try:
        mapping = mmap.mmap(-1, 2 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_HUGETLB)
    except OSError as exc:
        return 1 if exc.errno == errno.ENOSYS else leak(f"the huge page pool answered {errno.errorcode[exc.errno]}")
    mapping[0] = 1
    return leak("drew a huge page from the machine's pool")
