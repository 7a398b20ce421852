# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# Where the host keeps the project and its virtual environment (a checkout under a user's home names the user), read
# from the interpreter with no audit event: sys.executable, sys.prefix, sys.orig_argv and sys.argv (the bootstrap's
# path), __main__.__file__, and the file names of the bootstrap's code, in the frames above the check's own and in
# the hook's frame of a refusal's traceback (a refused read, reported as forbidden); in all four sets. The run's interpreter may name its standard library
# (which it runs on), never the project's checkout or its venv. The host's values come in `p` to compare against.
import sys


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(repo_dir="", host_prefix="", **p):
    seen = [sys.executable, sys.prefix, sys.exec_prefix, *sys.orig_argv, *sys.argv,
            getattr(sys.modules.get("__main__"), "__file__", "") or ""]
    frame = sys._getframe()
    while frame is not None:
        seen.append(frame.f_code.co_filename)
        frame = frame.f_back
    try:
        open("/etc/shadow")
    except Exception as exc:
        tb = exc.__traceback__
        while tb is not None:
            seen.append(tb.tb_frame.f_code.co_filename)
            tb = tb.tb_next
    found = sorted({text for text in seen if any(host and host in text for host in (repo_dir, host_prefix))})
    return leak(found) if found else 1
