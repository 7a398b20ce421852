# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: where Landlock is missing pwd and grp were marked absent (the C library's name
# services read host files natively there), so `getpass.getuser()`, `pwd.getpwuid`, `grp.getgrall` raised
# ModuleNotFoundError there and KeyError (or an empty list) in every other set, and `Path.owner()` raised
# NotImplementedError against KeyError: answers that depended on the set. Stand-ins now find nothing there too, as the
# real modules answer where the name services are pointed at no service; no host account is named in any set.
import getpass
import grp
import os
import pathlib
import pwd


def kind(call):
    try:
        return ("answered", call())
    except Exception as exc:
        return (type(exc).__name__,)


def check(**p):
    pathlib.Path("mine.txt").write_text("x")
    found = (
        kind(getpass.getuser), kind(lambda: pwd.getpwuid(os.getuid())), kind(lambda: pwd.getpwnam("root")),
        kind(pwd.getpwall), kind(lambda: grp.getgrgid(os.getgid())), kind(lambda: grp.getgrnam("root")),
        kind(grp.getgrall), kind(pathlib.Path("mine.txt").owner), kind(pathlib.Path("mine.txt").group),
        kind(lambda: pwd.getpwuid("0")), kind(lambda: pwd.getpwnam(0)), os.path.expanduser("~root/x"),
        hasattr(pwd, "struct_passwd"), hasattr(grp, "struct_group"),
    )
    expected = (("KeyError",), ("KeyError",), ("KeyError",), ("answered", []), ("KeyError",), ("KeyError",),
                ("answered", []), ("KeyError",), ("KeyError",), ("TypeError",), ("TypeError",), "~root/x", True,
                True)
    return 1 if found == expected else repr(found)
