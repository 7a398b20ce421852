# expect: cpu_limit|timeout
# limits: cpu_seconds=1, wall_seconds=8
# kernel-independent
# CPU burnt inside one C call that never returns to the interpreter's signal checks: catastrophic regex
# backtracking.
import re


def check(**p):
    return bool(re.match(r"(a+)+$", "a" * 64 + "b"))
