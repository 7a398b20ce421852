# expect: cpu_limit|timeout
# limits: cpu_seconds=1, wall_seconds=8
# kernel-independent
def check(**p):
    n = 0
    while True:
        n += 1
