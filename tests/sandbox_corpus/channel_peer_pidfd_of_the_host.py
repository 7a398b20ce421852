# expect: forbidden
# expect-kernel: ok
# value: 1
# A pidfd of the host without pidfd_open: getsockopt(SO_PEERPIDFD) on the result channel (fd 3, the only socket the
# child holds) hands back a descriptor of the process on its other end, raw with the hook off. What a socket says of
# itself (SO_TYPE) must still answer.
import ctypes


def option(libc, name, size):
    buf, length = ctypes.create_string_buffer(size), ctypes.c_uint32(size)
    if libc.getsockopt(3, 1, name, buf, ctypes.byref(length)) != 0:
        return None
    return buf.raw[:length.value]


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    if option(libc, 3, 4) is None:  # SO_TYPE
        return "the channel's own type was refused"
    pidfd = option(libc, 77, 4)  # SO_PEERPIDFD
    if pidfd is not None:
        return f"SANDBOX-ESCAPED a pidfd of the host: {int.from_bytes(pidfd, 'little')}"
    return 1
