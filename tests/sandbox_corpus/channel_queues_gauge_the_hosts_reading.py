# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105
# The host drains the child's output pipe and result socket as it gets the CPU, so how much of what the code wrote
# still waits in a channel tells how busy the machine is: FIONREAD (SIOCINQ) on the pipes and sockets 0-4 reads the
# bytes queued, TIOCOUTQ (SIOCOUTQ) on a socket the bytes its peer has not read yet (fcntl.ioctl; no audit event the
# hook judges, no pipe or socket of the code's own needed). Timed in a loop, a gauge of the host's load (and of other
# runs'), sampled as finely as the code likes. Every channel must answer neither.
import fcntl
import struct
import sys

FIONREAD, TIOCOUTQ = 0x541B, 0x5411


def check(**p):
    sys.stdout.write("x" * 512)
    sys.stdout.flush()
    seen = {}
    for fd in range(5):
        for name, command in (("FIONREAD", FIONREAD), ("TIOCOUTQ", TIOCOUTQ)):
            try:
                seen[f"{name} on fd {fd}"] = struct.unpack("i", fcntl.ioctl(fd, command, b"\0" * 4))[0]
            except OSError:
                pass
    return f"SANDBOX-ESCAPED the channels' queues, drained as the host gets the CPU: {seen}" if seen else 1
