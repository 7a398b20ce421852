# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# Raw with the hook off, more settings the host chose that fork and exec pass on (the test host sets both on the
# thread that starts the run): its NUMA memory policy (get_mempolicy: MPOL_PREFERRED, node 0, under the test host;
# `numactl --preferred`), the nodes its cpuset allows (MPOL_F_MEMS_ALLOWED: the machine's topology, also found node by
# node through set_mempolicy's EINVAL) and its machine-check kill policy (PR_MCE_KILL_GET: 1, early, where the
# machine's default answers 2), in all four sets. The policy stays the host's but no call may answer it; the kill
# policy must be the default.
import ctypes
import os

GET_MEMPOLICY = {"x86_64": 239, "aarch64": 236}
SET_MEMPOLICY = {"x86_64": 238, "aarch64": 237}
MPOL_DEFAULT, MPOL_BIND, MPOL_F_MEMS_ALLOWED = 0, 2, 4
PR_MCE_KILL_GET, PR_MCE_KILL_DEFAULT = 34, 2


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    machine = os.uname().machine
    mode, nodes = ctypes.c_int(-1), (ctypes.c_ulong * 16)()
    if machine in GET_MEMPOLICY:
        if libc.syscall(ctypes.c_long(GET_MEMPOLICY[machine]), ctypes.byref(mode), nodes, ctypes.c_ulong(1024), None,
                        ctypes.c_ulong(0)) == 0 and (mode.value, nodes[0]) != (MPOL_DEFAULT, 0):
            return leak(f"the host's memory policy: mode {mode.value}, nodes {nodes[0]:#x}")
        if libc.syscall(ctypes.c_long(GET_MEMPOLICY[machine]), None, nodes, ctypes.c_ulong(1024), None,
                        ctypes.c_ulong(MPOL_F_MEMS_ALLOWED)) == 0:
            return leak(f"the memory nodes the host's cpuset allows: {nodes[0]:#x}")
        for node in range(4):
            mask = ctypes.c_ulong(1 << node)
            if libc.syscall(ctypes.c_long(SET_MEMPOLICY[machine]), ctypes.c_int(MPOL_BIND), ctypes.byref(mask),
                            ctypes.c_ulong(64)) == 0:
                return leak(f"memory node {node} exists (set_mempolicy answered)")
    policy = libc.prctl(PR_MCE_KILL_GET, 0, 0, 0, 0)
    if policy not in (PR_MCE_KILL_DEFAULT, -1):
        return leak(f"the host's machine-check kill policy {policy}")
    return 1
