# expect: bad_result
# expect-kernel: bad_result
# The code writes a refusal by the sandbox (error kind forbidden, a blocked host read) as its final frame, with no
# violation line behind it: a report that blames the layers for an attack that never happened, or hides which
# one did. The host's verdicts (timeout, cpu_limit, forbidden) come from what the host saw, never from a frame.
import os


def check(**p):
    os.write(3, b'{"error_kind":"forbidden","error":"blocked: open /etc/shadow for reading"}\n')
    os._exit(0)
