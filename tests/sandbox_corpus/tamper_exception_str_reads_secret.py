# expect: forbidden
# ruff: noqa: SIM105
# expect-kernel: exception|bad_result
# An exception whose __str__/__repr__ read a host secret while the bootstrap describes the failure, and whose
# __del__ tries to write a forged result afterwards: the description runs inside the sandbox too.
import os


class Hostile(Exception):
    path = ""

    def __str__(self):
        with open(self.path) as fh:
            return "SANDBOX-ESCAPED " + fh.read()

    __repr__ = __str__

    def __del__(self):
        try:
            os.write(3, b'{"result":"SANDBOX-ESCAPED from __del__"}\n')
        except Exception:
            pass


def check(**p):
    Hostile.path = p["secret_file"]
    raise Hostile()
