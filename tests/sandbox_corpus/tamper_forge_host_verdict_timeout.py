# expect: bad_result
# expect-kernel: bad_result
# The code writes a verdict only the host can reach (the wall clock ran out) as its own final frame and leaves at
# once: a caller that retries timeouts, or reads them as a slow machine rather than a broken check, must never get
# one from the code. Only the kinds the bootstrap itself writes (exception, memory_limit, crashed, output_limit,
# bad_result, and isolation_missing for a layer really missing) may come over the channel.
import os


def check(**p):
    os.write(3, b'{"error_kind":"timeout","error":"wall-clock limit of 3s exceeded"}\n')
    os._exit(0)
