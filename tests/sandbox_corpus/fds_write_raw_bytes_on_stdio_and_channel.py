# expect: bad_result
# expect-kernel: bad_result
# ruff: noqa: SIM105
# Raw writes on every inherited descriptor: fd 0 (read-only /dev/null), fds 1 and 2 (frames printed where the host
# never parses them), fd 3 (a frame with a NUL, a frame split across writes, an error frame of an unknown kind).
import os


def check(**p):
    for fd, data in ((0, b"x"), (1, b'{"result": "stdout"}\n'), (2, b'{"result": "stderr"}\n'),
                     (3, b'{"error_kind": "sandbox_escape", "error": "x"}\n'), (3, b'{"res'), (3, b'ult": 1}\x00\n')):
        try:
            os.write(fd, data)
        except OSError:
            pass
    return 1
