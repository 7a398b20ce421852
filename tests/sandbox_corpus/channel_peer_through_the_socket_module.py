# expect: forbidden
# expect-kernel: ok
# value: 1
# The result channel wrapped by Python's socket module (socket.socket(fileno=3): no new socket, only getsockopt of its
# type) and asked who is on its other end. With the hook the socket module is refused; without it the kernel must
# refuse the peer options. Detached, never closed: the channel must stay the host's.
import socket
import struct


def check(**p):
    channel = socket.socket(fileno=3)
    try:
        for name in ("SO_PEERCRED", "SO_PEERPIDFD", "SO_PEERGROUPS"):
            option = getattr(socket, name, {"SO_PEERPIDFD": 77, "SO_PEERGROUPS": 59}.get(name))
            try:
                raw = channel.getsockopt(socket.SOL_SOCKET, option, 256)
            except OSError:
                continue
            return f"SANDBOX-ESCAPED {name}: {struct.unpack_from('i', raw)[0]}"
    finally:
        channel.detach()
    return 1
