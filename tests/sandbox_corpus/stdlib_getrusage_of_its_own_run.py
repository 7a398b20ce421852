# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: `resource.getrusage` (a grader timing or sizing its own work) raised OSError in every
# set: seccomp refuses the call (ENOSYS), whose `ru_maxrss` is the peak that exec carried over from the host and whose
# context-switch counts gauge the machine's load. It answers the run's own now: its CPU time as user time (the
# process's clock; the calling thread's for RUSAGE_THREAD), nothing for RUSAGE_CHILDREN (the run starts no process), 0
# for every count the run cannot read of itself; a `who` that names nothing is ValueError, as the C function says.
import resource
import time


def check(**p):
    start = time.process_time()
    while time.process_time() - start < 0.01:
        pass
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    thread = resource.getrusage(resource.RUSAGE_THREAD)
    try:
        resource.getrusage(7)
        unknown = "answered"
    except ValueError as exc:
        unknown = str(exc)
    found = [own.ru_utime >= 0.01, own.ru_maxrss, own.ru_nvcsw + own.ru_nivcsw, children.ru_utime, thread.ru_utime > 0,
             unknown, len(own)]
    return 1 if found == [True, 0, 0, 0.0, True, "invalid who parameter", 16] else repr(found)
