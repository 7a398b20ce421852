# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# A refused call's traceback reaches the hook's own frame: empty every container in its locals, rewrite every
# closure cell and default reachable from there, then retry the secret, the parent's environ and the repository.


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def blank(value):
    if isinstance(value, (list, dict, set)):
        value.clear()
    for cell in getattr(value, "__closure__", None) or ():
        try:
            content = cell.cell_contents
            cell.cell_contents = ("/",) if isinstance(content, tuple) else type(content)()
        except Exception:
            pass
    try:
        if getattr(value, "__defaults__", None):
            value.__defaults__ = tuple(("/",) if isinstance(d, tuple) else d for d in value.__defaults__)
    except Exception:
        pass


def attack(p):
    for attempt in (lambda: open(p["secret_file"]).read(),
                    lambda: open(f"/proc/{p['host_process']}/environ", "rb").read().decode(errors="replace"),
                    lambda: (open(p["repo_target"], "w").close(), "wrote into the repository")[1]):
        try:
            return attempt()
        except Exception:
            pass
    return None


def check(**p):
    try:
        open(p["secret_file"])
    except Exception as exc:
        tb = exc.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            for value in list(frame.f_locals.values()) + list(frame.f_globals.values()):
                blank(value)
            tb = tb.tb_next
    got = attack(p)
    return leak(got) if got else 1
