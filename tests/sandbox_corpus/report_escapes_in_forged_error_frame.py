# expect: exception
# expect-kernel: exception
# error: \x1b[2J\x1b[3J\r
# An error frame the code writes on the result channel itself, with JSON escapes the host decodes into controls:
# clear the screen and the scrollback, CR, NUL, a line separator, a bidi override. The host escapes them again.
import os


def check(**p):
    os.write(3, b'{"error_kind":"exception","error":"\\u001b[2J\\u001b[3J\\r\\u0000done\\u2028\\u202e"}\n')
    os._exit(0)
