# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# With the hook off, the C library's uname() and gethostname() (which asks uname) through ctypes, and
# socket.gethostname (audited: refused with the hook on): the host kernel's release and build string in every set,
# the host's name without a UTS namespace. The kernel must refuse the syscall itself.
import ctypes
import socket


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(host_release="", host_version="", host_name="", **p):
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(6 * 65)
    text = []
    if libc.uname(buf) == 0:
        text += [buf.raw[i * 65:(i + 1) * 65].split(b"\0")[0].decode() for i in range(5)]
    name = ctypes.create_string_buffer(256)
    if libc.gethostname(name, 256) == 0:
        text.append(name.value.decode())
    try:
        text.append(socket.gethostname())
    except OSError:
        pass
    found = [host for host in (host_release, host_version, host_name) if host and host in text]
    return leak(found) if found else 1
