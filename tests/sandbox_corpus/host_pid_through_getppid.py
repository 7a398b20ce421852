# expect: ok
# expect-kernel: ok
# value: 1
# The host's pid, asked of the kernel as the run's parent: getppid (no audit event, no pid namespace: that would take
# a fork in the child) answered the host's pid in all four sets, which names the host process to whoever reads it (a
# target for the signals, pidfds and /proc reads refused elsewhere, and how many runs it made: the pids in between).
# The parent must stay unknown: 0, as a process whose parent lies outside its pid namespace is told. (/proc's record
# of it, `PPid:` in /proc/self/status, is the /proc snippets' to cover.)
import os


def check(**p):
    parent = os.getppid()
    if parent == int(p["host_process"]):
        return f"SANDBOX-ESCAPED getppid answered the host's pid {parent}"
    return 1 if parent == 0 else f"getppid answered {parent}, neither the host nor 0"
