# expect: ok
# expect-kernel: ok
# value: 1
# Which pids of the machine are threads, asked through os.setpgid (no audit event, no namespace in the way): the kernel
# looks the pid up before any permission check and answers EINVAL for a thread that leads no thread group (a thread of
# another process: the host's, another run's, any service's) and ESRCH for a process or for no task at all. A scan
# of the pid range maps every multi-threaded process of the machine, in every set. The child leads its own session,
# so setpgid can change nothing of its own: refused alike for every pid, whether it names a thread or nothing.
import errno
import os


def check(**p):
    answers = {}
    for name, pid in (("host thread", int(p["host_thread"])), ("host process", int(p["host_process"])),
                      ("init", 1), ("no task", 2**30 - 7), ("itself", 0), ("own pid", os.getpid())):
        try:
            os.setpgid(pid, 0)
            answers[name] = "done"
        except OSError as exc:
            answers[name] = errno.errorcode.get(exc.errno, str(exc.errno))
    if len(set(answers.values())) > 1:
        return f"SANDBOX-ESCAPED setpgid tells threads and processes apart: {answers}"
    return 1
