# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: `email.utils.make_msgid()` (and smtplib, http.server) asks socket.getfqdn, which
# asks socket.gethostname: forbidden in every set with the hook (audited), ENOSYS where seccomp refuses uname. Every
# set must answer, with the sandbox's neutral name (as os.uname() and platform.node() give), never the host's.
import email.utils
import socket


def check(**p):
    names = (socket.gethostname(), socket.getfqdn(), socket.getfqdn("example.org"), email.utils.make_msgid())
    if any(p["host_name"] in name for name in names if p["host_name"] not in ("", "sandbox")):
        return "SANDBOX-ESCAPED host name: " + repr(names)
    found = (names[0] == "sandbox", names[1] == "sandbox", names[2] == "example.org", names[3].endswith("@sandbox>"))
    return 1 if all(found) else repr(names)
