# expect: forbidden
# expect-kernel: ok
# value: 1
# prctl's speculation controls answer, for the store bypass, indirect branches and L1D flushing, whether the host's
# CPU has the flaw, whether the kernel lets a process choose and what the host chose for itself (inherited across
# fork and exec): what /sys/devices/system/cpu/vulnerabilities says of the machine and how it was booted
# (mitigations=, spec_store_bypass_disable=, l1d_flush=), which the empty /sys and Landlock keep out. PR_GET answered
# 2, 2, 8 on the test machine (enabled, not the code's to change; L1D flushing off at boot); the setter's errors say
# the same (ENXIO where the kernel gives no choice, EPERM where a choice is forced). Native code only (the hook
# refuses importing ctypes). Every feature must answer alike and nothing of its state.
PR_GET_SPECULATION_CTRL, PR_SET_SPECULATION_CTRL, PR_SPEC_DISABLE = 52, 53, 4
FEATURES = {"store_bypass": 0, "indirect_branch": 1, "l1d_flush": 2}


def check(**p):
    import ctypes  # refused by the hook (forbidden)

    libc = ctypes.CDLL(None, use_errno=True)
    states, setter = {}, {}
    for name, which in FEATURES.items():
        state = libc.prctl(PR_GET_SPECULATION_CTRL, which, 0, 0, 0)
        if state >= 0:
            states[name] = state
        ctypes.set_errno(0)
        done = libc.prctl(PR_SET_SPECULATION_CTRL, which, PR_SPEC_DISABLE, 0, 0)
        setter[name] = 0 if done == 0 else ctypes.get_errno()
    told = states or (setter if len(set(setter.values())) > 1 or 0 in setter.values() else {})
    return f"SANDBOX-ESCAPED the speculation controls: states {states}, setter errors {setter}" if told else 1
