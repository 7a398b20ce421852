# expect: forbidden
# expect-kernel: bad_result|ok
# fd 3 is a Unix socket: wrap it and send descriptors to the host with SCM_RIGHTS (an open scratch file, fd 0),
# hoping the host ends up holding them; then shut the channel down halfway.
import os
import socket


def check(**p):
    with open("bait.txt", "w") as fh:
        fh.write("bait")
    fd = os.open("bait.txt", os.O_RDONLY)
    sent = 0
    try:
        chan = socket.socket(fileno=3)
        try:
            sent = chan.sendmsg([b"\n"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, bytes(memoryview(bytearray(
                fd.to_bytes(4, "little") + (0).to_bytes(4, "little")))))])
        finally:
            chan.detach()  # so that collecting the object does not close fd 3
    except Exception:
        pass
    return sent
