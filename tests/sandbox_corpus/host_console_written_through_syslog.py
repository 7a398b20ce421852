# expect: ok|forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The C library writes the host's console on the code's behalf: syslog.openlog with LOG_CONS, then syslog.syslog
# (audit events the hook let through), finds no /dev/log (its socket is refused) and falls back to opening
# /dev/console natively (glibc's own constant path, no "open" audit event) and writing the message there, terminal
# escapes and forged lines raw: strace showed `openat("/dev/console", O_WRONLY|O_NOCTTY) = 4` and 45 bytes written
# by a run without Landlock under a root host (Landlock answers EACCES, the minimal root has no console: ENOENT).
# The console is the machine's (a VM's serial log, a container's attached terminal). A tty's write moves its
# modification time (at most every 8 s), which os.stat reads (no audit event): the run tells by it.
import os

MESSAGE = "\x1b[2J\x1b[31mSANDBOX-ESCAPED console\x1b[0m\nsshd[1]: Accepted password for root"


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def console_time():
    try:
        return os.stat("/dev/console").st_mtime
    except OSError:
        return None


def check(**p):
    before = console_time()
    try:
        import syslog

        syslog.openlog("sandbox", syslog.LOG_CONS | syslog.LOG_NDELAY, syslog.LOG_USER)
        syslog.syslog(syslog.LOG_EMERG, MESSAGE)
        syslog.closelog()
    except Exception:
        return 1
    after = console_time()
    # The kernel moves a tty's time only where its 8-second bucket changed: a write within one shows no change.
    if before is not None and after is not None and after != before:
        return leak(f"wrote the host's console: its time moved from {before} to {after}")
    return 1
