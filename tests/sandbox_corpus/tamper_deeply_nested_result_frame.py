# expect: bad_result
# expect-kernel: bad_result
# A result frame the host cannot parse without recursing 30000 levels deep, written straight to the channel: the
# host must read it as a bad result, never raise (RecursionError) out of run_sandboxed.
import os


def check(**p):
    depth = 30000
    os.write(3, b'{"result":' + b"[" * depth + b"]" * depth + b"}\n")
    os._exit(0)
