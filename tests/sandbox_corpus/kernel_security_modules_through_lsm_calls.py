# expect: forbidden
# expect-kernel: ok
# value: 1
# The host kernel's configuration, asked raw with the hook off: lsm_list_modules names the security modules it runs
# (lockdown, capability, Landlock, BPF LSM here: whether AppArmor or SELinux guard the host), lsm_get_self_attr the
# label they give. Neither may answer.
import ctypes


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    buf, size = ctypes.create_string_buffer(4096), ctypes.c_uint32(4096)
    count = libc.syscall(ctypes.c_long(461), buf, ctypes.byref(size), ctypes.c_uint32(0))
    if count > 0:
        ids = [int.from_bytes(buf.raw[i * 8:i * 8 + 8], "little") for i in range(count)]
        return f"SANDBOX-ESCAPED the host runs the security modules {ids}"
    size.value = 4096
    if libc.syscall(ctypes.c_long(459), ctypes.c_uint(100), buf, ctypes.byref(size), ctypes.c_uint32(0)) > 0:
        return "SANDBOX-ESCAPED the host's label for this process"
    return 1
