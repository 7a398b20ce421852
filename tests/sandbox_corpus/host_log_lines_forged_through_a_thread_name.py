# expect: forbidden
# expect-kernel: ok
# value: 1
# limits: max_processes=2
# The same name per thread (each thread has a comm of its own, which the kernel prints for the thread that faults,
# and which `top -H` and `ps -L` list): pthread_setname_np (native code, the hook off) names the calling thread with
# prctl(PR_SET_NAME) and any other thread by writing /proc/self/task/<tid>/comm. Escaped on main with the kernel layers
# alone: a started thread and the main thread named themselves "\x1b[2Jkworker/0:1" (a kernel thread's name, after a
# screen clear). Must: every thread keeps the interpreter's name, whichever way it is asked to change.
import ctypes
import threading

FORGED = b"\x1b[2Jkworker/0:1"


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.pthread_self.restype = ctypes.c_ulong
    names, ready, done = {}, threading.Event(), threading.Event()

    def name_of(handle):
        got = ctypes.create_string_buffer(32)
        libc.pthread_getname_np(ctypes.c_ulong(handle), got, ctypes.c_size_t(32))
        return got.value

    def worker():
        me = libc.pthread_self()
        libc.pthread_setname_np(ctypes.c_ulong(me), ctypes.c_char_p(FORGED))  # itself: prctl
        names["thread itself"] = name_of(me)
        names["handle"] = me
        ready.set()
        done.wait(2)

    thread = threading.Thread(target=worker)
    thread.start()
    ready.wait(2)
    other = names.pop("handle", None)
    if other is not None:  # another thread: /proc/self/task/<tid>/comm
        libc.pthread_setname_np(ctypes.c_ulong(other), ctypes.c_char_p(FORGED[::-1][:15]))
        names["thread by main"] = name_of(other)
    done.set()
    thread.join()
    main = libc.pthread_self()
    libc.pthread_setname_np(ctypes.c_ulong(main), ctypes.c_char_p(FORGED))
    names["main"] = name_of(main)
    forged = [key for key, name in names.items() if name in (FORGED, FORGED[::-1][:15])]
    return f"SANDBOX-ESCAPED threads named by the code in the host's view: {forged}" if forged else 1
