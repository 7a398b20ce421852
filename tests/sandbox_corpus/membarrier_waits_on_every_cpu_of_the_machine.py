# expect: forbidden
# expect-kernel: ok
# value: 1
# membarrier reaches past the run to the whole machine (native code only: no Python wrapper; with the hook on,
# importing ctypes is refused): MEMBARRIER_CMD_QUERY answers the commands the host kernel was built with (0x3ff on
# the test machine: Linux 6.3+ with rseq), MEMBARRIER_CMD_GLOBAL waits for an RCU grace period of every CPU (16 ms
# here, however busy the machine's other CPUs keep it), MEMBARRIER_CMD_GLOBAL_EXPEDITED interrupts every CPU that is
# running a process registered for it (another run's, the host's), and the registrations mark the run for other
# callers' interrupts. No check needs any of them: every command must fail, as on a kernel built without membarrier.
import os
import time

COMMANDS = {"query": 0, "global": 1, "global_expedited": 2, "register_global_expedited": 4, "private_expedited": 8,
            "register_private_expedited": 16, "get_registrations": 512}


def check(**p):
    import ctypes  # refused by the hook (forbidden)

    number = {"x86_64": 324, "aarch64": 283}.get(os.uname().machine)
    if number is None:
        return 1
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    answered = {}
    for name, command in COMMANDS.items():
        start = time.perf_counter_ns()
        result = libc.syscall(ctypes.c_long(number), ctypes.c_long(command), ctypes.c_long(0), ctypes.c_long(0))
        if result >= 0:
            answered[name] = (hex(result), (time.perf_counter_ns() - start) // 1000)
    return f"SANDBOX-ESCAPED membarrier answered (result, microseconds): {answered}" if answered else 1
