# expect: forbidden
# expect-kernel: ok
# value: 1
# Raw with the hook off, every call that answers a descriptor's inode number for the host's channels (standard
# streams, the result socket: their numbers are the machine's inode counter at the spawn): fstat, newfstatat with
# AT_EMPTY_PATH (an empty path, and NULL as Linux 6.11 takes it), statx likewise, and dup3 to a free number first.
import ctypes
import os
import platform
import stat

# name -> (x86_64, aarch64)
NR = {"fstat": (5, 80), "newfstatat": (262, 79), "statx": (332, 291), "dup3": (292, 24)}
AT_EMPTY_PATH = 0x1000


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    col = 0 if platform.machine() == "x86_64" else 1
    buf = ctypes.create_string_buffer(256)
    seen = {}

    def ino(how):
        if how() != 0:
            return None
        st_mode = int.from_bytes(buf.raw[24:28] if col == 0 else buf.raw[16:20], "little")
        st_ino = int.from_bytes(buf.raw[8:16], "little")
        return st_ino if stat.S_ISFIFO(st_mode) or stat.S_ISSOCK(st_mode) else None

    for fd in range(4):
        calls = {
            "fstat": lambda fd=fd: libc.syscall(NR["fstat"][col], fd, buf),
            "newfstatat-empty": lambda fd=fd: libc.syscall(NR["newfstatat"][col], fd, b"", buf, AT_EMPTY_PATH),
            "newfstatat-null": lambda fd=fd: libc.syscall(NR["newfstatat"][col], fd, None, buf, AT_EMPTY_PATH),
        }
        for name, call in calls.items():
            if (found := ino(call)) is not None:
                seen[f"{name}({fd})"] = found
        if libc.syscall(NR["statx"][col], fd, b"", AT_EMPTY_PATH, 0x100, buf) == 0:
            seen[f"statx({fd})"] = int.from_bytes(buf.raw[32:40], "little")
        copy = libc.syscall(NR["dup3"][col], fd, 60 + fd, 0)
        if copy >= 0:
            try:
                st = os.fstat(copy)
                if stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode):
                    seen[f"dup3({fd})"] = st.st_ino
            except OSError:
                pass
            os.close(copy)
    return f"SANDBOX-ESCAPED the machine's inode counter through raw calls on the host's channels: {seen}" if seen else 1
