# expect: bad_result
# ruff: noqa: SIM105, SIM115
# expect-kernel: bad_result
# A returned dict whose items() runs while the bootstrap encodes it and writes a forged frame of its own; its
# __eq__, __hash__ and __reduce__ would leak if the host ever compared, hashed or pickled the value.
import os


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


class Result(dict):
    def items(self):
        os.write(3, b'{"result":"forged"}\n')
        return super().items()

    def __eq__(self, other):
        return leak("__eq__ ran in the host")

    def __hash__(self):
        leak("__hash__ ran in the host")
        return 0

    def __reduce__(self):
        return (leak, ("__reduce__ ran in the host",))


def check(**p):
    return Result(score=1.0)
