# expect: ok
# expect-kernel: ok
# value: 1
# Signals the host ignores stay ignored across fork and exec (only handlers are reset): signal.getsignal (no audit
# event) showed every signal the host process ignored beyond the few the spawn resets (SIGTTIN and SIGTTOU under the
# test host; SIGHUP under nohup, SIGINT and SIGQUIT for a shell's background job, SIGCHLD...), in all four sets: how
# the host was started. A run starts with default dispositions, bar SIGPIPE (which Python ignores itself), and an
# empty signal mask.
import signal


def check(**p):
    ignored = [sig.name for sig in signal.Signals
               if sig != signal.SIGPIPE and signal.getsignal(sig) == signal.SIG_IGN]
    blocked = sorted(signal.pthread_sigmask(signal.SIG_BLOCK, []))
    if ignored or blocked:
        return f"SANDBOX-ESCAPED the host's ignored signals {ignored}, blocked {blocked}"
    return 1
