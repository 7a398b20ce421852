# expect: forbidden
# expect-kernel: ok
# value: 1
# The kernel's large attack surfaces, called raw with the hook off (ctypes; with the hook on, ctypes is refused):
# io_uring (its own path to file and socket operations, and many kernel bugs), userfaultfd (stalls kernel code at
# will), bpf, perf_event_open, the keyrings (keyctl, add_key, request_key), memfd_create and memfd_secret (memory
# RLIMIT_AS does not count). Each must fail; one that hands back a descriptor or key is an escape.
import ctypes
import platform

SYSCALLS = {  # name: (x86_64, aarch64)
    "io_uring_setup": (425, 425), "io_uring_enter": (426, 426), "io_uring_register": (427, 427),
    "userfaultfd": (323, 282), "bpf": (321, 280), "perf_event_open": (298, 241), "keyctl": (250, 219),
    "add_key": (248, 217), "request_key": (249, 218), "memfd_create": (319, 279), "memfd_secret": (447, 447),
}


def check(**p):
    column = {"x86_64": 0, "aarch64": 1}.get(platform.machine())
    if column is None:
        return 1  # another architecture: the filter has no numbers for it and refuses to run there
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
    name = ctypes.c_char_p(b"x")
    args = {
        "io_uring_setup": (8, params), "io_uring_enter": (0, 1, 0, 0, None, 0), "io_uring_register": (0, 0, None, 0),
        "userfaultfd": (0,), "bpf": (0, params, 72), "perf_event_open": (params, 0, -1, -1, 0),
        "keyctl": (0, -3, 0), "add_key": (ctypes.c_char_p(b"user"), name, name, 1, -3),
        "request_key": (ctypes.c_char_p(b"user"), name, None, 0), "memfd_create": (name, 0), "memfd_secret": (0,),
    }
    got = []
    for call, numbers in SYSCALLS.items():
        answer = libc.syscall(ctypes.c_long(numbers[column]), *args[call])
        if answer >= 0:
            got.append(f"{call}={answer}")
    return f"SANDBOX-ESCAPED {' '.join(got)}" if got else 1
