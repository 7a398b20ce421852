# expect: ok|cpu_limit|timeout
# value: 1
# limits: cpu_seconds=2,wall_seconds=12
# kernel-independent
# Kernel records a process makes without counting against RLIMIT_AS: POSIX lock ranges on scratch files (no
# RLIMIT_LOCKS is enforced; each range is a ~200-byte record), epoll watches and eventfds, and mappings kept from
# merging (alternating protections: one VMA each, up to vm.max_map_count). Measured in every layer set: ~17000
# locks (insertion is quadratic per file, so CPU time caps them), ~60000 mappings (RLIMIT_AS and max_map_count),
# 24 eventfds and 192 watches (descriptors cap them): about 15 MiB in all. A memory cgroup counts all of it. Setting
# a lock now returns without running (lock_flock_on_shared_host_files): locks count only where the kernel keeps them,
# which F_OFD_GETLK on a second description of the first file shows.
import fcntl
import mmap
import os
import select
import struct
import time

BOUND = 64 * 2**20  # far above the measured total: more would mean a limit stopped binding
RECORD = {"lock": 192, "watch": 160, "eventfd": 256, "mapping": 200}  # slab object sizes, rounded up


def check(**p):
    made = dict.fromkeys(RECORD, 0)
    start = time.process_time()
    files = [os.open(f"lock{i}", os.O_RDWR | os.O_CREAT, 0o600) for i in range(24)]
    offset = 0
    while time.process_time() - start < 0.6:
        for fd in files:
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 2 * offset)
                made["lock"] += 1
            except OSError:
                break
        offset += 1
    probe = os.open("lock0", os.O_RDWR)
    seen = fcntl.fcntl(probe, 36, struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 0, 1, 0))  # F_OFD_GETLK at byte 0
    os.close(probe)
    if struct.unpack("hhqqi4x", seen)[0] == fcntl.F_UNLCK:  # no lock record was kept
        made["lock"] = 0
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
