# expect: forbidden
# expect-kernel: crashed
# Put the stdout pipe where the result channel was (dup2 onto fd 3) so that the hook's reports would land in the
# output the host only counts (where copying a host channel is refused, a scratch file: the reports would land
# nowhere), print a forged result there, then do something forbidden: the hook sees the channel replaced and the
# run ends as tampering; without the hook no result reaches the host at all.
import contextlib
import os


def check(**p):
    try:
        os.dup2(1, 3)
    except OSError:
        os.dup2(os.open("forged", os.O_CREAT | os.O_WRONLY), 3)
    os.write(3, b'{"result":"forged on the replaced channel"}\n')
    with contextlib.suppress(Exception):
        open(p["secret_file"]).close()
    return 1
