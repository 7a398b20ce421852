# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok|bad_result
# value: 1
# Sockets besides TCP: AF_UNIX by path and in the abstract namespace (a host's X11, D-Bus, container runtime),
# AF_NETLINK (routes, audit), AF_PACKET, and the result channel itself re-wrapped as a socket to pass descriptors
# to the host with SCM_RIGHTS.
import array
import socket


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    targets = [
        (socket.AF_UNIX, socket.SOCK_STREAM, "/run/docker.sock"), (socket.AF_UNIX, socket.SOCK_STREAM, "/tmp/.X11-unix/X0"),
        (socket.AF_UNIX, socket.SOCK_STREAM, "\0/tmp/.X11-unix/X0"), (socket.AF_UNIX, socket.SOCK_DGRAM, "/dev/log"),
        (socket.AF_UNIX, socket.SOCK_STREAM, "/run/dbus/system_bus_socket"),
    ]
    for family, kind, address in targets:
        try:
            s = socket.socket(family, kind)
            s.connect(address)
            return leak(f"connected to {address!r}")
        except Exception:
            pass
    for family, kind, proto in ((socket.AF_NETLINK, socket.SOCK_RAW, 0), (socket.AF_NETLINK, socket.SOCK_DGRAM, 9),
                                (socket.AF_PACKET, socket.SOCK_RAW, 0)):
        try:
            socket.socket(family, kind, proto)
            return leak(f"opened a socket of family {family}")
        except Exception:
            pass
    try:
        channel = socket.socket(fileno=3)
        try:
            channel.sendmsg([b"\n"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [0, 1]))])
        finally:
            channel.detach()  # so that collecting the object does not close fd 3
    except Exception:
        pass
    return 1
