# expect: ok|cpu_limit|timeout
# value: 1
# limits: cpu_seconds=2,wall_seconds=12
# kernel-independent
# Kernel records a process makes without counting against RLIMIT_AS: POSIX lock ranges on scratch files (no
# RLIMIT_LOCKS is enforced; each range is a ~200-byte record), epoll watches and eventfds, and mappings kept from
# merging (alternating protections: one VMA each, up to vm.max_map_count). Measured in every layer set: ~17000
# locks (insertion is quadratic per file, so CPU time caps them), ~60000 mappings (RLIMIT_AS and max_map_count),
# 24 eventfds and 192 watches (descriptors cap them): about 15 MiB in all. A memory cgroup counts all of it. Setting
# a lock now returns without running (lock_flock_on_shared_host_files), so the kernel keeps none of those records
# (lock_posix_record_locks_on_host_files probes for them with the kernel layers alone; the hook refuses the probe), and
# they are no longer made here.
import mmap
import os
import select
import time

BOUND = 64 * 2**20  # far above the measured total: more would mean a limit stopped binding
RECORD = {"watch": 160, "eventfd": 256, "mapping": 200}  # slab object sizes, rounded up


def check(**p):
    made = dict.fromkeys(RECORD, 0)
    start = time.process_time()
    pollers, events = [], []
    try:
        for _ in range(8):
            pollers.append(select.epoll())
        for _ in range(24):
            events.append(os.eventfd(0))
        for poller in pollers:
            for fd in events:
                poller.register(fd, select.EPOLLIN)
                made["watch"] += 1
    except OSError:
        pass
    made["eventfd"] = len(events)
    maps = []
    try:
        while time.process_time() - start < 1.4:
            maps.append(mmap.mmap(-1, 4096, prot=mmap.PROT_READ if len(maps) % 2 else mmap.PROT_READ | mmap.PROT_WRITE))
    except (OSError, MemoryError, ValueError):
        pass
    made["mapping"] = len(maps)
    held = sum(RECORD[kind] * count for kind, count in made.items())
    if held > BOUND:
        return f"SANDBOX-ESCAPED {held} bytes of kernel records: {made}"
    return 1
