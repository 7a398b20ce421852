# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: a grader that bounds what it runs next lowers its own limits
# (`resource.setrlimit(RLIMIT_AS, ...)` before calling an agent's function, fewer descriptors, no core files): the
# hook refused every `resource.setrlimit`, so it was `forbidden` in every set with the hook and worked with the kernel
# layers alone. Lowering is allowed now, raising stays refused (`resource_limits_raised_back`).
def check(**p):
    import resource

    found = []
    for which in (resource.RLIMIT_AS, resource.RLIMIT_NOFILE, resource.RLIMIT_CORE, resource.RLIMIT_CPU):
        soft, hard = resource.getrlimit(which)
        lower = soft if soft == resource.RLIM_INFINITY else soft // 2 or soft
        resource.setrlimit(which, (lower, hard))
        found.append(resource.getrlimit(which) == (lower, hard))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        bytearray(soft)
        found.append("allocated")
    except MemoryError:
        found.append("MemoryError")
    return 1 if found == [True, True, True, True, "MemoryError"] else repr(found)
