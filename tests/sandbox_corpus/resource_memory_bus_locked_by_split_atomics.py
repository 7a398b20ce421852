# expect: forbidden
# limits: cpu_seconds=2, wall_seconds=5
# Split locks: a locked instruction on a word that straddles two cache lines makes the CPU lock the memory bus for the
# whole machine (every core, every VM on the physical host) for its duration; no rlimit, cgroup or namespace counts
# it, and no syscall is made, so seccomp has nothing to refuse. Native code (ctypes, with the hook off) that loops on
# `lock add` at a split address cut a host process's memory copy rate on the other core from 1087 MB/s (beside the
# same loop on an aligned word) to 591 MB/s, 1.5 s measured on a 2-core AMD EPYC VM, for as long as its CPU limit
# lasts (the kernel's split-lock detection, Intel's, would throttle it; this CPU has none); a lock-based C library
# call on a misaligned address (pthread_mutex_lock, sem_post) does the same without code of its own. A known limit
# with the hook off (docs/sandbox.md): the hook refuses ctypes, so this snippet has no kernel-only mode.
import ctypes
import mmap
import time

LOCK_ADD_LOOP = bytes.fromhex("f0830701" "48ffce" "75f7" "c3")  # 1: lock add dword [rdi], 1; dec rsi; jnz 1b; ret


def check(**p):
    page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(LOCK_ADD_LOOP)
    loop = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
    words = (ctypes.c_char * 256)()
    split = ((ctypes.addressof(words) + 63) & ~63) + 62  # two bytes in one cache line, two in the next
    start, done = time.perf_counter(), 0
    while time.perf_counter() - start < 1.5:
        loop(split, 100000)
        done += 100000
    return f"SANDBOX-ESCAPED {done} split locks held the machine's memory bus"
