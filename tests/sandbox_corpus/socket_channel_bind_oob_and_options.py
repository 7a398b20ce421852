# expect: forbidden
# expect-kernel: ok
# value: 1
# The result channel is a socket the host made, so it lives in the host's network namespace whatever namespace the
# child is in. With the hook off, raw socket calls on it: bind to an abstract name (the name is then taken in the
# host's namespace for the wall clock: a host service that binds it later fails, EADDRINUSE), MSG_OOB data (the
# AF_UNIX out-of-band code a renderer-sandbox escape went through, CVE-2025-38236; the host's read skipped the byte
# silently), a socket filter program and buffer sizes. Each must fail; the frame written after them still counts.
import ctypes
import os
import struct

SOL_SOCKET, SO_SNDBUF, SO_ATTACH_FILTER, MSG_OOB = 1, 7, 26, 1


class Filter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Filter))]


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    name = b"\0coworkenv-squat-" + os.urandom(6).hex().encode()
    address = struct.pack("H", 1) + name  # AF_UNIX, abstract
    accept_all = (Filter * 1)(Filter(0x06, 0, 0, 0xFFFF))
    program = Program(1, accept_all)
    size = ctypes.c_int(1 << 20)
    attempts = {
        "bound the channel to an abstract name in the host's namespace": lambda: libc.bind(3, address, len(address)),
        "sent MSG_OOB data on the channel": lambda: libc.send(3, b"\n", 1, MSG_OOB) - 1,
        "attached a socket filter to the channel": lambda: libc.setsockopt(
            3, SOL_SOCKET, SO_ATTACH_FILTER, ctypes.byref(program), ctypes.sizeof(program)),
        "resized the channel's buffer": lambda: libc.setsockopt(3, SOL_SOCKET, SO_SNDBUF, ctypes.byref(size), 4),
        "listened on the channel": lambda: libc.listen(3, 1),
    }
    for what, attempt in attempts.items():
        if attempt() == 0:
            return f"SANDBOX-ESCAPED {what}"
    return 1
