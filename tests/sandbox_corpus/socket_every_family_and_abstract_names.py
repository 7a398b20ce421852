# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# Every socket family and type (INET, INET6, UNIX stream/dgram/seqpacket, NETLINK route/audit, PACKET, VSOCK,
# ALG), abstract Unix names (bind and connect to "\\0..."), and host Unix sockets (Docker, D-Bus).
import socket


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    made = []
    for family in ("AF_INET", "AF_INET6", "AF_UNIX", "AF_NETLINK", "AF_PACKET", "AF_VSOCK", "AF_ALG"):
        for kind in ("SOCK_STREAM", "SOCK_DGRAM", "SOCK_RAW", "SOCK_SEQPACKET"):
            try:
                s = socket.socket(getattr(socket, family), getattr(socket, kind))
                made.append(f"{family}/{kind}")
                s.close()
            except Exception:
                pass
    for address in ("\0coworkenv-abstract", "/var/run/docker.sock", "/run/dbus/system_bus_socket"):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(address)
            made.append(address)
        except Exception:
            pass
    return leak(made) if made else 1
