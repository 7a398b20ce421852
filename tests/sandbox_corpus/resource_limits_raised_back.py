# expect: forbidden
# expect-kernel: ok
# value: 1
# The hook lets a check lower its own limits; raising one stays refused (and reported): the CPU limit's soft value up
# to its hard one (a second of grace), the stack's up to the memory limit, an infinite value, a limits tuple posing as
# one (a subclass whose items are read after the hook looked), `prlimit` of itself, a resource that does not exist.
def check(**p):
    import resource

    class Limits(tuple):
        def __iter__(self):
            return iter((resource.RLIM_INFINITY, resource.RLIM_INFINITY))

    cpu = resource.getrlimit(resource.RLIMIT_CPU)
    stack = resource.getrlimit(resource.RLIMIT_STACK)
    attempts = [
        lambda: resource.setrlimit(resource.RLIMIT_CPU, (cpu[1], cpu[1])),
        lambda: resource.setrlimit(resource.RLIMIT_STACK, (stack[1], stack[1])),
        lambda: resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY)),
        lambda: resource.setrlimit(resource.RLIMIT_CPU, Limits((1, 1))),
        lambda: resource.prlimit(0, resource.RLIMIT_CPU, (cpu[1], cpu[1])),
        lambda: resource.setrlimit(12345, (0, 0)),
    ]
    for attempt in attempts:
        try:
            attempt()
        except (OSError, ValueError, TypeError):
            continue
    # Where no hook runs the kernel lets a soft limit rise to its hard one (bounded); a hard limit never rises.
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    return 1 if hard == cpu[1] else f"SANDBOX-ESCAPED the CPU hard limit rose from {cpu[1]} to {hard}"
