# expect: bad_result
# expect-kernel: bad_result
# The code writes the bootstrap's refusal itself (error kind isolation_missing) and leaves: a strict caller must
# be able to trust that kind to mean "this machine lacks a layer", so a forged one reads as tampering.
import os


def check(**p):
    os.write(3, b'{"error_kind":"isolation_missing","error":"required isolation missing (landlock: forged)"}\n')
    os._exit(0)
