# expect: ok
# expect-kernel: ok
# value: 1
# Timing of the host's activity: sampling the host's CPU clock while the code sleeps shows when, and how hard, the host
# works (whether it serves other runs, when it reads the result channel), a live side channel the sandbox must close.
import time


def check(**p):
    clock = (~int(p["host_process"]) << 3) | 2
    samples = []
    for _ in range(20):
        try:
            samples.append(time.clock_gettime_ns(clock))
        except OSError:
            return 1
        time.sleep(0.01)
    return f"SANDBOX-ESCAPED the host worked {(samples[-1] - samples[0]) / 1e6:.2f} ms of CPU in 0.2 s"
