# expect: ok
# expect-kernel: ok
# value: 1
# Kernel memory that RLIMIT_AS never counts, without a descriptor: each real-time signal sent to itself while
# blocked queues one record in the kernel (its siginfo), up to RLIMIT_SIGPENDING. That limit was the host's
# (96362 here), and it counts per user: where the child keeps the host's uid, a full queue also leaves the host's
# own processes no queued real-time signal (timers, AIO completions) until the run ends. The records are counted
# by taking them back one at a time (sigtimedwait). The bootstrap sets every rlimit the kernel has; this one to a
# few dozen records.
import os
import signal

SENT = 2_000
BOUND = 1024


def check(**p):
    sig = signal.SIGRTMIN
    signal.pthread_sigmask(signal.SIG_BLOCK, [sig])
    for _ in range(SENT):
        os.kill(os.getpid(), sig)  # beyond the limit kill() still succeeds, without a record
    queued = 0
    while signal.sigtimedwait([sig], 0) is not None:
        queued += 1
    if queued > BOUND:
        return f"SANDBOX-ESCAPED {queued} real-time signal records queued in kernel memory"
    return 1
