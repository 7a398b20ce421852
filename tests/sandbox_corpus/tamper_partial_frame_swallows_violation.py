# expect: forbidden
# ruff: noqa: SIM105
# expect-kernel: ok
# value: 1
# Leave half a line on the result channel, then do something forbidden: the violation the hook writes next must
# still reach the host as a violation, not be glued onto the half line and lost in a malformed frame.
import os


def check(**p):
    os.write(3, b'{"result":')
    try:
        open(p["secret_file"]).close()
    except Exception:
        pass
    os.write(3, b"1}\n")
    os._exit(0)
