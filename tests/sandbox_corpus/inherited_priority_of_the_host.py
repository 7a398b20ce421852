# expect: forbidden
# expect-kernel: ok
# value: 1
# The scheduling priority the host runs at, inherited through fork and exec: os.getpriority(PRIO_PROCESS, 0) (no
# audit event) answered the host's nice value (10 under `nice -n 10`, a batch pipeline's or a service's setting), in
# all four sets. The run keeps running at that priority (the host's choice is honoured), but may not read it: since
# sandbox41 `os.getpriority`, `os.nice` and `os.setpriority` of the run itself answer a value of its own (0 at the
# start, whatever the host's: `test_a_run_reads_none_of_the_settings_its_host_chose` runs a host at nice 5 and up),
# and the call itself (libc's, with the hook off) stays refused (with the hook, importing ctypes is: forbidden).
import os


def check(**p):
    for who in (0, os.getpid()):
        try:
            shown = os.getpriority(os.PRIO_PROCESS, who)
        except OSError:
            continue
        if shown != 0:
            return f"SANDBOX-ESCAPED the host's nice value {shown}"
    try:
        import ctypes  # the kernel layers alone: the C library's own call

        libc = ctypes.CDLL(None, use_errno=True)
        ctypes.set_errno(0)
        value = libc.getpriority(0, 0)
        if value != -1 or ctypes.get_errno() == 0:
            return f"SANDBOX-ESCAPED the host's nice value {value} through libc"
    except ImportError:
        pass
    return 1
