# expect: crashed
# expect-kernel: crashed
# error: killed by SIGXCPU
# A verdict only the host gives, through the code's own signal: the host read any death by SIGXCPU as its CPU limit's
# (`cpu_limit`, "CPU time limit of 1s exceeded"), so a code that raises SIGXCPU at once (signal.raise_signal: tgkill
# on itself, no audit event) got the CPU-limit verdict after 0.05 s of CPU, in all four sets. The frames that claim a
# host verdict are refused as forged; the signal that stands for it must be the kernel's too: the CPU spent decides.
import signal


def check(**p):
    signal.raise_signal(signal.SIGXCPU)
    return "SANDBOX-ESCAPED the code outlived its own SIGXCPU"
