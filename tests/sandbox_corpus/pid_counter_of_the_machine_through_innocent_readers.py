# expect: ok
# value: 1
# needs: pidns
# The machine's pid counter read where no one asks for a pid: a logging record's `process` field and the main
# thread's native id (threading.get_native_id(): gettid, no thread started) carry the run's pid (no audit event), so
# a check that merely logs could read how many processes the machine started since boot and since the last run. In
# a pid namespace of the run's own both read 2.
import logging
import threading


def check(**p):
    seen = {"logging": logging.makeLogRecord({}).process, "native_id": threading.get_native_id()}
    if set(seen.values()) != {2}:
        return f"SANDBOX-ESCAPED the machine's pid counter read by ordinary modules {seen}"
    return 1
