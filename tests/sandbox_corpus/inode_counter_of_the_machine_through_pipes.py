# expect: ok
# expect-kernel: ok
# value: 1
# A pipe's inode number comes from one counter of the machine's (get_next_ino), which every CPU draws from in batches
# of 1024: os.pipe() and os.fstat (no audit event) of 2100 pipes use up the run's batch, and the first number of the
# next tells where the machine stands. Read twice a second apart it counted what the host and concurrent runs made
# meanwhile (2166 with the run alone, 38077 while the host made 50000 pipes, in every set): a gauge of their
# activity, a tell of a probe run from a real one and, with a run that makes pipes, a channel between runs.
import itertools
import os


def batch_start():
    seen = []
    for _ in range(2100):
        r, w = os.pipe()
        seen.append(os.fstat(r).st_ino)
        os.close(r)
        os.close(w)
    jumps = [b for a, b in itertools.pairwise(seen) if b != a + 1]
    return jumps[-1] if jumps else seen[-1]


def check(**p):
    try:
        first = batch_start()
    except OSError:
        return 1  # no pipes: nothing reads or moves the counter
    return f"SANDBOX-ESCAPED the machine's inode counter through pipes: {first}, then {batch_start()}"
