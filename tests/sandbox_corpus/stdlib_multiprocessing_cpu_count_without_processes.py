# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: `import multiprocessing` (the pure-Python package) was refused by name in every set
# with the hook (`forbidden`) and answered with the kernel layers alone, so a check that sizes its work by
# `multiprocessing.cpu_count()`, or imports the package optionally, had an outcome that depended on the host's
# layers. What starts processes or shares memory stays refused where it lies (`_multiprocessing`, `_posixshmem`,
# `_posixsubprocess`, the fork event, seccomp): the package's own answers must come back in every set.
def check(**p):
    import multiprocessing
    import multiprocessing.dummy  # threads, imported lazily by the package (no pool is started here)
    import os
    from multiprocessing import reduction

    found = (multiprocessing.cpu_count() == os.cpu_count(), multiprocessing.current_process().name,
             multiprocessing.parent_process(), len(reduction.ForkingPickler.dumps([1, "a"])) > 0,
             multiprocessing.get_start_method(allow_none=True) in (None, "fork", "spawn", "forkserver"))
    return 1 if found == (True, "MainProcess", None, True, True) else repr(found)
