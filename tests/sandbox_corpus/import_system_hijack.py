# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The import system turned against the stdlib: a meta_path finder that serves every module from scratch, a
# path_hooks entry, sys.path pointing at scratch ahead of the stdlib, and a scratch "json" that reads the secret.
import os
import sys


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


class Finder:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        return None


def check(**p):
    with open("zipfile.py", "w") as fh:
        fh.write(f"with open({p.get('secret_file', '/etc/shadow')!r}) as fh:\n    SECRET = fh.read()\n")
    sys.path.insert(0, os.getcwd())
    sys.meta_path.insert(0, Finder)
    sys.modules.pop("zipfile", None)
    try:
        import zipfile
        return leak(zipfile.SECRET)
    except Exception:
        return 1
