# expect: ok
# ruff: noqa: SIM105, SIM115
# needs: min-root
# value: 1
# Whether a host path exists, its size, owner and times, through calls no audit event covers and Landlock does
# not check (stat, lstat, access, statvfs, readlink, path.exists/isdir/getsize, pathlib): a host file next to a
# name that does not exist must look the same. Closed by the minimal root of the mount namespace; without one it
# is a known limit (docs/sandbox.md).
import os
import pathlib
import sys


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def probe(path):
    answers = []
    for call in (os.stat, os.lstat, lambda q: os.access(q, os.F_OK), os.statvfs, os.readlink, os.path.exists,
                 os.path.isdir, os.path.getsize, lambda q: pathlib.Path(q).exists(), lambda q: os.stat(q).st_mtime):
        try:
            answer = call(path)
            answers.append(answer if isinstance(answer, (bool, int, float)) else type(answer).__name__)
        except OSError as exc:
            answers.append(exc.errno)
        except Exception as exc:
            answers.append(type(exc).__name__)
    return answers


def check(**p):
    # The folders above sys.path and the cwd exist by what the sandbox tells the code anyway.
    told = [os.getcwd(), *sys.path]
    paths = [p[key] for key in ("secret_file", "world_file", "host_file", "repo_dir") if key in p]
    paths += ["/etc/passwd", "/etc/shadow", "/root", "/home", "/var/run/docker.sock", "/usr/bin/python3",
              "/etc/hostname", "/proc/1", "/sys/kernel", sys.executable]
    found = [path for path in paths if not any(known.startswith(path.rstrip("/") + "/") for known in told)
             and probe(path) != probe(path + "-absent")]
    return leak(repr(found)) if found else 1
