# expect: ok
# expect-kernel: ok
# value: 1
# The host's name through a call no audit event covers: os.uname().nodename (socket.gethostname is audited and
# refused). With the network namespace comes a UTS namespace named "sandbox"; without one the name was the host's
# (a known limit until uname itself was refused and os.uname answered neutrally: kernel_identity_through_os_uname).
import os


def check(**p):
    name = os.uname().nodename
    return 1 if name == "sandbox" else "host name: " + name
