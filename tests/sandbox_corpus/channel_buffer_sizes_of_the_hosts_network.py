# expect: forbidden
# expect-kernel: ok
# value: 1
# The channels are sockets the host made in its own network namespace, so each started with that namespace's
# net.core.wmem_default and rmem_default: SO_SNDBUF and SO_RCVBUF of fd 3 (and fd 4 where the code may ask), which a
# socket may say of itself, answered the host's network tuning. The sandbox fixes the child's ends at 64 KiB, which
# the kernel reads back doubled; any other size is the host's.
import socket

SANDBOX_SIZE = 2 * 65536


def check(**p):
    for fd in (3, 4):
        try:
            s = socket.socket(fileno=fd)
        except OSError:
            continue  # fd 4 exists only where the code may ask
        try:
            sizes = [s.getsockopt(socket.SOL_SOCKET, o) for o in (socket.SO_SNDBUF, socket.SO_RCVBUF)]
        finally:
            s.detach()
        if sizes != [SANDBOX_SIZE] * 2:
            return f"SANDBOX-ESCAPED the host's socket buffer defaults {sizes} on fd {fd}"
    return 1
