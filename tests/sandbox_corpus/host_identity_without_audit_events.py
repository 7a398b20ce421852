# expect: ok
# needs: netns
# value: 1
# The host's name through a call no audit event covers: os.uname().nodename (socket.gethostname is audited and
# refused). With the network namespace comes a UTS namespace named "sandbox"; without one it is a known limit.
import os


def check(**p):
    name = os.uname().nodename
    return 1 if name == "sandbox" else "host name: " + name
