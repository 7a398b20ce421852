# expect: forbidden
# expect-kernel: ok
# value: 1
# What a pidfd of the host tells: PIDFD_GET_INFO (an ioctl on the descriptor SO_PEERPIDFD hands out) answers the host's
# pid, parent, uids and its cgroup's id; and polling it tells when the host exits. Raw with the hook off.
import ctypes
import struct

PIDFD_GET_INFO = (3 << 30) | (64 << 16) | (0xFF << 8) | 11


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    buf, length = ctypes.create_string_buffer(4), ctypes.c_uint32(4)
    if libc.getsockopt(3, 1, 77, buf, ctypes.byref(length)) != 0:
        return 1
    pidfd = int.from_bytes(buf.raw, "little")
    info = ctypes.create_string_buffer(64)
    ctypes.memmove(info, struct.pack("Q", 0x3F), 8)  # every field the kernel has
    if libc.ioctl(pidfd, ctypes.c_ulong(PIDFD_GET_INFO), info) == 0:
        cgroup, pid, _tgid, ppid = struct.unpack_from("QIII", info.raw, 8)
        return f"SANDBOX-ESCAPED the host is pid {pid}, child of {ppid}, in cgroup {cgroup}"
    return f"SANDBOX-ESCAPED a pidfd of the host: {pidfd}"
