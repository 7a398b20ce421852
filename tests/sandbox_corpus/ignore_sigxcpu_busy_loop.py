# expect: cpu_limit|timeout
# limits: cpu_seconds=1, wall_seconds=10
# kernel-independent
# Signal abuse: ignoring the soft CPU-limit signal only buys time until the hard limit's SIGKILL.
import signal


def check(**p):
    signal.signal(signal.SIGXCPU, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        pass
