# expect: forbidden
# A refused operation whose report outgrows the host's result cap: the hook's reason carried the code's own text
# whole (the module name of a refused import, the name of an event given to `sys.audit`), so a name of 300,000
# characters made a report of 300 KB. Main read the channel only up to its cap (`max_output_bytes` and some slack):
# the report was cut, no violation was listed, and the run read as `output_limit`, the refused attempts unreported
# (measured in the full and degraded sets). The code's own threads (where they may start) write on the channel
# meanwhile, so that a report sent in pieces would have their bytes between them. The hook now cuts every reason
# to 500 characters before it writes the report: one short line, whole and first.
import contextlib
import os
import sys
import threading

LONG = "x" * 300_000


def chatter(rounds):
    for _ in range(rounds):
        try:
            os.write(3, b"zz")
        except OSError:
            return


def check(**p):
    threads = []
    for _ in range(2):
        try:
            thread = threading.Thread(target=chatter, args=(1500,))
            thread.start()
            threads.append(thread)
        except RuntimeError:  # where no thread of the code's own may start
            break
    for attempt in (lambda: __import__("ctypes." + LONG), lambda: __import__(LONG + ".ctypes"),
                    lambda: sys.audit("socket." + LONG, 1), lambda: sys.audit("os.exec" + LONG)):
        with contextlib.suppress(Exception):
            attempt()
    for thread in threads:
        thread.join()
    return "SANDBOX-ESCAPED: four refused attempts went unreported"
