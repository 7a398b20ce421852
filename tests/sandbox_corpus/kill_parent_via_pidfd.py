# expect: exception
# expect-kernel: exception
# pidfd_open raises no audit event: this one is stopped by the kernel (seccomp / another uid), EPERM.
import os
import signal


def check(**p):
    signal.pidfd_send_signal(os.pidfd_open(int(p["host_process"])), signal.SIGKILL)
    return 1.0
