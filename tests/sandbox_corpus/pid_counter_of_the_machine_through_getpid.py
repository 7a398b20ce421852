# expect: ok
# value: 1
# needs: pidns
# The run's own pid was the machine's: os.getpid() (no audit event, nothing to refuse) counts every process and thread
# the machine started since boot, so it gauges the uptime the time namespace hides, and against the host's pid (or a
# pid an earlier run returned) how many processes the host and other runs started in between: a channel from the
# host's activity and a tell of a probe run (started alone, right after the last) from a real one. A run of its own
# pid namespace is pid 2 in every run (pid 1 is the namespace's idle init), whatever the machine did.
import os


def check(**p):
    pid = os.getpid()
    if pid != 2:
        return f"SANDBOX-ESCAPED the machine's pid counter: pid {pid}, {pid - int(p['host_process'])} after the host's"
    return 1
