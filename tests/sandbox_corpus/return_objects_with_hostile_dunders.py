# expect: ok
# expect-kernel: ok
# ruff: noqa: SIM105, SIM115
# A value whose dunders lie or act: a float subclass whose __repr__/__float__ say something else, an int subclass,
# a str subclass with __str__, a dict subclass whose items() and keys() differ, __eq__/__hash__/__del__. Only plain
# JSON may cross: none of this may ever run in the host, where the pid is another (the dunders check it).
import os

SANDBOX_PID = os.getpid()


def here(what, fallback):
    if os.getpid() != SANDBOX_PID:  # running in some other process: the host
        try:
            open("/leak/SANDBOX-ESCAPED " + what)
        except Exception:
            pass
        return "SANDBOX-ESCAPED " + what
    return fallback


class Liar(float):
    def __repr__(self):
        return here("float repr", "0.5")

    def __float__(self):
        return 1e999


class Big(int):
    def __repr__(self):
        return here("int repr", "7")


class Text(str):
    def __str__(self):
        return here("str", "plain")


class Map(dict):
    def items(self):
        return [("k", here("items", "v"))]

    def keys(self):
        return [here("keys", "k")]

    def __eq__(self, other):
        return here("eq", True)

    def __hash__(self):
        return 1

    def __del__(self):
        here("del", None)


def check(**p):
    return [Liar(0.5), Big(7), Text("plain"), Map(k="v")]
