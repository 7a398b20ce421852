# expect: ok
# expect-kernel: ok
# value: 1
# os.openpty opens /dev/ptmx in the C library: no audit event, so where Landlock is missing (and with it the minimal
# root) nothing stopped it. A pty is a device of the host's devpts (a pool of the machine's, kernel.pty.max), and
# its descriptors reach the tty layer: line disciplines (TIOCSETD loads and attaches them; n_hdlc and n_gsm were
# exploited from unprivileged code), TIOCSTI, the console. No pty may open in any set.
import os


def check(**p):
    try:
        master, follower = os.openpty()
    except OSError:
        return 1
    try:
        return f"SANDBOX-ESCAPED opened a pty of the host's devpts: {os.ttyname(follower)}"
    finally:
        os.close(master)
        os.close(follower)
