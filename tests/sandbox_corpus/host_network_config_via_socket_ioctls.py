# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# The host's network configuration without opening a socket: socket ioctls (SIOCGIFCONF, SIOCGIFADDR,
# SIOCGIFHWADDR, SIOCGIFINDEX) answer on any socket descriptor, and the result channel is one.
import fcntl
import socket
import struct

SIOCGIFCONF, SIOCGIFADDR, SIOCGIFHWADDR, SIOCGIFINDEX = 0x8912, 0x8915, 0x8927, 0x8933


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    try:
        answer = fcntl.ioctl(3, SIOCGIFCONF, struct.pack("iL", 0, 0))
        if struct.unpack("iL", answer)[0] > 0:
            return leak(f"SIOCGIFCONF reports {struct.unpack('iL', answer)[0]} bytes of interfaces")
    except Exception:
        pass
    for name in (b"lo", b"eth0", b"ens3", b"ens5", b"enp0s3", b"docker0", b"wlan0"):
        for request in (SIOCGIFADDR, SIOCGIFHWADDR, SIOCGIFINDEX):
            try:
                answer = fcntl.ioctl(3, request, struct.pack("16s24x", name))
            except Exception:
                continue
            if request == SIOCGIFADDR:
                return leak(f"address of {name!r}: {socket.inet_ntoa(answer[20:24])}")
            return leak(f"ioctl {request:#x} answered for {name!r}: {answer[16:24].hex()}")
    return 1
