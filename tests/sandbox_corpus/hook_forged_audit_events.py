# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# sys.audit lets the code raise any event with any arguments: objects whose __and__, __eq__, __ne__, __index__,
# __hash__ or __bool__ run code would execute inside the hook. They record it, and from there try the secret.
import sys

RAN = []


class Evil(int):
    def _run(self, *a):
        RAN.append(sys._getframe(1).f_code.co_name)
        try:
            RAN.append(open(PATHS["secret_file"]).read())
        except Exception:
            pass
        return 0

    __and__ = __rand__ = __eq__ = __ne__ = __index__ = __bool__ = __lt__ = __ge__ = _run

    def __hash__(self):
        self._run()
        return 1


class EvilStr(str):
    def __eq__(self, other):
        RAN.append("eq in hook")
        return False

    def __hash__(self):
        RAN.append("hash in hook")
        return 1

    def startswith(self, *a):
        RAN.append("startswith in hook")
        return False


PATHS = {}


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    PATHS.update(p)
    events = [("open", ("ok.txt", "r", Evil(1))), ("open", (EvilStr("ok.txt"), None, 0)),
              ("os.kill", (Evil(1), 9)), ("import", (EvilStr("json"), None, None, None, None)),
              ("os.remove", (EvilStr("x"), Evil(-1))), ("os.listdir", (EvilStr("."),)),
              ("sqlite3.connect", (EvilStr(":memory:"),)), ("os.rename", ("a", "b", Evil(-1), Evil(-1)))]
    for event, args in events:
        try:
            sys.audit(event, *args)
        except Exception:
            pass
    return leak(repr(RAN)) if RAN else 1
