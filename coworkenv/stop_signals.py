"""The signals that stop a command: those a user, a closing terminal, a scheduler or a resource limit sends whose
default action kills the process on the spot. `coworkenv` and `python -m pipelines.run` turn each into an orderly
stop (the files being written are dropped, a line says so) instead of a death that leaves temp files behind.
"""

from __future__ import annotations

import signal

# SIGINT is not here: Python raises KeyboardInterrupt for it already. SIGPIPE and SIGXFSZ are not either: Python
# ignores them, so the write that meets them fails with an OSError. Crash signals (SIGSEGV, SIGBUS, SIGABRT, ...)
# report a fault of the process, not a request to stop.
_NAMES = ("SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGVTALRM", "SIGPROF", "SIGXCPU",
          "SIGPWR")
STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(getattr(signal, name) for name in _NAMES if hasattr(signal, name))


def unhandled_stop_signals() -> list[signal.Signals]:
    """The stop signals still at their default action: not ignored (nohup ignores SIGHUP, and an ignored signal
    must stay ignored) and without a handler someone else installed."""
    return [signo for signo in STOP_SIGNALS if signal.getsignal(signo) == signal.SIG_DFL]


__all__ = ["STOP_SIGNALS", "unhandled_stop_signals"]
