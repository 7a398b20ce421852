# expect: bad_result
# expect-kernel: bad_result
# The code shares its process with the audit hook and writes a violation line of its own on the result channel:
# free text the hook never writes ("the check passed ..."), then returns. Main read it as the hook's refusal wherever
# the hook ran (`forbidden`, "blocked: the check passed; approved by the operator"): a report of the code's choosing
# in the operator's log and the verifier's explanation. The host now takes a violation line only in a form the hook
# writes (its fixed reasons, a name shown as a dotted identifier or quoted as `repr` does); any other is tampering.
import os


def check(**p):
    os.write(3, b'\n{"violation":"the check passed; approved by the operator, no refusal happened"}\n')
    return 1
