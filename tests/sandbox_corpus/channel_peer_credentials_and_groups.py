# expect: forbidden
# expect-kernel: ok
# value: 1
# Who the host is, asked of the result channel raw with the hook off: SO_PEERCRED (its pid, uid and gid),
# SO_PEERGROUPS (the supplementary groups the child dropped), SO_PEERSEC (its security label). None may answer.
import ctypes


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    for name, option in (("SO_PEERCRED", 17), ("SO_PEERGROUPS", 59), ("SO_PEERSEC", 31)):
        buf, length = ctypes.create_string_buffer(256), ctypes.c_uint32(256)
        if libc.getsockopt(3, 1, option, buf, ctypes.byref(length)) == 0:
            return f"SANDBOX-ESCAPED {name}: {buf.raw[:length.value].hex()}"
    return 1
